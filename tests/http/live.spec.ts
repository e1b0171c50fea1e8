/*
 * Live inbox updates through @adonisjs/transmit on a real Adonis server:
 * subscribers of a person's channel receive a message for every row
 * created or settled and every status change of that person's runs, and so do the people
 * the `alsoNotify` hook names (an admin); a quorum's approvers hear of the
 * rows they decide, and of nothing else of the run; nobody else may
 * subscribe to a person's channel.
 * The runtime's listeners go away at shutdown, and `live: false`
 * broadcasts nothing.
 *
 * The HTTP group comes first in this file: Transmit's controllers reach
 * the instance through its `services/main` module, bound once per process
 * to the first app that loads them.
 */

import { setTimeout as sleep } from 'node:timers/promises'
import { test } from '@japa/runner'
import { defineConfig as defineTransmitConfig } from '@adonisjs/transmit'
import type { ApplicationService } from '@adonisjs/core/types'
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { ask, DB_QUESTION, promptText, say, scriptedModel } from '../helpers/runtime.ts'
import { openTransmitStream } from '../helpers/transmit.ts'
import { FINANCE, governedAgent, governedTools } from '../helpers/governance.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { AgentInboxConfig } from '../../src/types/main.ts'
import { viewDigest } from '../../src/governance/view.ts'

/** Identity comes from a header here: the identify hook is the app's to write */
const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })

/** Asks which database, then says which one it was told */
function helperAgent() {
  const step = (options: LanguageModelV4CallOptions) =>
    options.prompt.some((message) => message.role === 'tool')
      ? [say(promptText(options).includes('MySQL') ? 'Chose MySQL' : 'No answer seen')]
      : [ask('c1', DB_QUESTION)]
  return defineAgent({
    name: 'helper',
    instructions: 'Help.',
    model: scriptedModel(Array.from({ length: 20 }, () => step)),
  })
}

function agentsConfig(live?: AgentInboxConfig['live']) {
  return defineConfig({
    agents: [helperAgent(), governedAgent(governedTools())],
    approvals: { resolveRole: (role) => (role === 'finance' ? FINANCE : []) },
    live,
    inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
  })
}

const withTransmit = {
  providers: [() => import('@adonisjs/transmit/transmit_provider')],
  config: { transmit: defineTransmitConfig({ pingInterval: false, transport: null }) },
}

/** The run events told as `run:status` */
const RUN_STATUS_EVENTS = [
  'agents:run:started',
  'agents:run:resumed',
  'agents:run:waiting',
  'agents:run:completed',
  'agents:run:failed',
  'agents:run:cancelled',
] as const

async function pendingRow(runId: string) {
  return ToolCall.query().where('run_id', runId).where('status', 'pending').firstOrFail()
}

