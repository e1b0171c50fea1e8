/*
 * Exactly-once effects with real processes (docs/design.md §5.4, §5.5).
 * Worker processes (tests/fixtures/agent_worker.ts) drive approved refunds
 * of the refunder agent (tests/fixtures/refund_agent.ts), whose action is
 * transactional, and SIGKILL themselves inside it: at each of the
 * handler's points, inside the transaction once its result is written, or
 * a random number of milliseconds after it started (a query in flight, or
 * between two). Then a worker that is not killed finishes every run, and
 * the app's own tables are the ground truth: each approved refund is there
 * exactly once, never zero, never twice, and no row ends `interrupted`.
 *
 * The second test kills workers between the commit and the call to a fake
 * payments API (a real HTTP server on loopback that dedupes by
 * `Idempotency-Key`): every effect reaches it at least once, again with the
 * same key after a kill, and it applies each refund once.
 *
 * The kills come from a seed (`FUZZ_SEED` replays a failure);
 * `EXACTLY_ONCE_KILLS` changes how many (50 by default; the test plan runs
 * the full storm on one database and 12 kills, two at each point, on the
 * others: tests/plan/plan.ts).
 */

import { mkdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { lines, runWorker } from '../helpers/crash_workers.ts'
import { Fuzz, fuzzSeed, fuzzSize } from '../helpers/fuzz.ts'
import { startPaymentsApi } from '../helpers/payments_api.ts'
import { createAgents, rowsOf } from '../helpers/runtime.ts'
import { createShop, REFUND_AGENT_NAME, refundAgent } from '../fixtures/refund_agent.ts'
import type { RunExecutor } from '../../src/runtime/executor.ts'
import type { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { AgentEffect } from '../../src/persistence/models/agent_effect.ts'
import { effectKey } from '../../src/runtime/effects/keys.ts'

const FILES = new URL(`../../tmp/exactly-once-${process.pid}/`, import.meta.url)

/** Where a worker dies inside the transactional handler (`timer` gets a random delay) */
const HANDLER_POINTS = [
  'handler:start',
  'handler:after-insert',
  'handler:after-update',
  'handler:end',
  'before-action-commit',
  'timer',
] as const

/** Where a worker dies between the commit and the API's answer being written down */
const EFFECT_POINTS = ['after-action-commit', 'effect:before-call', 'effect:after-call'] as const

/** Schedules nothing: runs stay where the test leaves them */
const noExecutor = (): RunExecutor => ({ resume() {}, idle: async () => {} })

type Shop = { orderId: number; refunds: number; status: string; keys: string[] }

/**
 * What the app's tables say of an order: its refund rows and status.
 */
async function shopOf(db: Database, orderId: number): Promise<Shop> {
  const order = await db.from('shop_orders').where('id', orderId).firstOrFail()
  const refunds = await db.from('shop_refunds').where('order_id', orderId)
  return {
    orderId,
    refunds: refunds.length,
    status: order.status,
    keys: refunds.map((refund) => refund.idempotency_key),
  }
}

test.group(`Exactly-once effects | ${dbName()}`, (group) => {
  let db: Database
  let api: Awaited<ReturnType<typeof startPaymentsApi>>
  const startLog = fileURLToPath(new URL('starts.log', FILES))

  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    await createShop(db, 40)
    await rm(FILES, { recursive: true, force: true })
    await mkdir(FILES, { recursive: true })
    // The API refuses the first call for order 40, so that delivery is tried again later
    api = await startPaymentsApi({ failFirst: (body) => body.orderId === 40 })
    return async () => {
      await api.close()
      await testApp.terminate()
      await rm(FILES, { recursive: true, force: true })
    }
  })

  // The worker's other agents log to files of their own
  const env = () => ({
    START_LOG: startLog,
    PAYMENTS_URL: api.url,
    EFFECT_BACKOFF: '300',
    MODEL_LOG: fileURLToPath(new URL('model.log', FILES)),
    ACTION_LOG: fileURLToPath(new URL('action.log', FILES)),
  })

  /** Starts a refund run per order, approved and left for a worker to drive */
  async function approvedRefunds(orderIds: number[]): Promise<AgentRun[]> {
    const agents = createAgents({
      agents: [refundAgent({ startLog, paymentsUrl: api.url })],
      executor: noExecutor,
    })
    const runs: AgentRun[] = []
    for (const orderId of orderIds) {
      const run = await agents.start(REFUND_AGENT_NAME, { input: `order ${orderId}`, owner: 'u1' })
      if ((await agents.driver.drive(run.id)) !== 'waiting') throw new Error('not waiting')
      const [row] = await rowsOf(run.id)
      await agents.inbox.settle(row.id, { approved: true }, { by: 'u1', via: 'api' })
      runs.push(run)
    }
    return runs
  }

  const refundCount = async () => {
    const [counted] = await db.from('shop_refunds').where('order_id', '<=', 20).count('* as total')
    return Number(counted.total)
  }

  /** One worker that is not killed finishes every run and delivers what is left */
  async function finishAll(runs: AgentRun[]) {
    const exit = await runWorker(
      'recover',
      runs.map((run) => run.id),
      env()
    )
    const statuses: string[] = exit.output?.statuses ?? []
    if (statuses.length !== runs.length || statuses.some((status) => status !== 'completed')) {
      throw new Error(`Runs left unfinished: ${JSON.stringify(exit.output)}`)
    }
  }

  /** The handler's starts for a run, as `<key> <pid>` */
  const startsOf = (runId: string) =>
    lines(startLog)
      .filter((line) => line.startsWith(`${runId} `))
      .map((line) => line.slice(runId.length + 1))

  // Its timeout bounds a wedge, not the speed: each kill boots a worker process
  const kills = fuzzSize('EXACTLY_ONCE_KILLS', 50)
  test(`killed ${kills} times at random points inside a transactional handler: every approved refund is in the app exactly once`, async ({
    assert,
  }) => {
    const fuzz = new Fuzz(fuzzSeed())
    const orderIds = Array.from({ length: 10 }, (_, at) => at + 1)
    const runs = await approvedRefunds(orderIds)
    // Every point as often as the others, in a random order; a timer kill after 0 to 10 ms
    const plan = fuzz
      .sample(
        Array.from({ length: kills }, (_, at) => HANDLER_POINTS[at % HANDLER_POINTS.length]),
        kills
      )
      .map((point) => (point === 'timer' ? `timer:${fuzz.int(0, 10)}` : point))
    const label = (at: number) => `FUZZ_SEED=${fuzz.seed} kill #${at} at ${plan[at]}`

    // Two workers at a time, on two runs; each run is killed again once ten others were
    const killsOf = new Map<string, number>()
    for (let at = 0; at < kills; at += 2) {
      const pair = plan.slice(at, at + 2).map((point, offset) => {
        const run = runs[(at + offset) % runs.length]
        killsOf.set(run.id, (killsOf.get(run.id) ?? 0) + 1)
        return runWorker('drive', [run.id], { ...env(), CRASH_AT: point })
      })
      const exits = await Promise.all(pair)
      exits.forEach((exit, offset) => assert.equal(exit.signal, 'SIGKILL', label(at + offset)))
    }

    // Nothing a killed handler wrote stayed, and nothing is marked interrupted
    assert.equal(await refundCount(), 0)
    for (const run of runs) {
      const [row] = await rowsOf(run.id)
      assert.isNull(row.execution, `${run.id}: no claim survives its rollback`)
      assert.equal(row.executionAttempts, killsOf.get(run.id), 'each start was counted')
      assert.lengthOf(startsOf(run.id), killsOf.get(run.id)!)
    }

    await finishAll(runs)

    for (const [at, run] of runs.entries()) {
      const orderId = orderIds[at]
      const [row] = await rowsOf(run.id)
      await run.refresh()
      const starts = startsOf(run.id)
      assert.equal(row.execution, 'succeeded', `order ${orderId}: never interrupted`)
      assert.isTrue(row.transactional)
      assert.equal(row.executionAttempts, starts.length, `order ${orderId}: every start counted`)
      assert.equal(
        starts.length,
        killsOf.get(run.id)! + 1,
        `order ${orderId}: run again after each kill`
      )
      // The same key on every start, and on the refund the app committed
      assert.deepEqual(
        new Set(starts.map((start) => start.split(' ')[0])),
        new Set([row.idempotencyKey])
      )
      assert.deepEqual(await shopOf(db, orderId), {
        orderId,
        refunds: 1,
        status: 'refunded',
        keys: [row.idempotencyKey!],
      })
      assert.include((run.result as { text: string }).text, `\nrefunded ${orderId * 100}`)
      // Its effect went out once, after the one commit
      const [effect] = await AgentEffect.query().where('row_id', row.id)
      assert.equal(effect.status, 'done')
      assert.equal(api.seen(effect.idempotencyKey), 1)
      assert.deepEqual(api.applied.get(effect.idempotencyKey), { orderId, amount: orderId * 100 })
    }
    assert.equal(await refundCount(), runs.length)
  }).timeout(60_000 + kills * 8_000)

  test('killed between the commit and the call: every key reaches the API at least once, and each refund is applied once', async ({
    assert,
  }) => {
    // Two runs per point; order 40's first call is refused by the API, and recovery tries it again
    const points = [...EFFECT_POINTS, ...EFFECT_POINTS]
    const orderIds = points.map((_, at) => 21 + at)
    const runs = await approvedRefunds([...orderIds, 40])

    const exits = await Promise.all(
      points.map((point, at) => runWorker('drive', [runs[at].id], { ...env(), CRASH_AT: point }))
    )
    for (const [at, point] of points.entries()) {
      assert.equal(exits[at].signal, 'SIGKILL', point)
      // Committed: the refund is in, its effect waits in the outbox
      const shop = await shopOf(db, orderIds[at])
      assert.equal(shop.refunds, 1, point)
      const [row] = await rowsOf(runs[at].id)
      const [effect] = await AgentEffect.query().where('row_id', row.id)
      assert.equal(effect.status, 'pending', point)
      assert.equal(effect.idempotencyKey, effectKey(row.idempotencyKey!, 0))
      assert.equal(api.seen(effect.idempotencyKey), point === 'effect:after-call' ? 1 : 0, point)
    }

    // One worker finishes them all, the refused call included, and delivers what is left
    await finishAll(runs)

    for (const [at, run] of runs.entries()) {
      const point: string = points[at] ?? 'refused once'
      const orderId = orderIds[at] ?? 40
      const [row] = await rowsOf(run.id)
      const [effect] = await AgentEffect.query().where('row_id', row.id)
      assert.equal(row.execution, 'succeeded', point)
      assert.equal(row.executionAttempts, 1, `${point}: the handler ran once`)
      const shop = await shopOf(db, orderId)
      assert.equal(shop.refunds, 1, point)
      assert.equal(effect.status, 'done', point)
      assert.isNull(effect.lastError, point)
      // At least once with the key, applied once
      const seen = api.seen(effect.idempotencyKey)
      // A kill after the API answered, or a refusal, made it call again; the others called once
      const twice = point === 'effect:after-call' || point === 'refused once'
      assert.equal(seen, twice ? 2 : 1, `${point}: requests with the key`)
      assert.equal(effect.attempts, 2, `${point}: delivered again after the kill or the refusal`)
      assert.deepEqual(api.applied.get(effect.idempotencyKey), { orderId, amount: orderId * 100 })
    }
    const keys = new Set(api.requests.map((request) => request.key))
    const applied = [...api.applied.values()].filter((body) => body.orderId > 20)
    assert.lengthOf(applied, runs.length, 'one refund applied per run')
    for (const run of runs) {
      const [row] = await rowsOf(run.id)
      assert.isTrue(keys.has(effectKey(row.idempotencyKey!, 0)))
    }
  }).timeout(120_000)
})
