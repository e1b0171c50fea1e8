/*
 * The database queue backend as the queue executor uses it, in this
 * process: `@boringnode/queue`'s knex adapter on the suite's database, the
 * jobs table as docs/guides/scaling_out.md has an app create it.
 *
 * - A recovery's job stands for its run for one lease ttl (a minute at
 *   least, so that processes started together count as together),
 *   whatever became of it: kept after it completed (an app that keeps its
 *   job history), taken by a worker that died, or waiting where nobody
 *   polls. Within the ttl, recoveries enqueue nothing more; after it, a
 *   run still stranded gets a new job.
 * - While a worker checks for stalled jobs, another worker's poll still
 *   finds the pending ones. On MySQL and MariaDB the check's locking read
 *   has no index to use without the guide's `(queue, status, acquired_at)`
 *   and then locks every row of the table (REPEATABLE READ): the polls of
 *   every worker come back empty for as long as the check's transaction
 *   lasts, as the control without the index shows.
 */

import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import { QueueManager } from '@adonisjs/queue'
import { knex } from '@boringnode/queue/drivers/knex_adapter'
import { QueueSchemaService } from '@adonisjs/queue'
import { createTestApp, dbName, sqliteFile } from '../helpers/database.ts'
import { createQueueJobsTable } from '../helpers/cluster.ts'
import { MIN_RECOVER_DEDUP_TTL, QueueExecutor } from '../../src/scale/queue_executor.ts'
import type { RunDriver } from '../../src/runtime/run_driver.ts'

type Database = Awaited<ReturnType<typeof createTestApp>>['db']

/** A connection of its own to the SQLite file, as another process has (better-sqlite3 ships no types) */
async function otherSqliteConnection() {
  const driver: string = 'better-sqlite3'
  const { default: Sqlite } = (await import(driver)) as {
    default: new (file: string) => { exec(sql: string): void; close(): void }
  }
  return new Sqlite(sqliteFile())
}

/** The fixture's lease: a recovery's job still stands for its run a minute */
const LEASE_TTL = 3000
const TTL = MIN_RECOVER_DEDUP_TTL

/** The jobs stored for `runId`, oldest first */
async function jobsOf(db: Database, runId: string) {
  const rows = await db.from('queue_jobs').select('id', 'status', 'data')
  return rows.filter((row) => JSON.parse(row.data).payload.runId === runId)
}

/** Runs `work` with this process's clock `ms` ahead, as the queue's dedup reads it */
async function ahead<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const now = Date.now
  Date.now = () => now() + ms
  try {
    return await work()
  } finally {
    Date.now = now
  }
}

