/*
 * The queue executor's figures, with the processes of the scale-out tests
 * (tests/fixtures/cluster_app.ts: a web server and `node ace queue:work`
 * workers on Redis or on the database):
 *
 * - runs driven per second by 1 and by 2 workers: the surveyor (two reads
 *   and an action, three model calls of `SLOW` ms at most each, as a
 *   model's latency), `runs` of them started through the web server;
 * - settle → resume: from the response to a reply sent over HTTP (the row
 *   settled; the resume is enqueued on the next tick) until the worker's
 *   driver calls the model again, next to the queue's own round trip: an
 *   empty job that the same web server enqueues the same way, from its
 *   response until a worker runs it. Both go through the same queue and
 *   polling workers, so the ratio is what the package adds to the hop (the
 *   hand-off, the lease, reading the run back), interleaved sample by
 *   sample. The settle's own HTTP cost is the HTTP settle figure.
 *
 * Workers run one job at a time (`--concurrency=1`): @boringnode/queue
 * 0.6.0's worker loop stalls for 5 s when a job outlives `idleDelay` while
 * it has free slots (docs/guides/scaling_out.md), which would measure that bug.
 */

import { mkdir, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '@adonisjs/lucid/database'
import {
  prepareClusterTables,
  reply,
  startRun,
  startWebServer,
  startWorker,
  type Backend,
} from '../tests/helpers/cluster.ts'
import { AgentRun, FINISHED_RUN_STATUSES } from '../src/persistence/models/agent_run.ts'
import { ToolCall } from '../src/persistence/models/tool_call.ts'
import { ANSWER } from '../tests/fixtures/crash_agent.ts'
import { spread } from './stats.ts'

const FILES = new URL(`../tmp/bench-queue-${process.pid}/`, import.meta.url)

function lines(file: string) {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

async function until<T>(check: () => Promise<T | undefined>, bound = 120_000) {
  const began = Date.now()
  while (Date.now() - began < bound) {
    const value = await check()
    if (value !== undefined) return value
    await sleep(10)
  }
  throw new Error(`bench: still waiting after ${bound} ms`)
}

async function allFinished(runIds: string[]) {
  await until(async () => {
    const open = await AgentRun.query()
      .whereIn('id', runIds)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .count('* as n')
    return Number(open[0].$extras.n) === 0 ? true : undefined
  })
}

/**
 * Runs per second: `runs` surveyor runs started at once through the web
 * server, driven by `workers` workers, from the first start to the last
 * completion.
 */
async function throughput(db: Database, backend: Backend, workers: number, runs: number) {
  await prepareClusterTables(db, backend)
  const env = { QUEUE_BACKEND: backend, SLOW: '20', CONCURRENCY: '1', RECOVER_ON_START: '0' }
  const web = await startWebServer(env)
  const started = await Promise.all(Array.from({ length: workers }, () => startWorker(env)))
  try {
    const began = performance.now()
    const runIds = await Promise.all(
      Array.from({ length: runs }, (_, index) =>
        startRun(web.baseUrl, `bench-${index}`, 'user:1', 'surveyor')
      )
    )
    await allFinished(runIds)
    return runs / ((performance.now() - began) / 1000)
  } finally {
    for (const process of [web, ...started]) await process.kill()
  }
}

/**
 * Settle → resume next to the empty job's round trip, `samples` each,
 * interleaved, in ms.
 */
async function latency(db: Database, backend: Backend, samples: number) {
  await prepareClusterTables(db, backend)
  await mkdir(FILES, { recursive: true })
  const callLog = fileURLToPath(new URL(`${backend}-calls.log`, FILES))
  const pingLog = fileURLToPath(new URL(`${backend}-ping.log`, FILES))
  const env = {
    QUEUE_BACKEND: backend,
    CONCURRENCY: '1',
    RECOVER_ON_START: '0',
    CALL_LOG: callLog,
    PING_LOG: pingLog,
  }
  const web = await startWebServer(env)
  const worker = await startWorker(env)
  try {
    const runIds = await Promise.all(
      Array.from({ length: samples }, (_, index) => startRun(web.baseUrl, `latency-${index}`))
    )
    const asks = await until(async () => {
      const rows = await ToolCall.query().whereIn('run_id', runIds).where('status', 'pending')
      return rows.length === samples ? rows : undefined
    })
    await until(async () => {
      const waiting = await AgentRun.query().whereIn('id', runIds).where('status', 'waiting')
      return waiting.length === samples ? true : undefined
    })
    const resume: number[] = []
    const roundTrip: number[] = []
    for (const row of asks) {
      // A random pause first, so neither lands at a fixed point of the workers' polling
      await sleep(25 + Math.random() * 40)
      // The queue's own: enqueued by the web server after its response, run by a worker
      const ping = Date.now()
      const answered = await fetch(`${web.baseUrl}/ping`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sent: ping }),
      }).then(async (response) => (await response.text(), Date.now()))
      const ran = await until(async () => {
        const line = lines(pingLog).find((entry) => entry.startsWith(`ping ${ping} `))
        return line ? Number(line.split(' ')[2]) : undefined
      })
      roundTrip.push(ran - answered)

      // The package's: from the settle's response until the resumed run calls the model
      const input = `latency-${runIds.indexOf(row.runId!)}`
      await sleep(25 + Math.random() * 40)
      await reply(web.baseUrl, row, ANSWER)
      const settled = Date.now()
      const called = await until(async () => {
        const line = lines(callLog).find((entry) => entry.startsWith(`${input} paint `))
        return line ? Number(line.split(' ')[2]) : undefined
      })
      resume.push(called - settled)
    }
    return { resume: spread(resume), roundTrip: spread(roundTrip) }
  } finally {
    await web.kill()
    await worker.kill()
    await rm(FILES, { recursive: true, force: true })
  }
}

/**
 * Both figures on one backend.
 */
export async function measureQueueWorkers(
  db: Database,
  options: { backend: Backend; runs: number; samples: number }
) {
  const one = await throughput(db, options.backend, 1, options.runs)
  const two = await throughput(db, options.backend, 2, options.runs)
  const { resume, roundTrip } = await latency(db, options.backend, options.samples)
  return { one, two, resume, roundTrip, ratio: resume.median / roundTrip.median }
}
