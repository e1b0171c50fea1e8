/*
 * The lease on a run row: what keeps two processes from driving the same
 * run (docs/design.md §9). It is three columns of `agent_runs` (`status`,
 * `lease_owner`, `lease_expires_at`) changed only by conditional updates,
 * so taking it is a race the database decides. A driver that dies stops
 * its heartbeat, and its lease lapses after the ttl for another to take.
 */

import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { AgentRun, FINISHED_RUN_STATUSES } from '../persistence/models/agent_run.ts'
import { affectedRows, preparedColumns } from '../persistence/prepared_columns.ts'
import debug from '../debug.ts'

export type LeaseOptions = {
  /** How long a lease lasts without a heartbeat; default 60 s */
  ttl?: number
  /** Identifies this process in `lease_owner` */
  owner?: string
}

/**
 * @example
 * const lease = new Lease({ ttl: 60_000 })
 * if (await lease.acquire(runId)) await lease.hold(runId, () => work())
 */
export class Lease {
  readonly owner: string
  #ttl: number

  constructor(options: LeaseOptions = {}) {
    this.#ttl = options.ttl ?? 60_000
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  }

  /**
   * Takes the lease when nobody holds a live one, or when this owner still
   * holds it: a drive that failed kept it (`hold`), and its retry or this
   * process's recovery takes it back at once. The driver refuses a second
   * drive of a run it is driving before asking here. The status moves to
   * `running` so a dead driver's run is found at start-up.
   */
  async acquire(runId: string): Promise<boolean> {
    const now = DateTime.now()
    const probe = new AgentRun()
    const affected = await AgentRun.query()
      .where('id', runId)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .where((free) =>
        free
          .whereNull('lease_owner')
          .orWhere('lease_owner', this.owner)
          .orWhere(
            'lease_expires_at',
            '<',
            preparedColumns(probe, { leaseExpiresAt: now }).lease_expires_at
          )
      )
      .update(
        preparedColumns(probe, {
          status: 'running',
          leaseOwner: this.owner,
          leaseExpiresAt: now.plus({ milliseconds: this.#ttl }),
          updatedAt: now,
        })
      )
    const won = affectedRows(affected) === 1
    debug('run %s: lease %s by %s', runId, won ? 'taken' : 'refused', this.owner)
    return won
  }

  /**
   * Runs `work` on a run whose lease this process took, extending the
   * lease every third of its ttl, and releases it when `work` returns.
   * When `work` throws, the lease is kept (until it lapses): this process
   * tries the run again (the executor's retries, then its recovery) and
   * finishes what the failed drive left open, an action it claimed above
   * all, while any other process waits for the lease to lapse.
   */
  async hold<T>(runId: string, work: () => Promise<T>): Promise<T> {
    const heartbeat = setInterval(() => void this.#extend(runId), this.#ttl / 3)
    heartbeat.unref()
    let result: T
    try {
      result = await work()
    } finally {
      clearInterval(heartbeat)
    }
    await this.#release(runId)
    return result
  }

  /**
   * The fence of a checkpoint, as the first statement of its transaction:
   * extends the lease and sets `changes` only where this process still
   * holds the lease and the run still runs. False means the transaction
   * must write nothing: the run was cancelled or finished, or another
   * driver took it after this one stalled past its lease. Taken first, it
   * also takes SQLite's write lock before anything is read.
   *
   * `changes` must change the row (MySQL counts changed rows, not matched
   * ones): checkpoints set the journal's new length.
   */
  async fence(
    client: TransactionClientContract,
    runId: string,
    changes: Record<string, unknown>
  ): Promise<boolean> {
    const probe = new AgentRun()
    const now = DateTime.now()
    const affected = await client
      .from(AgentRun.table)
      .where('id', runId)
      .where('lease_owner', this.owner)
      .where('status', 'running')
      .update({
        ...changes,
        ...preparedColumns(probe, {
          leaseExpiresAt: now.plus({ milliseconds: this.#ttl }),
          updatedAt: now,
        }),
      })
    return affectedRows(affected) === 1
  }

  async #extend(runId: string) {
    const probe = new AgentRun()
    await AgentRun.query()
      .where('id', runId)
      .where('lease_owner', this.owner)
      .update(
        preparedColumns(probe, {
          leaseExpiresAt: DateTime.now().plus({ milliseconds: this.#ttl }),
        })
      )
      .catch((error) => debug('run %s: heartbeat failed %O', runId, error))
  }

  async #release(runId: string) {
    await AgentRun.query()
      .where('id', runId)
      .where('lease_owner', this.owner)
      .update({ lease_owner: null, lease_expires_at: null })
  }
}
