/*
 * What settling a row over HTTP costs: replies (`{ skip: true }`) to K
 * pending rows, ten in flight at a time, through the inbox's own route on
 * a real Adonis server, against three routes of the same server hit the
 * same way, in an order that turns each round:
 *
 * - a trivial JSON route (no database);
 * - the least any settle can do through Lucid: one conditional UPDATE of
 *   the row, no read, no check, no audit entry. Its ratio to the trivial
 *   route is the ceiling of the settle's (docs/design.md §7.2);
 * - a settle route by hand: read the row by id, then that UPDATE.
 *
 * The inbox's route also checks who asks, the reply and the digest sent,
 * and writes the settlement's audit entry (docs/design.md §11). Every row
 * is opened by a real run of an agent that asked, driven until it waits.
 */

import { performance } from 'node:perf_hooks'
import type { Database } from '@adonisjs/lucid/database'
import { createHttpApp } from '../tests/helpers/http.ts'
import { analyzeTables } from '../tests/helpers/statements.ts'
import { DB_QUESTION } from '../tests/helpers/runtime.ts'
import { scriptedModel, say, call } from '../src/testing/scripted_model.ts'
import { defineConfig } from '../src/define_config.ts'
import { defineAgent } from '../src/runtime/define_agent.ts'
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
  updateOnly: Spread
  /** settle / trivial */
  ratio: Spread
  /** settle / byHand */
  handRatio: Spread
  /** updateOnly / trivial: the ceiling of `ratio` */
  ceiling: Spread
  /** settle / updateOnly: the settle as a fraction of its ceiling */
  ofCeiling: Spread
  /** byHand / updateOnly: the most a settle that reads its row before it writes reaches */
  handOfCeiling: Spread
}

type Route = 'trivial' | 'updateOnly' | 'byHand' | 'settle'
const ROUTES: Route[] = ['trivial', 'updateOnly', 'byHand', 'settle']

/**
 * The conditional UPDATE both by-hand routes write: what the inbox's
 * settle of `{ skip: true }` sets. Returns the rows it changed.
 */
function settleByHand(db: Database, rowId: string, reply: unknown) {
  const now = new Date()
  return db
    .from('agent_tool_calls')
    .where('id', rowId)
    .where('status', 'pending')
    .update({
      status: 'answered',
      reply: JSON.stringify(reply),
      outcome: JSON.stringify({ kind: 'answers', skipped: true }),
      answered_by: 'bench',
      answered_via: 'api',
      settled_at: now,
      updated_at: now,
    })
}

/**
 * `executor`: `handoff` gives the settles' resumes to an executor that
 * only records them (what the web process pays when a queue drives the
 * runs: the settle's own cost); `inline` drives them in this process, as
 * the default config does, so their work competes with the requests.
 * Either way the runs' starts are driven here, before the timing.
 */
