/*
 * What settling a row over HTTP costs: replies (`{ skip: true }`) to K
 * pending rows, ten in flight at a time, through the inbox's own route on
 * a real Adonis server, against a trivial JSON route of the same server
 * hit the same way.
 */

import { performance } from 'node:perf_hooks'
import { createHttpApp } from '../tests/helpers/http.ts'
import { DB_QUESTION } from '../tests/helpers/runtime.ts'
import { scriptedModel, say, call } from '../fixtures/app/app/agents/scripted_model.ts'
import { defineConfig } from '../src/define_config.ts'
import { defineAgent } from '../src/runtime/define_agent.ts'
import { AgentRun } from '../src/persistence/models/agent_run.ts'
import { ToolCall } from '../src/persistence/models/tool_call.ts'
import { spread, type Spread } from './stats.ts'

/**
 * Sends `requests` requests, `concurrency` at a time; returns requests a
 * second. Any response but 200 stops the bench: a figure of failures
 * would mean nothing.
 */
async function hammer(requests: (() => Promise<Response>)[], concurrency: number) {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const response = await requests[next++]()
        if (response.status !== 200) {
          throw new Error(`HTTP ${response.status}: ${await response.text()}`)
        }
        await response.arrayBuffer()
      }
    })
  )
  return requests.length / ((performance.now() - started) / 1000)
}

export type SettleFigures = { settle: Spread; trivial: Spread; ratio: Spread }

/**
 * `executor`: `handoff` gives resumes to an executor that only records
 * them (what the web process pays when a queue drives the runs: the
 * settle's own cost); `inline` drives them in this process, as the
 * default config does, so their work competes with the requests.
 */
export async function measureHttpSettle(options: {
  rows: number
  repetitions: number
  concurrency: number
  executor: 'handoff' | 'inline'
}): Promise<SettleFigures> {
  const handedOff: string[] = []
  const httpApp = await createHttpApp({
    port: 0,
    agents: defineConfig({
      agents: [
        defineAgent({
          name: 'asker',
          model: scriptedModel([() => [call('c1', 'ask', DB_QUESTION)], () => [say('done')]]),
          instructions: 'Ask once, then finish.',
        }),
      ],
      inbox: { identify: () => 'bench' },
      ...(options.executor === 'handoff'
        ? {
            executor: () => ({
              resume: (runId: string) => void handedOff.push(runId),
              idle: async () => {},
            }),
          }
        : {}),
    }),
    preload: async (app) => {
      const router = await app.container.make('router')
      router.post('/bench/trivial', () => ({ ok: true }))
    },
  })
  const agents = await httpApp.app.container.make('agents.runtime')
  const headers = { 'content-type': 'application/json', 'accept': 'application/json' }
  const settleSamples: number[] = []
  const trivialSamples: number[] = []
  const ratios: number[] = []
  try {
    for (let round = 0; round < options.repetitions; round++) {
      // Runs waiting on a question each, opened as the driver opens them
      for (let index = 0; index < options.rows; index++) {
        const run = await AgentRun.create({ agent: 'asker', ownerId: 'bench', status: 'waiting' })
        await agents.inbox.open(run, {
          kind: 'ask',
          set: DB_QUESTION,
          toolName: 'ask',
          toolCallId: 'c1',
        })
      }
      const rows = await ToolCall.query().where('status', 'pending').select('id')
      if (rows.length !== options.rows) throw new Error(`${rows.length} rows pending`)

      const trivial = await hammer(
        rows.map(
          () => () =>
            fetch(`${httpApp.baseUrl}/bench/trivial`, { method: 'POST', headers, body: '{}' })
        ),
        options.concurrency
      )
      const settle = await hammer(
        rows.map(
          (row) => () =>
            fetch(`${httpApp.baseUrl}/inbox/rows/${row.id}/reply`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ skip: true }),
            })
        ),
        options.concurrency
      )
      await agents.idle()
      trivialSamples.push(trivial)
      settleSamples.push(settle)
      ratios.push(settle / trivial)
    }
  } finally {
    await httpApp.terminate()
  }
  return { settle: spread(settleSamples), trivial: spread(trivialSamples), ratio: spread(ratios) }
}
