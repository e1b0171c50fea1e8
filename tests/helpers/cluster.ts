/*
 * Processes of the scale-out tests: web servers and `node ace queue:work`
 * workers of tests/fixtures/cluster_app.ts on the suite's database, the
 * tables they share (the side table of what the action did, the queue's
 * own tables for its database backend), the test's Redis db, and the
 * replies a person sends over HTTP.
 */

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { QueueSchemaService } from '@adonisjs/queue'
import type { Database } from '@adonisjs/lucid/database'
import { dbName, sqliteFile } from './database.ts'
import { freePort, TS_HOOKS } from '../../fixtures/app/bin/launch.ts'
import { flushRunDb } from './redis_db.ts'
import { viewDigest, type ViewedRow } from '../../src/governance/view.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURE = fileURLToPath(new URL('../fixtures/cluster_app.ts', import.meta.url))

export type Backend = 'redis' | 'database'

/** The run's Redis database (tests/helpers/redis_db.ts, read when used; 3 when none was claimed) */
export const REDIS = {
  host: '127.0.0.1',
  port: 6379,
  get db() {
    return Number(process.env.REDIS_DB ?? 3)
  },
}

export type ClusterProcess = {
  child: ChildProcessWithoutNullStreams
  pid: number
  /** Resolves with the first output line `match` accepts; rejects if the process ends first */
  line(match: (line: string) => boolean): Promise<string>
  output(): string
  kill(signal?: NodeJS.Signals): Promise<void>
}

/**
 * Starts the fixture app (or another fixture of tests/fixtures) with
 * `args`, on the suite's database.
 */
export function startClusterProcess(
  args: string[],
  env: Record<string, string>,
  fixture: string = FIXTURE
): ClusterProcess {
  const child = spawn(process.execPath, [TS_HOOKS, fixture, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      DB: dbName(),
      DB_FILE: sqliteFile(),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams
  let output = ''
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const waiter of waiters) waiter()
  }
  child.stdout.on('data', (chunk) => {
    output += chunk
    wake()
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
    wake()
  })
  let ended = false
  const exited = new Promise<void>((resolve) =>
    child.on('close', () => {
      ended = true
      wake()
      resolve()
    })
  )

  return {
    child,
    pid: child.pid!,
    output: () => output,
    line(match) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = output.split('\n').find(match)
          if (found !== undefined) {
            waiters.delete(check)
            resolve(found)
          } else if (ended) {
            waiters.delete(check)
            reject(new Error(`${args.join(' ')} ended (${child.exitCode}):\n${output}`))
          }
        }
        waiters.add(check)
        check()
      })
    },
    async kill(signal = 'SIGKILL') {
      if (!ended) child.kill(signal)
      await exited
    },
  }
}

/**
 * A web server of the fixture; resolves with its base URL once it listens.
 */
export async function startWebServer(env: Record<string, string>) {
  const port = await freePort()
  const server = startClusterProcess(['web', String(port)], env)
  await server.line((line) => line.startsWith('{"ready"'))
  return { ...server, baseUrl: `http://127.0.0.1:${port}` }
}

/**
 * A `node ace queue:work` worker; resolves once it serves the queue (its
 * start-up recovery done).
 */
export async function startWorker(env: Record<string, string>) {
  const worker = startClusterProcess(['ace', 'queue:work'], env)
  await worker.line((line) => line.includes('Starting worker for queues'))
  return worker
}

/**
 * The Redis db of the tests, emptied: jobs, dedup keys and locks of earlier
 * runs gone. Only this db index is flushed, and the run keeps its claim on it.
 */
export async function flushQueueRedis() {
  const redis = new Redis(REDIS)
  try {
    await flushRunDb(redis)
  } finally {
    redis.disconnect()
  }
}

/**
 * Fresh shared tables: `cluster_effects` (one row per execution of the
 * painter's action, written by the action), and for the database backend
 * the queue's jobs and schedules (as its migration creates them) and the
 * lock store's table.
 */
export async function prepareClusterTables(db: Database, backend: Backend) {
  const schema = db.connection().schema
  await schema.dropTableIfExists('cluster_effects')
  await schema.createTable('cluster_effects', (table) => {
    table.increments('id')
    table.string('run_id', 36).notNullable().index()
    table.string('color', 20).notNullable()
    table.integer('pid').notNullable()
  })
  const queueSchema = new QueueSchemaService(db.connection().getWriteClient())
  await queueSchema.dropSchedulesTable()
  await queueSchema.dropJobsTable()
  await schema.dropTableIfExists('verrou')
  if (backend === 'database') {
    await createQueueJobsTable(db)
    await queueSchema.createSchedulesTable()
    // As @adonisjs/lock's migration for its database store creates it
    await schema.createTable('verrou', (table) => {
      table.string('key', 255).notNullable().primary()
      table.string('owner').notNullable()
      table.bigint('expiration').unsigned().nullable()
    })
  } else {
    await flushQueueRedis()
  }
}

/**
 * The database queue's jobs table as docs/guides/scaling_out.md has an app
 * create it: `@adonisjs/queue`'s own, plus the index the stalled-job check
 * needs on MySQL and MariaDB.
 */
export async function createQueueJobsTable(db: Database, tableName = 'queue_jobs') {
  await new QueueSchemaService(db.connection().getWriteClient()).createJobsTable(
    tableName,
    (table) => table.index(['queue', 'status', 'acquired_at'])
  )
}

/**
 * Sends a reply over HTTP as `person`; resolves with the status.
 */
export async function reply(baseUrl: string, row: ViewedRow, body: object, person = 'user:1') {
  const { status } = await replied(baseUrl, row, body, person)
  return status
}

/**
 * Sends a reply over HTTP as `person`; resolves with the status and the
 * response's body (what a failed reply said).
 */
export async function replied(baseUrl: string, row: ViewedRow, body: object, person = 'user:1') {
  const response = await fetch(`${baseUrl}/inbox/rows/${row.id}/reply`, {
    method: 'POST',
    headers: {
      'x-person': person,
      'content-type': 'application/json',
      'accept': 'application/json',
    },
    body: JSON.stringify({ ...body, digest: viewDigest(row) }),
  })
  return { status: response.status, text: await response.text() }
}

/**
 * Starts a painter run through a web server; resolves with its id.
 */
export async function startRun(
  baseUrl: string,
  input: string,
  person = 'user:1',
  agent = 'painter'
) {
  const response = await fetch(`${baseUrl}/runs`, {
    method: 'POST',
    headers: {
      'x-person': person,
      'content-type': 'application/json',
      'accept': 'application/json',
    },
    body: JSON.stringify({ input, agent }),
  })
  const body = (await response.json()) as { id: string }
  if (response.status !== 200)
    throw new Error(`POST /runs: ${response.status} ${JSON.stringify(body)}`)
  return body.id
}

/**
 * Runs `work` on each item, `width` at a time (requests to the servers, as
 * that many clients would send them).
 */
export async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  const queue = [...items]
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item)
    })
  )
}