export async function measureHttpSettle(options: {
  rows: number
  repetitions: number
  concurrency: number
  executor: 'handoff' | 'inline'
}): Promise<SettleFigures> {
  const handedOff: string[] = []
  const starts = new Set<Promise<unknown>>()
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
            executor: (driver) => ({
              resume: (runId, cause) => {
                if (cause !== 'start') return void handedOff.push(runId)
                const drive = driver.drive(runId).finally(() => starts.delete(drive))
                starts.add(drive)
              },
              idle: async () => {
                while (starts.size > 0) await Promise.all(starts)
              },
            }),
          }
        : {}),
    }),
    preload: async (app) => {
      const router = await app.container.make('router')
      router.post('/bench/trivial', () => ({ ok: true }))
      router.post('/bench/update-only/:id', async ({ params, request }) => {
        const db = await app.container.make('lucid.db')
        const written = await settleByHand(db, params.id, request.body())
        return { row: { id: params.id, written } }
      })
      router.post('/bench/by-hand/:id', async ({ params, request }) => {
        const db = await app.container.make('lucid.db')
        const row = await db.from('agent_tool_calls').where('id', params.id).first()
        const written = await settleByHand(db, row.id, request.body())
        return { row: { id: row.id, written } }
      })
    },
  })
  /*
   * Between the timed routes the bench drives hundreds of runs, for longer
   * than Node's 5 s keep-alive: fetch's pooled connections would be closed
   * by the server as a request goes out on one (ECONNRESET).
   */
  httpApp.httpServer.keepAliveTimeout = 120_000
  const agents = await httpApp.app.container.make('agents.runtime')
  const headers = { 'content-type': 'application/json', 'accept': 'application/json' }
  const post = (path: string, body: unknown) => () =>
    fetch(`${httpApp.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
  const samples = Object.fromEntries(ROUTES.map((route) => [route, [] as number[]])) as Record<
    Route,
    number[]
  >
  const ratios = {
    ratio: [] as number[],
    handRatio: [] as number[],
    ceiling: [] as number[],
    ofCeiling: [] as number[],
    handOfCeiling: [] as number[],
  }
  try {
    // Round -1 warms the routes up (V8 compiles them) and is not counted
    for (let round = -1; round < options.repetitions; round++) {
      // Runs that asked and wait on their question, as many as the three database routes settle
      for (let index = 0; index < options.rows * 3; index++) {
        await agents.start('asker', { owner: 'bench', input: `run ${index}` })
      }
      await agents.idle()
      // As autovacuum would: without statistics, PostgreSQL reached the routes' rows through an index of pending rows and read them all (tests/persistence/pg_guard_plans.spec.ts)
      await analyzeTables(httpApp.db, ['agent_runs', 'agent_tool_calls', 'agent_inbox_events'])
      const pending = await ToolCall.query().where('status', 'pending')
      if (pending.length !== options.rows * 3) throw new Error(`${pending.length} rows pending`)
      const rowsOf = {
        updateOnly: pending.slice(0, options.rows),
        byHand: pending.slice(options.rows, options.rows * 2),
        settle: pending.slice(options.rows * 2),
      }
      const requests: Record<Route, (() => Promise<Response>)[]> = {
        trivial: rowsOf.settle.map(() => post('/bench/trivial', {})),
        updateOnly: rowsOf.updateOnly.map((row) =>
          post(`/bench/update-only/${row.id}`, { skip: true })
        ),
        byHand: rowsOf.byHand.map((row) => post(`/bench/by-hand/${row.id}`, { skip: true })),
        // What the page sends: the reply, bound to the row as it was shown
        settle: rowsOf.settle.map((row) =>
          post(`/inbox/rows/${row.id}/reply`, { skip: true, digest: viewDigest(row) })
        ),
      }
      const measured = {} as Record<Route, number>
      for (let turn = 0; turn < ROUTES.length; turn++) {
        const route = ROUTES[(round + 1 + turn) % ROUTES.length]
        measured[route] = await hammer(requests[route], options.concurrency)
        // The inline executor's resumes finish before the next route is timed
        await agents.idle()
      }
      if (round < 0) continue
      for (const route of ROUTES) samples[route].push(measured[route])
      ratios.ratio.push(measured.settle / measured.trivial)
      ratios.handRatio.push(measured.settle / measured.byHand)
      ratios.ceiling.push(measured.updateOnly / measured.trivial)
      ratios.ofCeiling.push(measured.settle / measured.updateOnly)
      ratios.handOfCeiling.push(measured.byHand / measured.updateOnly)
    }
  } finally {
    await httpApp.terminate()
  }
  return {
    settle: spread(samples.settle),
    trivial: spread(samples.trivial),
    byHand: spread(samples.byHand),
    updateOnly: spread(samples.updateOnly),
    ratio: spread(ratios.ratio),
    handRatio: spread(ratios.handRatio),
    ceiling: spread(ratios.ceiling),
    ofCeiling: spread(ratios.ofCeiling),
    handOfCeiling: spread(ratios.handOfCeiling),
  }
}
