/*
 * The queue executor with real processes: a web server of the cluster
 * fixture (tests/fixtures/cluster_app.ts, `executor: 'queue'`) enqueues,
 * `node ace queue:work` workers drive, on Redis and on the database
 * backend. A run started and settled over HTTP is driven by a worker, the
 * job carrying nothing but the run id; a job delivered twice (to two
 * workers) runs the action once; jobs lost with the queue (Redis flushed, the jobs table
 * emptied) are found by the workers' start-up recovery, once per run.
 */

import { test } from '@japa/runner'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  prepareClusterTables,
  reply,
  startClusterProcess,
  startRun,
  startWebServer,
  startWorker,
  REDIS,
  type Backend,
} from '../helpers/cluster.ts'
import { AgentRun, FINISHED_RUN_STATUSES } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { ANSWER } from '../fixtures/crash_agent.ts'
import { DRIVE_RUN_JOB } from '../../src/scale/drive_run_job.ts'
import { LOCKS } from '../../src/scale/exclusive.ts'
import { seedExpiring } from '../helpers/expiry.ts'
import { flushRunDb } from '../helpers/redis_db.ts'
import { defineConfig } from '../../src/define_config.ts'
import { Verrou } from '@verrou/core'
import { redisStore } from '@verrou/core/drivers/redis'
import { Job, QueueManager } from '@adonisjs/queue'
import { redis as redisAdapter } from '@boringnode/queue/drivers/redis_adapter'
import { knex } from '@boringnode/queue/drivers/knex_adapter'

type Database = Awaited<ReturnType<typeof createTestApp>>['db']

/**
 * Polls until `check` returns a value, for at most `bound` ms (then fails
 * with `what`): processes report through the database.
 */
async function until<T>(what: string, check: () => Promise<T | undefined>, bound = 30_000) {
  const began = Date.now()
  while (Date.now() - began < bound) {
    const value = await check()
    if (value !== undefined) return value
    await sleep(50)
  }
  throw new Error(`Still waiting after ${bound} ms for ${what}`)
}

function pendingRow(runId: string) {
  return until(`a pending row of run ${runId}`, async () => {
    const row = await ToolCall.query().where('run_id', runId).where('status', 'pending').first()
    return row ?? undefined
  })
}

function finished(runIds: string[]) {
  return until(`${runIds.length} runs to finish`, async () => {
    const open = await AgentRun.query()
      .whereIn('id', runIds)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .count('* as n')
    return Number(open[0].$extras.n) === 0 ? true : undefined
  })
}

/** The jobs waiting in the queue, by the backend's own storage */
async function storedJobs(backend: Backend, db: Database) {
  if (backend === 'database') {
    const rows = await db.from('queue_jobs').select('data')
    return rows.map((row) => JSON.parse(row.data))
  }
  const redis = new Redis(REDIS)
  try {
    const keys = await redis.keys('*')
    const jobs: any[] = []
    for (const key of keys) {
      if ((await redis.type(key)) !== 'hash') continue
      for (const value of Object.values(await redis.hgetall(key))) {
        if (value.includes(DRIVE_RUN_JOB)) jobs.push(JSON.parse(value))
      }
    }
    return jobs
  } finally {
    redis.disconnect()
  }
}

/**
 * Puts a second "drive this run" job on the queue, as a queue that
 * delivers a job twice would: through the queue's own API, by the job's name.
 */
async function enqueueCopy(backend: Backend, db: Database, runId: string) {
  const connection = backend === 'redis' ? new Redis(REDIS) : null
  await QueueManager.init({
    default: 'copy',
    adapters: {
      copy: connection ? redisAdapter(connection) : knex(db.connection().getWriteClient()),
    },
    autoLoadJobs: false,
  })
  class Copy extends Job<{ runId: string }> {
    static options = { name: DRIVE_RUN_JOB }
    async execute() {}
  }
  await Copy.dispatch({ runId }).run()
  await QueueManager.destroy()
  connection?.disconnect()
}

/** Empties the queue as a crash of its backend would */
async function loseJobs(backend: Backend, db: Database) {
  if (backend === 'database') await db.from('queue_jobs').delete()
  else {
    const redis = new Redis(REDIS)
    await flushRunDb(redis)
    redis.disconnect()
  }
}