test.group(`Live updates over Transmit | ${dbName()}`, (group) => {
  let app: ApplicationService
  let baseUrl: string
  const streams: { close(): void }[] = []

  group.setup(async () => {
    const httpApp = await createHttpApp({
      ...withTransmit,
      port: 0,
      // The admin is told about everyone's rows, on the admin's own channel
      agents: agentsConfig({ alsoNotify: () => ['admin'] }),
      preload: async (booted) => {
        const transmit = await booted.container.make('transmit')
        transmit.registerRoutes()
      },
    })
    app = httpApp.app
    baseUrl = httpApp.baseUrl
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
    return () => {
      for (const stream of streams.splice(0)) stream.close()
    }
  })

  test('a person may subscribe to their own channel only', async ({ assert }) => {
    const ada = await openTransmitStream(baseUrl, person('user:1'))
    const bob = await openTransmitStream(baseUrl, person('user:2'))
    const guest = await openTransmitStream(baseUrl)
    streams.push(ada, bob, guest)

    assert.equal(await ada.subscribe('agent_inbox/user:1', person('user:1')), 204)
    assert.equal(await bob.subscribe('agent_inbox/user:1', person('user:2')), 400)
    assert.equal(await guest.subscribe('agent_inbox/user:1'), 400)
    assert.equal(await bob.subscribe('agent_inbox/user:2', person('user:2')), 204)

    const transmit = await app.container.make('transmit')
    assert.deepEqual(transmit.getSubscribersFor('agent_inbox/user:1'), [ada.uid])
    assert.deepEqual(transmit.getSubscribersFor('agent_inbox/user:2'), [bob.uid])
  })

  test('the owner and the admin receive row:created and row:settled; the run gets the reply; others nothing', async ({
    assert,
  }) => {
    const ada = await openTransmitStream(baseUrl, person('user:1'))
    const bob = await openTransmitStream(baseUrl, person('user:2'))
    const admin = await openTransmitStream(baseUrl, person('admin'))
    streams.push(ada, bob, admin)
    assert.equal(await ada.subscribe('agent_inbox/user:1', person('user:1')), 204)
    assert.equal(await bob.subscribe('agent_inbox/user:2', person('user:2')), 204)
    assert.equal(await admin.subscribe('agent_inbox/admin', person('admin')), 204)
    // Refused: bob's stream must not hear about ada's rows
    assert.equal(await bob.subscribe('agent_inbox/user:1', person('user:2')), 400)

    const agents = await app.container.make('agents.runtime')
    const run = await agents.start('helper', { input: 'Pick a database', owner: 'user:1' })

    const created = await ada.next(
      (message) => message.payload.type === 'row:created' && message.payload.runId === run.id
    )
    const row = await pendingRow(run.id)
    assert.deepEqual(created, {
      channel: 'agent_inbox/user:1',
      payload: { type: 'row:created', rowId: row.id, runId: run.id },
    })
    /*
     * The row is told as soon as it is written, and the run's move to
     * `waiting` a statement later: a reply sent on the row's message alone
     * raced that move (under load the settle's `running` came first)
     */
    await ada.next((message) => message.payload.status === 'waiting')

    // Settled over the inbox's own HTTP endpoint, as the page does
    const reply = await fetch(`${baseUrl}/inbox/rows/${row.id}/reply`, {
      method: 'POST',
      headers: { ...person('user:1'), 'content-type': 'application/json' },
      body: JSON.stringify({ answers: { db: ['mysql'] }, digest: viewDigest(row) }),
    })
    assert.equal(reply.status, 200, await reply.clone().text())

    const settled = await ada.next((message) => message.payload.type === 'row:settled')
    assert.deepEqual(settled, {
      channel: 'agent_inbox/user:1',
      payload: { type: 'row:settled', rowId: row.id, runId: run.id },
    })

    await agents.idle()
    const finished = await AgentRun.findOrFail(run.id)
    assert.equal(finished.status, 'completed', `run failed: ${finished.error}`)
    assert.equal((finished.result as { text: string }).text, 'Chose MySQL')

    // Bob's run is announced on bob's channel only
    const bobsRun = await agents.start('helper', { input: 'Pick one', owner: 'user:2' })
    const bobs = await bob.next((message) => message.payload.type === 'row:created')
    const bobsRow = await pendingRow(bobsRun.id)
    assert.deepEqual(bobs.payload, { type: 'row:created', rowId: bobsRow.id, runId: bobsRun.id })
    assert.deepEqual(
      [...new Set(bob.messages.map((message) => message.channel))],
      ['agent_inbox/user:2']
    )
    assert.notInclude(
      bob.messages.map((message) => message.payload.runId),
      run.id
    )
    // Each status change of the run is told too, the last one without a reload of anything
    // (the stream delivers it after the run ends: wait for it rather than race it)
    await ada.next((message) => message.payload.status === 'completed')
    assert.deepEqual(
      ada.messages.map(({ payload }) => payload.status ?? payload.type),
      ['queued', 'row:created', 'waiting', 'row:settled', 'running', 'completed']
    )
    // Cancelled once it waits (a cancel sent on the row's message alone raced the run's move)
    await bob.next((message) => message.payload.status === 'waiting')
    await agents.cancel(bobsRun.id)
    await agents.idle()

    // The admin heard of both people's rows and runs, on the admin's channel
    await admin.next((message) => message.payload.status === 'cancelled')
    const told = ({ channel, payload }: { channel: string; payload: any }) =>
      `${channel} ${payload.status ?? payload.type} ${payload.runId}`
    assert.deepEqual(admin.messages.map(told), [
      `agent_inbox/admin queued ${run.id}`,
      `agent_inbox/admin row:created ${run.id}`,
      `agent_inbox/admin waiting ${run.id}`,
      `agent_inbox/admin row:settled ${run.id}`,
      `agent_inbox/admin running ${run.id}`,
      `agent_inbox/admin completed ${run.id}`,
      `agent_inbox/admin queued ${bobsRun.id}`,
      `agent_inbox/admin row:created ${bobsRun.id}`,
      `agent_inbox/admin waiting ${bobsRun.id}`,
      `agent_inbox/admin cancelled ${bobsRun.id}`,
    ])
  })

  test("a quorum's approvers are told of the row they decide, and of nothing else of the run", async ({
    assert,
  }) => {
    const secret = 'PRIVATE-INPUT-live-5e1f'
    const ada = await openTransmitStream(baseUrl, person('ada'))
    const f1 = await openTransmitStream(baseUrl, person('f1'))
    const f4 = await openTransmitStream(baseUrl, person('f4'))
    streams.push(ada, f1, f4)
    for (const [stream, who] of [
      [ada, 'ada'],
      [f1, 'f1'],
      [f4, 'f4'],
    ] as const) {
      assert.equal(await stream.subscribe(`agent_inbox/${who}`, person(who)), 204)
    }

    // A refund under $50 runs at once, then one of $300 waits for 3 of finance (ada excluded)
    const agents = await app.container.make('agents.runtime')
    const run = await agents.start('governed', {
      input: {
        calls: [
          ['refund', { amount: 20 }],
          ['refund', { amount: 300 }],
        ],
        note: secret,
      },
      owner: 'ada',
    })
    const created = await f1.next((message) => message.payload.type === 'row:created')
    await ada.next((message) => message.payload.status === 'waiting')
    const row = await pendingRow(run.id)
    assert.deepEqual(created, {
      channel: 'agent_inbox/f1',
      payload: { type: 'row:created', rowId: row.id, runId: run.id },
    })

    for (const who of ['f1', 'f2', 'f3']) {
      const reply = await fetch(`${baseUrl}/inbox/rows/${row.id}/reply`, {
        method: 'POST',
        headers: { ...person(who), 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true, digest: viewDigest(row) }),
      })
      assert.equal(reply.status, 200, await reply.clone().text())
    }
    for (const stream of [f1, f4])
      await stream.next((message) => message.payload.type === 'row:settled')
    await agents.idle()
    await ada.next((message) => message.payload.status === 'completed')

    // Each approver heard of the row, created and settled, and of nothing else: no status of the run
    for (const [stream, who] of [
      [f1, 'f1'],
      [f4, 'f4'],
    ] as const) {
      assert.deepEqual(
        stream.messages.map(({ channel, payload }) => [channel, payload.type, payload.rowId]),
        [
          [`agent_inbox/${who}`, 'row:created', row.id],
          [`agent_inbox/${who}`, 'row:settled', row.id],
        ]
      )
      assert.notInclude(JSON.stringify(stream.messages), secret)
    }
    // The owner hears of the run as before
    assert.deepEqual(
      ada.messages.map(({ payload }) => payload.status ?? payload.type),
      ['queued', 'row:created', 'waiting', 'row:settled', 'running', 'completed']
    )
    assert.notInclude(JSON.stringify(ada.messages), secret)
  })

  test('a cancelled run tells its owner its rows are gone', async ({ assert }) => {
    const ada = await openTransmitStream(baseUrl, person('user:1'))
    streams.push(ada)
    assert.equal(await ada.subscribe('agent_inbox/user:1', person('user:1')), 204)

    const agents = await app.container.make('agents.runtime')
    const run = await agents.start('helper', { input: 'Pick a database', owner: 'user:1' })
    await ada.next((message) => message.payload.type === 'row:created')
    await agents.idle()

    await agents.cancel(run.id)
    const cancelled = await ada.next((message) => message.payload.status === 'cancelled')
    assert.deepEqual(cancelled, {
      channel: 'agent_inbox/user:1',
      payload: { type: 'run:status', runId: run.id, status: 'cancelled' },
    })
    const row = await ToolCall.query().where('run_id', run.id).firstOrFail()
    assert.equal(row.status, 'cancelled')
  })

  test("a stream is its opener's: a stolen id gets nothing, and nobody else subscribes or unsubscribes it", async ({
    assert,
  }) => {
    const transmit = await app.container.make('transmit')
    const post = (path: string, body: unknown, who: string) =>
      fetch(`${baseUrl}/__transmit/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...person(who) },
        body: JSON.stringify(body),
      })
    const ada = await openTransmitStream(baseUrl, person('user:1'))
    streams.push(ada)
    assert.equal(await ada.subscribe('agent_inbox/user:1'), 204)

    // Bob learned Ada's stream id: he can neither open it, nor subscribe or unsubscribe it
    const opened = await fetch(`${baseUrl}/__transmit/events?uid=${ada.uid}`, {
      headers: { ...person('user:2'), accept: 'text/event-stream' },
    })
    assert.equal(opened.status, 403)
    assert.include(await opened.text(), 'This live stream was opened by someone else')
    const subscribed = await post(
      'subscribe',
      { uid: ada.uid, channel: 'agent_inbox/user:2' },
      'user:2'
    )
    assert.equal(subscribed.status, 403)
    const refusal = (await subscribed.json()) as { errors: { code: string }[] }
    assert.equal(refusal.errors[0].code, 'E_NOT_YOUR_STREAM')
    const dropped = await post(
      'unsubscribe',
      { uid: ada.uid, channel: 'agent_inbox/user:1' },
      'user:2'
    )
    assert.equal(dropped.status, 403)
    assert.deepEqual(transmit.getSubscribersFor('agent_inbox/user:1'), [ada.uid])
    assert.deepEqual(transmit.getSubscribersFor('agent_inbox/user:2'), [])

    // Once Ada's stream is closed, its id may be Bob's stream; Ada's subscriptions did not stay on it
    ada.close()
    let bobs: Awaited<ReturnType<typeof openTransmitStream>> | undefined
    for (let tries = 0; !bobs; tries++) {
      bobs = await openTransmitStream(baseUrl, person('user:2'), ada.uid).catch((error) => {
        if (tries > 100) throw error
        return sleep(50).then(() => undefined)
      })
    }
    streams.push(bobs)
    assert.deepEqual(transmit.getSubscribersFor('agent_inbox/user:1'), [])
    const adaAgain = await post(
      'subscribe',
      { uid: ada.uid, channel: 'agent_inbox/user:1' },
      'user:1'
    )
    assert.equal(adaAgain.status, 403)
    assert.deepEqual(transmit.getSubscribersFor('agent_inbox/user:1'), [])
  })

  test('malformed requests to Transmit are 422 naming the field, never 500', async ({ assert }) => {
    const fields = async (response: Response) => {
      assert.equal(response.status, 422)
      const body = (await response.json()) as { errors: { code: string; field: string }[] }
      assert.equal(body.errors[0].code, 'E_INVALID_STREAM_REQUEST')
      return body.errors.map((error) => error.field)
    }
    const events = (query: string) =>
      fetch(`${baseUrl}/__transmit/events${query}`, { headers: person('user:1') })
    assert.deepEqual(await fields(await events('')), ['uid'])
    assert.deepEqual(await fields(await events('?uid=%00')), ['uid'])
    assert.deepEqual(await fields(await events(`?uid=${'u'.repeat(101)}`)), ['uid'])
    for (const path of ['subscribe', 'unsubscribe']) {
      for (const channel of [
        ['agent_inbox/user:1'],
        { name: 'x' },
        5,
        null,
        'agent_inbox/\u0000',
      ]) {
        const response = await fetch(`${baseUrl}/__transmit/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...person('user:1') },
          body: JSON.stringify({ uid: 'a-stream', channel }),
        })
        assert.deepEqual(await fields(response), ['channel'], `${path} ${JSON.stringify(channel)}`)
      }
      const noUid = await fetch(`${baseUrl}/__transmit/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...person('user:1') },
        body: JSON.stringify({ channel: 'agent_inbox/user:1' }),
      })
      assert.deepEqual(await fields(noUid), ['uid'])
    }
  })
})

test.group(`Live updates | lifecycle | ${dbName()}`, () => {
  test('the runtime listens while the app runs and stops at shutdown', async ({ assert }) => {
    const testApp = await createTestApp({ ...withTransmit, agents: agentsConfig(true) })
    const emitter = await testApp.app.container.make('emitter')
    try {
      assert.equal(emitter.listenerCount('agents:row:created'), 0)
      await testApp.app.container.make('agents.runtime')
      assert.equal(emitter.listenerCount('agents:row:created'), 1)
      assert.equal(emitter.listenerCount('agents:row:settled'), 1)
      for (const event of RUN_STATUS_EVENTS) assert.equal(emitter.listenerCount(event), 1, event)
    } finally {
      await testApp.terminate()
    }
    assert.equal(emitter.listenerCount('agents:row:created'), 0)
    assert.equal(emitter.listenerCount('agents:row:settled'), 0)
    for (const event of RUN_STATUS_EVENTS) assert.equal(emitter.listenerCount(event), 0, event)
  })

  test('live: false broadcasts nothing and leaves the Transmit channels to the app', async ({
    assert,
  }) => {
    const testApp = await createTestApp({ ...withTransmit, agents: agentsConfig(false) })
    try {
      const transmit = await testApp.app.container.make('transmit')
      const broadcasts: string[] = []
      transmit.on('broadcast', ({ channel, payload }) => {
        broadcasts.push(`${channel} ${JSON.stringify(payload)}`)
      })
      const emitter = await testApp.app.container.make('emitter')
      const agents = await testApp.app.container.make('agents.runtime')
      assert.equal(emitter.listenerCount('agents:row:created'), 0)

      const run = await agents.start('helper', { input: 'Pick a database', owner: 'user:1' })
      await agents.idle()
      const row = await pendingRow(run.id)
      assert.equal(row.ownerId, 'user:1')
      await agents.cancel(run.id)

      // Transmit's hooks are asynchronous: a marker sent last arrives after anything sent before
      let marked!: () => void
      const marker = new Promise<void>((resolve) => (marked = resolve))
      transmit.on('broadcast', ({ channel }) => channel === 'marker' && marked())
      transmit.broadcast('marker', null)
      await marker
      assert.deepEqual(broadcasts, ['marker null'])

      // No authorization was registered: the channel is the app's to secure
      const manager = transmit.getManager()
      assert.isTrue(await manager.verifyAccess('agent_inbox/user:1', {} as never))
    } finally {
      await testApp.terminate()
    }
  })
})
