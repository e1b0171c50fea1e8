/*
 * The database queue backend under dense worker kills: the deployment
 * docs/guides/scaling_out.md describes without Redis (two web servers and
 * two `node ace queue:work` workers of tests/fixtures/cluster_app.ts, the
 * queue and the lock in the database), while a worker is killed with
 * SIGKILL every 0.3–1.5 s (seeded; the one serving the queue that drives
 * the most runs, else one at random) and another is started in its place.
 * Painter runs are started through both servers and every row is settled
 * over HTTP meanwhile, so kills land in model calls, actions, the queue's
 * polls and completions, and recoveries.
 *
 * Once the kills stop, every run completes and the queue drains within a
 * bound: no run left `waiting` with nothing pending or `running` on a
 * lapsed lease, no job left pending or active. Each run is what a run no
 * kill touched leaves, but where a killed worker was inside its action
 * (`interrupted`, its effect kept at most once), and no step's model call
 * was made twice but by a worker killed before it checkpointed.
 *
 * `STORM_KILLS` sets the kills (28 unless the test plan sizes it:
 * tests/plan/plan.ts), `STORM_RUNS` the runs (100; 40 on SQLite),
 * `STORM_SEED` the schedule; `STORM_REPORT=1` prints how long the storm
 * and the settling took.
 */

