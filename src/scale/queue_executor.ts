/*
 * The queue executor: a resumed run becomes a job on `@adonisjs/queue`
 * carrying its id, and whichever worker (`node ace queue:work`) takes the
 * job drives the run. The lease still decides who drives (docs/design.md
 * §9): a job delivered twice, or while another worker drives the run, gets
 * `'busy'` and ends; the holder picks up what was settled meanwhile. A job
 * lost with the queue (a flushed Redis, a dispatch that failed) leaves a
 * stranded run that the periodic recovery finds and enqueues again.
 */

import debug from '../debug.ts'
import type { RunDriver } from '../runtime/run_driver.ts'
import {
  driveWithRetries,
  type DriveRetryOptions,
  type ResumeCause,
  type RunExecutor,
} from '../runtime/executor.ts'
import { DEFAULT_LEASE_TTL } from '../runtime/lease.ts'
import { retryTransient } from '../runtime/transient.ts'
import { registerDriveRunJob, type DispatchDriveRun } from './drive_run_job.ts'

/**
 * The shortest time a recovery's job stands for its run: processes started
 * together (each running its start-up recovery) count as together however
 * short the lease
 */
export const MIN_RECOVER_DEDUP_TTL = 60_000

export type QueueExecutorOptions = DriveRetryOptions & {
  /** The queue the jobs go to; default `'default'`, the one `queue:work` serves */
  queue?: string
  /** An adapter of config/queue.ts other than its default */
  adapter?: string
  /**
   * The runtime's lease ttl (ms). A recovery's job stands for its run that
   * long, and at least a minute: recoveries within it enqueue nothing more;
   * one after it enqueues again, whatever became of that job.
   */
  leaseTtl?: number
}

/**
 * @example
 * // config/agents.ts
 * export default defineConfig({ executor: 'queue', queue: { name: 'agents' } })
 * // and workers: node ace queue:work --queue=agents
 */
export class QueueExecutor implements RunExecutor {
  readonly drivesElsewhere = true
  #dispatch: DispatchDriveRun
  #dispatches = new Set<Promise<unknown>>()
  #options: QueueExecutorOptions

  constructor(driver: RunDriver, options: QueueExecutorOptions = {}) {
    this.#options = options
    this.#dispatch = registerDriveRunJob(
      (runId) => driveWithRetries(driver, runId, options),
      options
    )
  }

  /**
   * Enqueues the run. Resolves once the job is stored. A dispatch that
   * fails on a passing database error is tried again as a drive is
   * (SQLite refuses the database backend's dedup transaction at once when
   * another process wrote between its read and its insert, and MySQL may
   * pick it as a deadlock's victim). One that still fails (the queue's
   * backend is down) is logged, never thrown: the run
   * stays stranded in the database, where recovery finds it. A recovery's
   * resume is deduplicated by run for a lease ttl (a minute at least), so
   * processes that recover at once (every worker and server starting
   * together) enqueue each stranded run once. Only for that long: the queue holds a
   * deduplicated job whatever its state (kept after it completed, taken by
   * a worker that died, waiting where no worker polls), and a run still
   * stranded that much later gets a new job rather than none ever again.
   */
  resume(runId: string, cause: ResumeCause = 'settle') {
    const dedup =
      cause === 'recover'
        ? {
            id: `recover:${runId}`,
            ttl: Math.max(this.#options.leaseTtl ?? DEFAULT_LEASE_TTL, MIN_RECOVER_DEDUP_TTL),
          }
        : undefined
    const task = retryTransient(() => this.#dispatch(runId, { dedup }), {
      attempts: this.#options.attempts,
      backoff: this.#options.backoff,
      onRetry: (error, attempt) =>
        debug('run %s: enqueueing failed (try %d) %O', runId, attempt, error),
    })
      .then((result) => debug('run %s: job %s (%s)', runId, result.jobId, result.deduped ?? cause))
      .catch((error) => {
        this.#options.logger?.error(
          { err: error, runId },
          'adonis-agent-inbox: enqueueing a run failed; the periodic recovery will enqueue it again'
        )
      })
      .finally(() => this.#dispatches.delete(task))
    this.#dispatches.add(task)
    return task
  }

  /**
   * Resolves once every dispatch made so far is stored (or failed). The
   * drives themselves happen in the workers.
   */
  async idle() {
    while (this.#dispatches.size > 0) await Promise.all([...this.#dispatches])
  }
}
