/*
 * The one job the package puts on `@adonisjs/queue`: "drive this run",
 * carrying nothing but the run id. Everything else the worker reads from
 * the database, so a job delivered twice, late, or to another worker than
 * the one that started the run does what the lease lets it do and no more
 * (docs/design.md §9). Imported only when `executor: 'queue'` is
 * configured: `@adonisjs/queue` is an optional peer.
 */

import { Job, Locator } from '@adonisjs/queue'
import type { JobOptions } from '@adonisjs/queue/types'

/** The job's name in the queue's storage and in its locator */
export const DRIVE_RUN_JOB = 'adonis_agent_inbox.drive_run'

export type DriveRunPayload = { runId: string }

/**
 * Puts one "drive this run" job on the queue; with `dedup`, none while a
 * job with the same dedup id was stored less than `ttl` ms ago (whatever
 * its state since).
 */
export type DispatchDriveRun = (
  runId: string,
  options?: { dedup?: { id: string; ttl: number } }
) => Promise<{ jobId: string; deduped?: string }>

/**
 * Registers the job class with the queue's locator, driving each run with
 * `drive`, and returns how to dispatch it. Registration is by name, so a
 * worker (`node ace queue:work`) finds the class as soon as the runtime
 * was built in its process; registering again replaces the driver.
 *
 * The job never fails: `drive` retries passing errors and logs the rest,
 * and the periodic recovery picks up what is left. So the queue's own
 * retries stay off, and a job whose worker died is left to the queue's
 * stalled-job recovery and the package's own.
 */
export function registerDriveRunJob(
  drive: (runId: string) => Promise<void>,
  options: { queue?: string; adapter?: string } = {}
): DispatchDriveRun {
  class DriveRunJob extends Job<DriveRunPayload> {
    static options: JobOptions = {
      name: DRIVE_RUN_JOB,
      queue: options.queue ?? 'default',
      adapter: options.adapter,
      maxRetries: 0,
    }

    async execute() {
      await drive(this.payload.runId)
    }
  }
  Locator.register(DRIVE_RUN_JOB, DriveRunJob)
  return (runId, { dedup } = {}) => {
    const dispatcher = DriveRunJob.dispatch({ runId })
    if (dedup) dispatcher.dedup(dedup)
    return dispatcher.run()
  }
}