test.group(`Queue on the database | ${dbName()}`, (group) => {
  let db: Database

  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    const schema = new QueueSchemaService(db.connection().getWriteClient())
    await schema.dropJobsTable()
    await createQueueJobsTable(db)
    await QueueManager.init({
      default: 'database',
      adapters: { database: knex(db.connection().getWriteClient()) },
      autoLoadJobs: false,
    })
    return () => QueueManager.destroy()
  })

  for (const state of ['pending', 'active', 'completed'] as const) {
    test(`a recovery's job left ${state} holds off other recoveries for a lease ttl (a minute at least), not longer`, async ({
      assert,
    }) => {
      // Nothing drives here: the jobs are only stored
      const driver = { drive: async () => 'waiting' } as unknown as RunDriver
      const executor = new QueueExecutor(driver, { leaseTtl: LEASE_TTL })
      const runId = randomUUID()

      await executor.resume(runId, 'recover')
      const [first] = await jobsOf(db, runId)
      // Kept after it ran, taken by a worker that died, or still waiting
      await db
        .from('queue_jobs')
        .where('id', first.id)
        .update({ status: state, acquired_at: state === 'active' ? Date.now() : null })

      await executor.resume(runId, 'recover')
      assert.lengthOf(await jobsOf(db, runId), 1, 'a recovery within the ttl enqueued again')

      await ahead(TTL + 1, () => executor.resume(runId, 'recover'))
      const jobs = await jobsOf(db, runId)
      assert.lengthOf(jobs, 2, `a recovery a minute later was skipped against the ${state} job`)
      assert.equal(jobs.find((job) => job.id !== first.id)?.status, 'pending')
    })
  }

  test(
    "a recovery's dispatch that SQLite refuses at once (another process wrote between its read and its insert) is tried again"
  )
    .skip(
      dbName() !== 'sqlite',
      'the refusal is SQLite’s: elsewhere the read’s lock makes the other writer wait'
    )
    .run(async ({ assert }) => {
      const driver = { drive: async () => 'waiting' } as unknown as RunDriver
      const executor = new QueueExecutor(driver, { leaseTtl: LEASE_TTL, backoff: 10 })
      const runId = randomUUID()
      // Another process (its own connection to the file) commits a write right after the dedup read
      const other = await otherSqliteConnection()
      other.exec('create table if not exists bystander (id integer primary key)')
      const client = db.connection().getWriteClient()
      let reads = 0
      const interleave = (_response: unknown, query: { sql: string }) => {
        if (!/^select .* from .queue_jobs. .*dedup_id/i.test(query.sql)) return
        reads++
        if (reads === 1) other.exec('insert into bystander default values')
      }
      client.on('query-response', interleave)
      try {
        await executor.resume(runId, 'recover')
      } finally {
        client.off('query-response', interleave)
        other.close()
      }
      assert.equal(reads, 2, 'the dispatch was not refused, or not tried again')
      assert.lengthOf(await jobsOf(db, runId), 1)
    })

  test('a worker polls the pending jobs while another checks for stalled ones')
    .skip(dbName() === 'sqlite', 'SQLite locks the database, not rows: one writer at a time')
    .run(async ({ assert }) => {
      const client = db.connection().getWriteClient()
      const polled = await pollDuringStalledCheck(db, 'queue_jobs')
      assert.isNotNull(polled, 'the poll found no job while the stalled-job check ran')

      // The control on MySQL and MariaDB: the table as @adonisjs/queue alone creates it
      if (dbName() === 'mysql') {
        await client.schema.dropTableIfExists('queue_jobs_bare')
        await new QueueSchemaService(client).createJobsTable('queue_jobs_bare')
        try {
          assert.isNull(
            await pollDuringStalledCheck(db, 'queue_jobs_bare'),
            'without the index the check no longer locks the whole table: docs/guides/scaling_out.md can drop it'
          )
        } finally {
          await client.schema.dropTableIfExists('queue_jobs_bare')
        }
      }
    })
})

/**
 * Fills `table` with 60 pending jobs and 60 left `active` by workers that
 * died (as after a storm of kills); then, while the first statement of `@boringnode/queue`'s
 * stalled-job check (`recoverStalledJobs`) holds its locks in an open
 * transaction, runs the first statement of a worker's poll (`popFrom`)
 * in another. Resolves with the job the poll found, or null. (The poll's
 * next statement, marking the job active, may wait for the check to
 * commit; that wait ends with the check.)
 */
async function pollDuringStalledCheck(db: Database, table: string) {
  const client = db.connection().getWriteClient()
  const now = Date.now()
  await client(table).insert(
    Array.from({ length: 120 }, (_, index) => {
      const id = randomUUID()
      const active = index < 60
      return {
        id,
        queue: 'default',
        status: active ? 'active' : 'pending',
        data: JSON.stringify({ id, name: 'job', payload: {}, attempts: 0 }),
        score: now + index,
        worker_id: active ? 'gone' : null,
        acquired_at: active ? now - 60_000 : null,
      }
    })
  )
  // The statistics the server keeps of a table that holds jobs
  if (dbName() === 'mysql') await client.raw('analyze table ??', [table])

  const check = await client.transaction()
  const poll = await client.transaction()
  try {
    await check(table)
      .where('queue', 'default')
      .where('status', 'active')
      .where('acquired_at', '<', now - 4000)
      .select('id', 'data')
      .forUpdate()
      .skipLocked()
    const found = await poll(table)
      .where('queue', 'default')
      .where('status', 'pending')
      .orderBy('score', 'asc')
      .forUpdate()
      .skipLocked()
      .first()
    return found ?? null
  } finally {
    await poll.rollback()
    await check.rollback()
  }
}