for (const backend of ['redis', 'database'] as const) {
  test.group(`Queue executor | ${backend} | ${dbName()}`, (group) => {
    let db: Database
    const env = { QUEUE_BACKEND: backend }
    /**
     * A web server that never recovers: the jobs the tests count are the
     * ones they caused (its periodic recovery would enqueue runs left
     * waiting for a worker)
     */
    const quietWeb = { ...env, RECOVER_ON_START: '0', RECOVER_INTERVAL: '0' }
    const processes: { kill(): Promise<void> }[] = []

    group.setup(async () => {
      const testApp = await createTestApp()
      db = testApp.db
      return () => testApp.terminate()
    })
    group.each.setup(async () => {
      // No run of an earlier test is left to recover
      await db.from('agent_run_journal').delete()
      await db.from('agent_tool_calls').delete()
      await db.from('agent_runs').delete()
      await prepareClusterTables(db, backend)
      return async () => {
        for (const child of processes.splice(0)) await child.kill()
      }
    })

    test('a run started and settled over HTTP is driven by a worker; its jobs carry only the run id', async ({
      assert,
    }) => {
      const web = await startWebServer(quietWeb)
      processes.push(web)
      const runId = await startRun(web.baseUrl, 'first')

      // No worker yet: the job waits in the queue, holding nothing but the id
      const jobs = await storedJobs(backend, db)
      assert.deepEqual(
        jobs.map((job) => [job.name, job.payload]),
        [[DRIVE_RUN_JOB, { runId }]]
      )
      const queued = await AgentRun.findOrFail(runId)
      assert.equal(queued.status, 'queued')

      // Delivered twice: a second job for the run, and two workers to take one each
      await enqueueCopy(backend, db, runId)
      assert.lengthOf(await storedJobs(backend, db), 2)
      const workers = await Promise.all([startWorker(env), startWorker(env)])
      processes.push(...workers)
      const asked = await pendingRow(runId)
      assert.equal(await reply(web.baseUrl, asked, ANSWER), 200)
      const approval = await until('the approval row', async () => {
        const row = await ToolCall.query().where('run_id', runId).where('kind', 'action').first()
        return row?.status === 'pending' ? row : undefined
      })
      assert.equal(await reply(web.baseUrl, approval, { approved: true }), 200)
      await finished([runId])

      const run = await AgentRun.findOrFail(runId)
      assert.equal(run.status, 'completed', run.error ?? '')
      assert.include((run.result as { text: string }).text, 'painted blue')
      const effects = await db.from('cluster_effects').where('run_id', runId)
      assert.deepEqual(
        effects.map((effect) => effect.color),
        ['blue']
      )
      assert.include(
        workers.map((worker) => worker.pid),
        effects[0].pid
      )
      // Both copies were taken and done with (a job ends a moment after its run)
      await until('both jobs done with', async () => {
        const left = await storedJobs(backend, db)
        return left.length === 0 ? true : undefined
      })
    }).timeout(60_000)

    test('runs whose jobs were lost with the queue are found by the workers at start-up, once each', async ({
      assert,
    }) => {
      const web = await startWebServer(quietWeb)
      processes.push(web)
      const worker = await startWorker(env)
      processes.push(worker)
      const runIds = await Promise.all(
        Array.from({ length: 6 }, (_, index) => startRun(web.baseUrl, `lost-${index}`))
      )
      const asked = await Promise.all(runIds.map((runId) => pendingRow(runId)))
      await until('every run waiting', async () => {
        const waiting = await AgentRun.query().whereIn('id', runIds).where('status', 'waiting')
        return waiting.length === runIds.length ? true : undefined
      })

      // (a run is waiting a moment before its job is done with)
      await until('the worker done with its jobs', async () => {
        const jobs = await storedJobs(backend, db)
        return jobs.length === 0 ? true : undefined
      })

      // The workers go down; the people answer meanwhile; the queue loses every job
      await worker.kill()
      for (const row of asked) assert.equal(await reply(web.baseUrl, row, ANSWER), 200)
      // Each settle enqueues its run's job once its response went out
      const enqueued = await until('a job per settled run', async () => {
        const jobs = await storedJobs(backend, db)
        return jobs.length >= runIds.length ? jobs : undefined
      })
      assert.sameMembers(
        enqueued.map((job) => job.payload.runId),
        runIds
      )
      await loseJobs(backend, db)
      assert.lengthOf(await storedJobs(backend, db), 0)

      // Two workers start together: each recovers, the runs are enqueued once
      const workers = await Promise.all([startWorker(env), startWorker(env)])
      processes.push(...workers)
      const approvals = await Promise.all(
        runIds.map((runId) =>
          until(`the approval of ${runId}`, async () => {
            const row = await ToolCall.query()
              .where('run_id', runId)
              .where('kind', 'action')
              .where('status', 'pending')
              .first()
            return row ?? undefined
          })
        )
      )
      for (const row of approvals)
        assert.equal(await reply(web.baseUrl, row, { approved: true }), 200)
      await finished(runIds)

      const runs = await AgentRun.query().whereIn('id', runIds)
      assert.deepEqual(
        runs.map((run) => run.status),
        runIds.map(() => 'completed')
      )
      const effects = await db.from('cluster_effects').whereIn('run_id', runIds)
      assert.sameMembers(
        effects.map((effect) => effect.run_id),
        runIds
      )
    }).timeout(90_000)

    test('processes starting together recover a stranded run once: one job per run', async ({
      assert,
    }) => {
      const web = await startWebServer(quietWeb)
      processes.push(web)
      const runIds = await Promise.all(
        Array.from({ length: 5 }, (_, index) => startRun(web.baseUrl, `stranded-${index}`))
      )
      await web.kill()
      await loseJobs(backend, db)

      // Two web servers (they enqueue and never drive) start and recover at once
      const servers = await Promise.all([
        startWebServer({ ...env, RECOVER_INTERVAL: '0' }),
        startWebServer({ ...env, RECOVER_INTERVAL: '0' }),
      ])
      processes.push(...servers)
      const jobs = await storedJobs(backend, db)
      // On a failure, what the recovering servers logged says why a run got no job
      assert.sameMembers(
        jobs.map((job) => job.payload.runId),
        runIds,
        servers.map((server) => server.output()).join('\n---\n')
      )
    }).timeout(60_000)
  })
}

