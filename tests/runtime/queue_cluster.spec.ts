/*
 * The deployment docs/guides/scaling_out.md describes, as real processes:
 * two web servers and two `node ace queue:work` workers of one app
 * (tests/fixtures/cluster_app.ts, `executor: 'queue'`), on Redis (the
 * queue, the lock and Transmit's transport) or on the database alone.
 * Runs of the painter (a question, then an approved action) are started
 * through both servers, and every row is settled over HTTP through a
 * server picked at random. Mid-way one worker is killed with SIGKILL while
 * it drives a run (the first to reach its nth model call, or its nth
 * approved action after the effect, hangs there holding the run), and
 * another is started.
 *
 * Then every run has completed, and the ground truth agrees: the side
 * table the action writes holds one execution per run whose action
 * succeeded (none twice; at most one, and only of the killed worker, where
 * it was `interrupted`), each run's journal is whole, and the model was
 * called once per step except where the killed worker's call was lost with
 * it (no run driven by two workers at once). On Redis, a Transmit stream
 * open on server B received `row:settled` for every row settled through
 * server A.
 *
 * On PostgreSQL and MySQL: 200 runs on Redis and 200 on the database
 * backend; on SQLite (one writer at a time) a smaller run on the database
 * backend. `CLUSTER_RUNS` sets the count (the test plan keeps 200 on
 * PostgreSQL and runs 40 elsewhere: tests/plan/plan.ts).
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
  reply,
  startRun,
  startWebServer,
  startWorker,
  type Backend,
} from '../helpers/cluster.ts'
import { openTransmitStream } from '../helpers/transmit.ts'
import { expectedRun, logLines, runFacts } from '../helpers/fault_checks.ts'
import { AgentRun, FINISHED_RUN_STATUSES } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { ANSWER } from '../fixtures/crash_agent.ts'

const FILES = new URL(`../../tmp/cluster-${process.pid}/`, import.meta.url)
/** How long the whole scenario may take before it fails */
const BOUND = 240_000

/** Where the first worker hangs to be killed: in a model call, or in the approved action */
type HangIn = 'model' | 'action'

const scenarios: { backend: Backend; runs: number; hangIn: HangIn }[] =
  dbName() === 'sqlite'
    ? [{ backend: 'database', runs: Number(process.env.CLUSTER_RUNS ?? 40), hangIn: 'action' }]
    : [
        { backend: 'redis', runs: Number(process.env.CLUSTER_RUNS ?? 200), hangIn: 'model' },
        { backend: 'database', runs: Number(process.env.CLUSTER_RUNS ?? 200), hangIn: 'action' },
      ]

