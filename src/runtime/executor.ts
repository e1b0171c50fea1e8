/*
 * Where a settled run resumes. The inline executor (the default) drives it
 * in this process right after the settle commits; a queue-backed executor
 * can drive it on any worker instead, since the driver needs nothing but
 * the run id.
 */

import debug from '../debug.ts'
import type { RunDriver } from './run_driver.ts'

/**
 * Resumes runs. `resume` must return quickly: it schedules, it does not wait.
 */
export interface RunExecutor {
  resume(runId: string): void | Promise<void>
  /** Resolves once everything scheduled so far has settled (tests, shutdown) */
  idle(): Promise<void>
}

/**
 * Drives resumed runs in this process, on the next tick.
 */
export class InlineExecutor implements RunExecutor {
  #inFlight = new Set<Promise<unknown>>()

  constructor(private driver: RunDriver) {}

  resume(runId: string) {
    const task = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.driver.drive(runId))
      .catch((error) => debug('run %s: drive failed %O', runId, error))
      .finally(() => this.#inFlight.delete(task))
    this.#inFlight.add(task)
  }

  async idle() {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight])
  }
}