test.group(`Queue executor | one sweeper | ${dbName()}`, (group) => {
  let db: Database
  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    return () => testApp.terminate()
  })

  test('agents:sweep from cron on every host: while one sweep holds the lock the others return at once', async ({
    assert,
  }) => {
    await prepareClusterTables(db, 'redis')
    const rows = await seedExpiring(30, { agent: 'painter' })
    const sweep = () => startClusterProcess(['ace', 'agents:sweep'], { QUEUE_BACKEND: 'redis' })
    const done = async (process: ReturnType<typeof sweep>) => {
      await process.line(() => false).catch(() => {})
      return process.output()
    }

    // Another host's sweep holds the lock: these settle nothing and say so
    const locks = new Verrou({
      default: 'redis',
      stores: { redis: { driver: redisStore({ connection: new Redis(REDIS) }) } },
    })
    const held = locks.createLock(LOCKS.sweep, 60_000)
    assert.isTrue(await held.acquireImmediately())
    const blocked = await Promise.all([done(sweep()), done(sweep())])
    for (const output of blocked) assert.include(output, 'Another process is sweeping')
    const stillPending = await ToolCall.query()
      .whereIn(
        'id',
        rows.map((row) => row.id)
      )
      .where('status', 'pending')
    assert.lengthOf(stillPending, rows.length)
    await held.release()

    // Once it is free, three at once: the rows are settled once, by whoever swept
    const outputs = await Promise.all([done(sweep()), done(sweep()), done(sweep())])
    const counts = outputs.map((output) => {
      const swept = /Swept (\d+) expired rows?/.exec(output)
      if (swept) return Number(swept[1])
      assert.include(output, 'Another process is sweeping')
      return 0
    })
    assert.equal(
      counts.reduce((sum, count) => sum + count, 0),
      rows.length,
      outputs.join('\n---\n')
    )
    const settled = await ToolCall.query().whereIn(
      'id',
      rows.map((row) => row.id)
    )
    assert.deepEqual(
      [...new Set(settled.map((row) => `${row.status} ${row.answeredVia}`))],
      ['expired expiry']
    )
  }).timeout(60_000)
})

test.group('Queue executor | config', () => {
  test("executor: 'queue' resolves to the queue executor; an executor the package does not know is refused at boot", async ({
    assert,
  }) => {
    assert.throws(
      () => defineConfig({ executor: 'cron' as never }),
      `Invalid "executor" in config/agents.ts: expected 'inline', 'queue' or a factory, got "cron"`
    )
    const app = {} as never
    const queued = await defineConfig({ executor: 'queue' }).resolver(app)
    assert.equal(queued.executorKind, 'queue')
    assert.isFunction(queued.executor)
    const inline = await defineConfig({}).resolver(app)
    assert.equal(inline.executorKind, 'inline')
    assert.isUndefined(inline.executor)
  })
})
