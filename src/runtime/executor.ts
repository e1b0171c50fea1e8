/*
 * Where a settled run resumes. The inline executor (the default) drives it
 * in this process right after the settle commits; a queue-backed executor
 * can drive it on any worker instead, since the driver needs nothing but
 * the run id.
 */

import debug from '../debug.ts'
import type { RunDriver } from './run_driver.ts'
import { isTransient } from './transient.ts'

/**
 * Resumes runs. `resume` must return quickly: it schedules, it does not wait.
 */
export interface RunExecutor {
  resume(runId: string): void | Promise<void>
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

export type InlineExecutorOptions = {
  logger?: ExecutorLogger
  /** Tries of a drive that fails on a passing database error; default 6 */
  attempts?: number
  /** The first wait between tries (ms), doubled each time up to 5 s; default 100 */
  backoff?: number
}

/**
 * Drives resumed runs in this process, on the next tick. A drive that
 * fails on a passing database error (a lost connection, a busy or locked
 * database, a deadlock) is tried again with a growing wait; one that still
 * fails, or fails otherwise, is logged, and the run is left for the
 * periodic recovery (`Agents.recover`), never dropped in silence.
 */
export class InlineExecutor implements RunExecutor {
  #inFlight = new Set<Promise<unknown>>()
  #logger?: ExecutorLogger
  #attempts: number
  #backoff: number

  constructor(
    private driver: RunDriver,
    options: InlineExecutorOptions = {}
  ) {
    this.#logger = options.logger
    this.#attempts = options.attempts ?? 6
    this.#backoff = options.backoff ?? 100
  }

  resume(runId: string) {
    const task = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.#drive(runId))
      .finally(() => this.#inFlight.delete(task))
    this.#inFlight.add(task)
  }

  async #drive(runId: string) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.driver.drive(runId)
      } catch (error) {
        const retry = isTransient(error) && attempt < this.#attempts
        debug('run %s: drive failed (attempt %d) %O', runId, attempt, error)
        if (!retry) {
          this.#logger?.error(
            { err: error, runId, attempts: attempt },
            'adonis-agent-inbox: driving a run failed; the periodic recovery will resume it'
          )
          return
        }
        this.#logger?.warn(
          { err: error, runId, attempt },
          'adonis-agent-inbox: a passing database error stopped a run; retrying'
        )
        const wait = Math.min(this.#backoff * 2 ** (attempt - 1), 5000)
        await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
  }

  async idle() {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight])
  }
}
