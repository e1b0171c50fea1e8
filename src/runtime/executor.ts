/*
 * Where a run resumes once something happened to it (started, settled,
 * recovered). The inline executor (the default) drives it in this process
 * right after the settle commits; the queue executor (src/scale/) hands it
 * to `@adonisjs/queue` workers, since the driver needs nothing but the run
 * id. Both drive through `driveWithRetries`, so a passing database error is
 * retried the same way wherever the run is driven.
 */

import debug from '../debug.ts'
import type { RunDriver } from './run_driver.ts'
import { retryTransient, type RetryOptions } from './transient.ts'

/**
 * Why a run is resumed: started, one of its rows settled, or found
 * stranded by recovery (or a sweep). A queue executor enqueues a
 * recovery's resume at most once per run while its job waits, so two
 * processes recovering at once hand each run to one worker.
 */
export type ResumeCause = 'start' | 'settle' | 'recover'

/**
 * Resumes runs. `resume` must return quickly: it schedules, it does not
 * wait for the drive.
 */
export interface RunExecutor {
  resume(runId: string, cause?: ResumeCause): void | Promise<void>
  /**
   * True when runs are driven in other processes (a queue's workers): the
   * settling process then hands a run on before it reads the run for the
   * `agents:run:resumed` event, which cannot race a drive that far away.
   */
  readonly drivesElsewhere?: boolean
  /** Resolves once everything scheduled so far has settled (tests, shutdown) */
  idle(): Promise<void>
}

/**
 * Where the executor reports a drive that failed: the app's logger.
 */
export type ExecutorLogger = {
  warn(bindings: object, message: string): void
  error(bindings: object, message: string): void
}

/** How a drive (and a queue's dispatch) that fails on a passing database error is tried again */
export type DriveRetryOptions = Pick<RetryOptions, 'attempts' | 'backoff'> & {
  logger?: ExecutorLogger
}

/**
 * Drives a run, trying again with a growing wait when it fails on a
 * passing database error (a lost connection, a busy or locked database, a
 * deadlock). One that still fails, or fails otherwise, is logged and the
 * run is left for the periodic recovery (`Agents.recover`), never dropped
 * in silence. Never throws. The retries stay in this process on purpose: a
 * failed drive keeps its lease (docs/design.md §9.3), which only this
 * process may take back before it lapses.
 */
export async function driveWithRetries(
  driver: RunDriver,
  runId: string,
  options: DriveRetryOptions = {}
): Promise<void> {
  let tries = 0
  try {
    await retryTransient(
      () => {
        tries++
        return driver.drive(runId)
      },
      {
        ...options,
        onRetry(error, attempt) {
          debug('run %s: drive failed (attempt %d) %O', runId, attempt, error)
          options.logger?.warn(
            { err: error, runId, attempt },
            'adonis-agent-inbox: a passing database error stopped a run; retrying'
          )
        },
      }
    )
  } catch (error) {
    debug('run %s: drive failed (attempt %d) %O', runId, tries, error)
    options.logger?.error(
      { err: error, runId, attempts: tries },
      'adonis-agent-inbox: driving a run failed; the periodic recovery will resume it'
    )
  }
}

/**
 * Drives resumed runs in this process, on the next tick, through
 * `driveWithRetries`.
 */
export class InlineExecutor implements RunExecutor {
  #inFlight = new Set<Promise<unknown>>()

  constructor(
    private driver: RunDriver,
    private options: DriveRetryOptions = {}
  ) {}

  resume(runId: string) {
    const task = new Promise((resolve) => setImmediate(resolve))
      .then(() => driveWithRetries(this.driver, runId, this.options))
      .finally(() => this.#inFlight.delete(task))
    this.#inFlight.add(task)
  }

  async idle() {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight])
  }
}
