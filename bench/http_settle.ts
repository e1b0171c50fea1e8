/*
 * What settling a row over HTTP costs: replies (`{ skip: true }`) to K
 * pending rows, ten in flight at a time, through the inbox's own route on
 * a real Adonis server, against two routes of the same server hit the same
 * way: a trivial JSON route (no database), and the least a settle route
 * without an audit log can do, written by hand: read the row by id, then
 * one conditional UPDATE of the same columns, autocommitted. The inbox's
 * route also checks the digest sent and writes the settlement's audit
 * entry (docs/design.md §11).
 */

import { performance } from 'node:perf_hooks'
import { createHttpApp } from '../tests/helpers/http.ts'
import { DB_QUESTION } from '../tests/helpers/runtime.ts'
import { scriptedModel, say, call } from '../src/testing/scripted_model.ts'
import { defineConfig } from '../src/define_config.ts'
import { defineAgent } from '../src/runtime/define_agent.ts'
import { AgentRun } from '../src/persistence/models/agent_run.ts'
import { ToolCall } from '../src/persistence/models/tool_call.ts'
import { viewDigest } from '../src/governance/view.ts'
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

export type SettleFigures = {
  settle: Spread
  trivial: Spread
  byHand: Spread
  /** settle / trivial */
  ratio: Spread
  /** settle / byHand */
  handRatio: Spread
}

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
          model: scriptedModel([() => [call('c1', 'ask', DB_QUESTION)], () => [say('done')]], {
            by: 'turn',
          }),
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
      router.post('/bench/by-hand/:id', async ({ params, request }) => {
        const db = await app.container.make('lucid.db')
        const row = await db.from('agent_tool_calls').where('id', params.id).first()
        const now = new Date()
        const written = await db
          .from('agent_tool_calls')
          .where('id', row.id)
          .where('status', 'pending')
          .update({
            status: 'answered',
            reply: JSON.stringify(request.body()),
            outcome: JSON.stringify({ kind: 'answers', skipped: true }),
            answered_by: 'bench',
            answered_via: 'api',
            settled_at: now,
            updated_at: now,
          })
        return { row: { id: row.id, written } }
      })
    },
  })
  const agents = await httpApp.app.container.make('agents.runtime')
  const headers = { 'content-type': 'application/json', 'accept': 'application/json' }
  const settleSamples: number[] = []
  const trivialSamples: number[] = []
  const handSamples: number[] = []
  const ratios: number[] = []
  const handRatios: number[] = []
  try {
    for (let round = 0; round < options.repetitions; round++) {
      // Runs waiting on a question each, opened as the driver opens them: half for each route
      for (let index = 0; index < options.rows * 2; index++) {
        const run = await AgentRun.create({ agent: 'asker', ownerId: 'bench', status: 'waiting' })
        await agents.inbox.open(run, {
          kind: 'ask',
          set: DB_QUESTION,
          toolName: 'ask',
          toolCallId: 'c1',
        })
      }
      const pending = await ToolCall.query().where('status', 'pending')
      if (pending.length !== options.rows * 2) throw new Error(`${pending.length} rows pending`)
      const rows = pending.slice(0, options.rows)
      const handRows = pending.slice(options.rows)

      const trivial = await hammer(
        rows.map(
          () => () =>
            fetch(`${httpApp.baseUrl}/bench/trivial`, { method: 'POST', headers, body: '{}' })
        ),
        options.concurrency
      )
      const byHand = await hammer(
        handRows.map(
          (row) => () =>
            fetch(`${httpApp.baseUrl}/bench/by-hand/${row.id}`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ skip: true }),
            })
        ),
        options.concurrency
      )
      const settle = await hammer(
        rows.map(
          (row) => () =>
            fetch(`${httpApp.baseUrl}/inbox/rows/${row.id}/reply`, {
              method: 'POST',
              headers,
              // What the page sends: the reply, bound to the row as it was shown
              body: JSON.stringify({ skip: true, digest: viewDigest(row) }),
            })
        ),
        options.concurrency
      )
      await agents.idle()
      trivialSamples.push(trivial)
      handSamples.push(byHand)
      settleSamples.push(settle)
      ratios.push(settle / trivial)
      handRatios.push(settle / byHand)
    }
  } finally {
    await httpApp.terminate()
  }
  return {
    settle: spread(settleSamples),
    trivial: spread(trivialSamples),
    byHand: spread(handSamples),
    ratio: spread(ratios),
    handRatio: spread(handRatios),
  }
}