test.group(`Queue cluster | ${dbName()}`, (group) => {
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

  for (const { backend, runs, hangIn } of scenarios) {
    test(`2 web servers, 2 workers on ${backend}: ${runs} runs settled at random over HTTP, a worker killed mid-${hangIn === 'model' ? 'model call' : 'action'} and restarted; every run once`, async ({
      assert,
    }) => {
      await AgentRun.query().delete()
      await prepareClusterTables(db, backend)
      const file = (name: string) => fileURLToPath(new URL(`${backend}-${name}`, FILES))
      const env = {
        QUEUE_BACKEND: backend,
        MODEL_LOG: file('model.log'),
        ACTION_LOG: file('action.log'),
        SLOW: '60',
        LEASE_TTL: '3000',
        RECOVER_INTERVAL: '1000',
        CONCURRENCY: '4',
      }
      const pick = mulberry32(10)
      const began = Date.now()
      const inTime = () => {
        if (Date.now() - began > BOUND) throw new Error(`The scenario ran past ${BOUND} ms`)
      }

      const servers = await Promise.all([startWebServer(env), startWebServer(env)])
      cleanups.push(...servers.map((server) => () => server.kill()))
      const [serverA, serverB] = servers
      // The first worker to reach its nth model call or action hangs there, a run in its hands
      const hangLog = file('hang.log')
      const hang = {
        HANG_IN: hangIn,
        HANG_AT: String(Math.ceil(hangIn === 'model' ? runs / 4 : runs / 8)),
        HANG_LOG: hangLog,
      }
      const workers = await Promise.all([
        startWorker({ ...env, ...hang }),
        startWorker({ ...env, ...hang }),
      ])
      cleanups.push(...workers.map((worker) => () => worker.kill()))

      // The page on server B, as its live-updates hook listens
      const pageOnB =
        backend === 'redis'
          ? await openTransmitStream(serverB.baseUrl, { 'x-person': 'user:1' })
          : null
      if (pageOnB) {
        cleanups.push(async () => pageOnB.close())
        assert.equal(await pageOnB.subscribe('agent_inbox/user:1', { 'x-person': 'user:1' }), 204)
      }

      const runIds: string[] = []
      await inParallel(
        Array.from({ length: runs }, (_, index) => index),
        8,
        async (index) => {
          runIds.push(await startRun(servers[index % 2].baseUrl, `cluster-${index}`))
        }
      )

      const settledThroughA: { id: string; runId: string }[] = []
      let killed: number | null = null
      for (;;) {
        inTime()
        const open = await AgentRun.query()
          .whereIn('id', runIds)
          .whereNotIn('status', FINISHED_RUN_STATUSES)
          .count('* as n')
        if (Number(open[0].$extras.n) === 0) break

        // Once a worker hangs mid-run, kill it there and start another
        const hanging = workers.find((worker) => logLines(hangLog).includes(String(worker.pid)))
        if (killed === null && hanging) {
          const driving = await AgentRun.query()
            .where('status', 'running')
            .where('lease_owner', 'like', `%:${hanging.pid}:%`)
          assert.isAbove(driving.length, 0, 'the hanging worker holds no run')
          killed = hanging.pid
          await hanging.kill('SIGKILL')
          const restarted = await startWorker(env)
          cleanups.push(() => restarted.kill())
        }

        const pending = await ToolCall.query().where('status', 'pending').limit(40)
        await inParallel(pending, 8, async (row) => {
          const server = pick() < 0.5 ? serverA : serverB
          const body = row.kind === 'action' ? { approved: true } : ANSWER
          const status = await reply(server.baseUrl, row, body)
          assert.equal(status, 200, `reply to ${row.id} through ${server.baseUrl}`)
          if (server === serverA) settledThroughA.push({ id: row.id, runId: row.runId! })
        })
        if (pending.length === 0) await sleep(50)
      }
      assert.isNotNull(killed, 'no worker reached the call it hangs in')

      // Every run completed, each as a run no kill touched, but where the kill was
      const runsDone = await AgentRun.query().whereIn('id', runIds)
      const effects = await db.from('cluster_effects').select('run_id', 'pid')
      const modelCalls = logLines(env.MODEL_LOG).map((line) => line.split(' '))
      const files = { modelLog: env.MODEL_LOG, actionLog: env.ACTION_LOG, readLog: '/dev/null' }
      let interrupted = 0
      for (const run of runsDone) {
        assert.equal(run.status, 'completed', `${run.id}: ${run.error}`)
        const facts = await runFacts(run.id, files)
        const action = await ToolCall.query()
          .where('run_id', run.id)
          .where('kind', 'action')
          .firstOrFail()
        const executed = effects.filter((effect) => effect.run_id === run.id)
        if (action.execution === 'interrupted') {
          interrupted++
          assert.include(action.claimedBy ?? '', `:${killed}:`, run.id)
          assert.isAtMost(executed.length, 1, run.id)
          assert.deepEqual(facts.rows, ['ask answered -', 'paint approved interrupted'])
          assert.isTrue(facts.journalWhole, run.id)
        } else {
          assert.deepEqual(facts, expectedRun(run.agent), run.id)
          assert.lengthOf(executed, 1, run.id)
        }
        // One model call per step, but a call the killed worker made and never checkpointed
        const input = (run.input as string) ?? ''
        for (const kind of ['ask', 'paint', 'final']) {
          const calls = modelCalls.filter(([at, called]) => at === input && called === kind)
          const lost = calls.filter(([, , pid]) => Number(pid) === killed)
          const what = `${run.id} ${kind}: ${JSON.stringify(calls)}`
          assert.isAtLeast(calls.length, 1, what)
          assert.isAtMost(calls.length - lost.length, 1, what)
          assert.isAtMost(lost.length, 1, what)
        }
      }
      assert.isAtMost(interrupted, Number(env.CONCURRENCY))
      // Killed inside the action it had claimed: that one is interrupted, its effect kept once
      if (hangIn === 'action') assert.isAtLeast(interrupted, 1)

      /*
       * The page on B heard of every row settled on A, through Redis, and of
       * its creation by a worker, unless the killed worker had a hand in the
       * run: a broadcast is not durable, and a process killed between a
       * row's commit and its event takes the event with it (the page still
       * hears of the row when it is settled)
       */
      if (pageOnB) {
        assert.isAbove(settledThroughA.length, 0)
        const touched = new Set(
          runsDone
            .filter((run) =>
              modelCalls.some(([at, , pid]) => at === run.input && Number(pid) === killed)
            )
            .map((run) => run.id)
        )
        for (const row of settledThroughA) {
          const types = touched.has(row.runId) ? ['row:settled'] : ['row:created', 'row:settled']
          for (const type of types) {
            await pageOnB.next(
              (message) => message.payload.type === type && message.payload.rowId === row.id
            )
          }
        }
      }
    }).timeout(BOUND + 60_000)
  }
})