import { test } from '@japa/runner'
import { mkdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { createTestApp, dbName } from '../helpers/database.ts'
import { mulberry32 } from '../helpers/fuzz.ts'
import {
  inParallel,
  prepareClusterTables,
  replied,
  startClusterProcess,
  startRun,
  startWebServer,
  type ClusterProcess,
} from '../helpers/cluster.ts'
import { expectedRun, logLines, runFacts } from '../helpers/fault_checks.ts'
import { AgentRun, FINISHED_RUN_STATUSES } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { ANSWER } from '../fixtures/crash_agent.ts'

const FILES = new URL(`../../tmp/kill-storm-${process.pid}/`, import.meta.url)
const KILLS = Number(process.env.STORM_KILLS ?? 28)
const RUNS = Number(process.env.STORM_RUNS ?? (dbName() === 'sqlite' ? 40 : 100))
const SEED = Number(process.env.STORM_SEED ?? 26)
/** How long the runs and the queue may take to settle once the kills stop */
const SETTLE_BOUND = 90_000

/** A `queue:work` worker, and whether it serves the queue yet (its start-up recovery done) */
type Worker = { process: ClusterProcess; ready: boolean }

test.group(`Queue kill storm | ${dbName()}`, (group) => {
  let db: Awaited<ReturnType<typeof createTestApp>>['db']
  const cleanups: (() => Promise<unknown>)[] = []

  group.setup(async () => {
    await mkdir(FILES, { recursive: true })
    const testApp = await createTestApp()
    db = testApp.db
    return async () => {
      await testApp.terminate()
      await rm(FILES, { recursive: true, force: true })
    }
  })
  group.each.setup(() => async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  test(`2 workers on the database queue, one killed every 0.3–1.5 s (${KILLS} kills) while ${RUNS} runs are settled: every run completes, the queue drains`, async ({
    assert,
  }) => {
    await AgentRun.query().delete()
    await prepareClusterTables(db, 'database')
    const file = (name: string) => fileURLToPath(new URL(name, FILES))
    const env = {
      QUEUE_BACKEND: 'database',
      MODEL_LOG: file('model.log'),
      ACTION_LOG: file('action.log'),
      SLOW: '60',
      LEASE_TTL: '3000',
      RECOVER_INTERVAL: '2000',
      CONCURRENCY: '4',
    }
    const next = mulberry32(SEED)
    const between = (low: number, high: number) => Math.round(low + next() * (high - low))

    const servers = await Promise.all([startWebServer(env), startWebServer(env)])
    cleanups.push(...servers.map((server) => () => server.kill()))

    const workers: Worker[] = []
    const killedPids: number[] = []
    const startWorker = () => {
      const worker = { process: startClusterProcess(['ace', 'queue:work'], env), ready: false }
      worker.process
        .line((line) => line.includes('Starting worker for queues'))
        .then(() => (worker.ready = true))
        .catch(() => {})
      cleanups.push(() => worker.process.kill())
      workers.push(worker)
    }
    startWorker()
    startWorker()

    const runIds: string[] = []
    await inParallel(
      Array.from({ length: RUNS }, (_, index) => index),
      8,
      async (index) => {
        runIds.push(await startRun(servers[index % 2].baseUrl, `storm-${index}`))
      }
    )

    /** Settles the pending rows over HTTP, each through a server picked at random */
    const settlePending = async () => {
      const pending = await ToolCall.query().where('status', 'pending').limit(40)
      await inParallel(pending, 8, async (row) => {
        const server = next() < 0.5 ? servers[0] : servers[1]
        const body = row.kind === 'action' ? { approved: true } : ANSWER
        const { status, text } = await replied(server.baseUrl, row, body)
        // A failed reply says what the server answered and logged
        const said =
          status === 200 ? '' : `: ${text.slice(0, 2_000)}\n${server.output().slice(-6_000)}`
        assert.equal(status, 200, `reply to ${row.id} through ${server.baseUrl}${said}`)
      })
      return pending.length
    }

    /** The worker serving the queue that drives the most runs, else one at random */
    const victim = async (ready: Worker[]) => {
      const driving = await AgentRun.query().where('status', 'running').select('lease_owner')
      const load = (worker: Worker) =>
        driving.filter((run) => (run.leaseOwner ?? '').includes(`:${worker.process.pid}:`)).length
      const busiest = ready.reduce((most, worker) => (load(worker) > load(most) ? worker : most))
      return load(busiest) > 0 ? busiest : ready[Math.floor(next() * ready.length)]
    }

    const stormBegan = Date.now()
    let nextKillAt = Date.now() + between(300, 1500)
    while (killedPids.length < KILLS) {
      const settled = await settlePending()
      const ready = workers.filter((worker) => worker.ready)
      if (Date.now() >= nextKillAt && ready.length > 0) {
        const killed = await victim(ready)
        workers.splice(workers.indexOf(killed), 1)
        await killed.process.kill('SIGKILL')
        killedPids.push(killed.process.pid)
        startWorker()
        nextKillAt = Date.now() + between(300, 1500)
      }
      if (settled === 0) await sleep(50)
    }

    // Every run completes and the queue drains, within the bound
    const stormEnded = Date.now()
    for (;;) {
      await settlePending()
      const [runs, jobs] = await Promise.all([
        AgentRun.query().whereIn('id', runIds).whereNotIn('status', FINISHED_RUN_STATUSES),
        db.from('queue_jobs').whereIn('status', ['pending', 'active', 'delayed']),
      ])
      if (runs.length === 0 && jobs.length === 0) break
      if (Date.now() - stormEnded > SETTLE_BOUND) {
        const left = [
          ...runs.map(
            (run) =>
              `run ${run.id} ${run.status} ${run.leaseOwner ?? '-'} ${run.leaseExpiresAt?.toISO() ?? '-'}`
          ),
          ...jobs.map(
            (job) =>
              `job ${job.id} ${job.status} ${job.worker_id ?? '-'} ${job.acquired_at ?? '-'} ${job.dedup_id ?? '-'}`
          ),
        ]
        assert.fail(
          `${SETTLE_BOUND} ms after ${KILLS} kills: ${runs.length} runs open, ${jobs.length} jobs left\n${left.join('\n')}`
        )
      }
      await sleep(200)
    }
    if (process.env.STORM_REPORT) {
      console.log(
        `storm of ${KILLS} kills: ${stormEnded - stormBegan} ms; settled in ${Date.now() - stormEnded} ms`
      )
    }

    // Each run as a run no kill touched, but where a killed worker was in its action
    const runsDone = await AgentRun.query().whereIn('id', runIds)
    const effects = await db.from('cluster_effects').select('run_id', 'pid')
    const modelCalls = logLines(env.MODEL_LOG).map((line) => line.split(' '))
    const files = { modelLog: env.MODEL_LOG, actionLog: env.ACTION_LOG, readLog: '/dev/null' }
    for (const run of runsDone) {
      assert.equal(run.status, 'completed', `${run.id}: ${run.error}`)
      const facts = await runFacts(run.id, files)
      const action = await ToolCall.query()
        .where('run_id', run.id)
        .where('kind', 'action')
        .firstOrFail()
      const executed = effects.filter((effect) => effect.run_id === run.id)
      if (action.execution === 'interrupted') {
        const by = action.claimedBy ?? ''
        assert.isTrue(
          killedPids.some((pid) => by.includes(`:${pid}:`)),
          `${run.id} claimed by ${by}`
        )
        assert.isAtMost(executed.length, 1, run.id)
        assert.deepEqual(facts.rows, ['ask answered -', 'paint approved interrupted'])
        assert.isTrue(facts.journalWhole, run.id)
      } else {
        assert.deepEqual(facts, expectedRun(run.agent), run.id)
        assert.lengthOf(executed, 1, run.id)
      }
      // One model call per step, but calls of killed workers that never checkpointed
      const input = (run.input as string) ?? ''
      for (const kind of ['ask', 'paint', 'final']) {
        const calls = modelCalls.filter(([at, called]) => at === input && called === kind)
        const lost = calls.filter(([, , pid]) => killedPids.includes(Number(pid)))
        const what = `${run.id} ${kind}: ${JSON.stringify(calls)}`
        assert.isAtLeast(calls.length, 1, what)
        assert.isAtMost(calls.length - lost.length, 1, what)
      }
    }
  }).timeout(KILLS * 12_000 + RUNS * 500 + SETTLE_BOUND + 60_000)
})
