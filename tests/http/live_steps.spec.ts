/*
 * A streaming agent's steps, live on the run's Transmit channel on a real
 * Adonis server: a watcher receives the step's text and tool-call input as
 * batched deltas while the model streams, then `step:committed` once the
 * step is journaled, whose response holds exactly what the deltas showed;
 * only those who may read the whole run, as its page lets them, may
 * subscribe (the stream guard's 403 for another person, a guest and an
 * approver who sees their rows only, 404 for no run). Authorization and
 * broadcast do not depend on the database: the suite runs once.
 */

import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import { defineConfig as defineTransmitConfig } from '@adonisjs/transmit'
import type { ApplicationService } from '@adonisjs/core/types'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { ask, DB_QUESTION, say, scriptedModel } from '../helpers/runtime.ts'
import { openTransmitStream } from '../helpers/transmit.ts'
import { FINANCE, governedAgent, governedTools } from '../helpers/governance.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import { runChannel } from '../../src/questions/client.ts'

const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })

const TEXT = 'Let me ask you which database this service should run on.'
/** The chunks the streamed step is cut in, 5 ms apart */
const CHUNK = 4

test.group(`Live steps over Transmit | ${dbName()}`, (group) => {
  let app: ApplicationService
  let baseUrl: string
  let release: () => void = () => {}
  const streams: { close(): void }[] = []

  group.setup(async () => {
    const httpApp = await createHttpApp({
      providers: [() => import('@adonisjs/transmit/transmit_provider')],
      config: { transmit: defineTransmitConfig({ pingInterval: false, transport: null }) },
      port: 0,
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'streamer',
            instructions: 'Help.',
            stream: true,
            // The first chunk waits for the test to subscribe: the run's id is known once started
            model: scriptedModel([[say(TEXT), ask('c1', DB_QUESTION)]], {
              stream: {
                chunkSize: CHUNK,
                chunkDelay: 5,
                onChunk: (index) =>
                  index === 0 ? new Promise<void>((resolve) => (release = resolve)) : undefined,
              },
            }),
          }),
          governedAgent(governedTools()),
        ],
        approvals: { resolveRole: (role) => (role === 'finance' ? FINANCE : []) },
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
      preload: async (booted) => {
        const transmit = await booted.container.make('transmit')
        transmit.registerRoutes()
      },
    })
    app = httpApp.app
    baseUrl = httpApp.baseUrl
    return () => httpApp.terminate()
  })

  group.each.teardown(() => {
    for (const stream of streams.splice(0)) stream.close()
  })

  test('the owner watches the step stream, then commit; its response is what the deltas showed', async ({
    assert,
  }) => {
    const agents = await app.container.make('agents.runtime')
    const run = await agents.start('streamer', { input: 'Pick a database', owner: 'ada' })
    const channel = runChannel(run.id)!
    const ada = await openTransmitStream(baseUrl, person('ada'))
    streams.push(ada)
    assert.equal(await ada.subscribe(channel, person('ada')), 204)
    release()

    const committed = await ada.next((message) => message.payload.type === 'step:committed')
    const deltas = ada.messages.filter((message) => message.payload.type === 'step:delta')
    assert.deepEqual(committed, {
      channel,
      payload: { type: 'step:committed', runId: run.id, step: 1, stream: committed.payload.stream },
    })
    // Every delta came before the commit, of the same model call
    assert.equal(ada.messages.at(-1), committed)
    for (const { payload } of deltas) {
      assert.deepInclude(payload, { runId: run.id, step: 1, stream: committed.payload.stream })
    }

    // What the deltas showed, put together, is the journaled response
    const text = deltas.map(({ payload }) => payload.text).join('')
    const input = deltas
      .flatMap(({ payload }) => payload.toolInputs)
      .map((delta: { toolCallId: string; toolName: string; delta: string }) => {
        assert.deepInclude(delta, { toolCallId: 'c1', toolName: 'ask' })
        return delta.delta
      })
      .join('')
    const saved = await JournalRow.query()
      .where('run_id', run.id)
      .where('key', 'step:1:response')
      .firstOrFail()
    const response = saved.payload as { text: string; toolCalls: { input: unknown }[] }
    assert.equal(text, TEXT)
    assert.equal(response.text, TEXT)
    assert.deepEqual(JSON.parse(input), DB_QUESTION)
    assert.deepEqual(response.toolCalls[0].input, DB_QUESTION)

    // Batched: the stream's pieces arrived in fewer messages, the first at once
    const pieces =
      Math.ceil(TEXT.length / CHUNK) + Math.ceil(JSON.stringify(DB_QUESTION).length / CHUNK)
    assert.isAbove(deltas.length, 2)
    assert.isBelow(deltas.length, pieces / 2, `${deltas.length} messages for ${pieces} pieces`)
    await agents.idle()
  })

  test('another person, a guest and an approver of its rows may not watch a run; no run is a 404', async ({
    assert,
  }) => {
    const agents = await app.container.make('agents.runtime')
    // A refund of $300 waits for 3 of finance: f1 decides its row but does not read the run
    const run = await agents.start('governed', {
      input: { calls: [['refund', { amount: 300 }]] },
      owner: 'ada',
    })
    await agents.idle()
    const channel = runChannel(run.id)!

    const statuses: Record<string, number> = {}
    for (const who of ['ada', 'bob', 'f1', null]) {
      const headers = who ? person(who) : {}
      const stream = await openTransmitStream(baseUrl, headers)
      streams.push(stream)
      statuses[who ?? 'guest'] = await stream.subscribe(channel, headers)
    }
    assert.deepEqual(statuses, { ada: 204, bob: 403, f1: 403, guest: 403 })

    const ada = await openTransmitStream(baseUrl, person('ada'))
    streams.push(ada)
    assert.equal(await ada.subscribe(runChannel(randomUUID())!, person('ada')), 404)
    assert.equal(await ada.subscribe('agent_inbox/runs/not-a-run', person('ada')), 404)

    const transmit = await app.container.make('transmit')
    assert.lengthOf(transmit.getSubscribersFor(channel), 1)
  })
})
