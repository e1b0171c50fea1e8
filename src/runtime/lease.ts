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
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { AgentRun, FINISHED_RUN_STATUSES } from '../persistence/models/agent_run.ts'
import { pendingRowOfTheRun } from './stranded.ts'
import { preparedColumns, readRows } from '../persistence/prepared_columns.ts'
import { preparedUpdate, preparedWrite } from '../persistence/prepared_reads.ts'
import debug from '../debug.ts'

/** `ms` after `now`: Luxon's `plus` costs a checkpoint more than the rest of its dates */
function later(now: DateTime, ms: number): DateTime {
  return DateTime.fromMillis(now.toMillis() + ms, { zone: now.zone })
}

export type LeaseOptions = {
  /** How long a lease lasts without a heartbeat; default 60 s */
  ttl?: number
  /** Identifies this process in `lease_owner` */
  owner?: string
}

/** How long a lease lasts without a heartbeat, unless configured (ms) */
export const DEFAULT_LEASE_TTL = 60_000

/** A run to prepare the condition's column with (only its model is read) */
let conditionProbe: AgentRun | undefined

/** The part of a query builder (knex's or Lucid's) the lease's condition uses */
type LeaseConditions = {
  whereNull(column: string): LeaseConditions
  orWhere(column: string, operator: string, value: unknown): LeaseConditions
  orWhere(column: string, value: unknown): LeaseConditions
}

/**
 * Narrows a runs query to the runs no other live lease holds: unleased,
 * leased to `owner`, or leased by a lease that lapsed before `now`.
 *
 * @example
 * AgentRun.query().where('id', id).where((free) => freeFor(free, owner, DateTime.now()))
 */
export function freeFor<Query extends LeaseConditions>(query: Query, owner: string, now: DateTime) {
  conditionProbe ??= new AgentRun()
  return freeSince(
    query,
    owner,
    preparedColumns(conditionProbe, { leaseExpiresAt: now }).lease_expires_at
  )
}

/** `freeFor` with `now` as the column holds it (prepared) */
function freeSince<Query extends LeaseConditions>(query: Query, owner: string, lapsed: unknown) {
  return query
    .whereNull('lease_owner')
    .orWhere('lease_owner', owner)
    .orWhere('lease_expires_at', '<', lapsed)
}

/** The runs the lease may be taken on: `runId` if it is free for `owner` since `now` (prepared) */
function takeable(client: QueryClientContract, runId: string, owner: string, now: string) {
  return (
    client
      .knexQuery()
      .from(AgentRun.table)
      .where('id', runId)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .where((free) => freeSince(free, owner, now))
      // A run waiting on a pending row has nothing to drive; a late resume would announce its wait again
      .whereNot((waits) => waits.where('status', 'waiting').whereExists(pendingRowOfTheRun))
  )
}

/** What taking the lease sets: running, held by `owner` until `expires` (prepared) */
function taken(owner: string, now: string, expires: string) {
  return { status: 'running', lease_owner: owner, lease_expires_at: expires, updated_at: now }
}

/**
 * The lease's take, compiled once and prepared on the driver: the run's
 * id, the owner, now and the lease's expiry, prepared. Where an update
 * returns the row (PostgreSQL, SQLite) it returns the run taken; on MySQL
 * it counts the row it changed, and, given the run as read, the journal's
 * length and the attempt it must still have.
 */
const take = preparedWrite(4, (client, runId, owner, now, expires) =>
  takeable(client, runId, owner, now)
    .returning('*')
    .update(taken(owner, now, expires))
)
const takeOnMysql = preparedUpdate(4, (client, runId, owner, now, expires) =>
  takeable(client, runId, owner, now).update(taken(owner, now, expires))
)
const takeAsRead = preparedUpdate(6, (client, runId, owner, now, expires, length, attempt) =>
  takeable(client, runId, owner, now)
    .where('journal_length', length)
    .where('attempt', attempt)
    .update(taken(owner, now, expires))
)

/**
 * @example
 * const lease = new Lease({ ttl: 60_000 })
 * if (await lease.acquire(runId)) await lease.hold(runId, () => work())
 */
export class Lease {
  readonly owner: string
  #ttl: number
  /** A run to prepare the extension's columns with (only its model is read) */
  #probe?: AgentRun

  constructor(options: LeaseOptions = {}) {
    this.#ttl = options.ttl ?? DEFAULT_LEASE_TTL
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  }

  /**
   * Takes the lease when nobody holds a live one, or when this owner still
   * holds it: a drive that failed kept it (`hold`), and its retry or this
   * process's recovery takes it back at once. The driver refuses a second
   * drive of a run it is driving before asking here. The status moves to
   * `running` so a dead driver's run is found at start-up. A run that
   * waits on a pending row is refused: nothing in it moves until the row is
   * settled, and a resume that reached it late (a recovery pass that read
   * it while it still ran) would replay to the row and announce the same
   * wait again. Returns false
   * when refused; else the run row as the update left it where the
   * database returns updated rows (PostgreSQL, SQLite), or null (MySQL).
   * Given the run as `read` before, takes it only while its journal's
   * length and attempt are still as read, and returns `read` as the update
   * left it (RunMemory.take, on MySQL).
   */
  async acquire(runId: string, read?: AgentRun): Promise<false | { run: AgentRun | null }> {
    const now = DateTime.now()
    const probe = new AgentRun()
    const client = AgentRun.$adapter.modelConstructorClient(AgentRun)
    const held = {
      status: 'running' as const,
      leaseOwner: this.owner,
      leaseExpiresAt: later(now, this.#ttl),
      updatedAt: now,
    }
    const changes = preparedColumns(probe, held)
    let acquired: false | { run: AgentRun | null }
    if (client.dialect.name === 'mysql') {
      const parameters = [runId, this.owner, changes.updated_at, changes.lease_expires_at]
      const changed = read
        ? await takeAsRead(client, [...parameters, read.journalLength, read.attempt])
        : await takeOnMysql(client, parameters)
      acquired = changed === 1 && { run: read ? Object.assign(read, held) : null }
    } else {
      // PostgreSQL and SQLite return the row as updated: the driver need not read it back
      const rows = await take(client, [
        runId,
        this.owner,
        changes.updated_at,
        changes.lease_expires_at,
      ])
      acquired = rows.length === 1 && { run: readRows(AgentRun, rows)[0] }
    }
    debug('run %s: lease %s by %s', runId, acquired ? 'taken' : 'refused', this.owner)
    return acquired
  }

  /**
   * Runs `work` on a run whose lease this process took, extending the
   * lease every third of its ttl, and releases it when `work` returns,
   * unless `released` says the work gave it up itself (a status change
   * that clears the lease in the same update). When `work` throws, the
   * lease is kept (until it lapses): this process tries the run again (the
   * executor's retries, then its recovery) and finishes what the failed
   * drive left open, an action it claimed above all, while any other
   * process waits for the lease to lapse.
   */
  async hold<T>(runId: string, work: () => Promise<T>, released?: () => boolean): Promise<T> {
    const heartbeat = setInterval(() => void this.#extend(runId), this.#ttl / 3)
    heartbeat.unref()
    let result: T
    try {
      result = await work()
    } finally {
      clearInterval(heartbeat)
    }
    if (!released?.()) await this.#release(runId)
    return result
  }

  /**
   * The run-row columns a checkpoint's fence sets besides its own: the
   * lease extended from `now`, once a third of it has passed since the
   * driver last wrote it (`expiresAt`, when it took or extended it), the
   * heartbeat's pace; null while more is left, and the checkpoint leaves
   * the lease's columns alone. Both are indexed, so moving them at every
   * step cost a fifth of a SQLite checkpoint (docs/design.md §9). The
   * fence itself (an update matching only while this process holds the
   * lease and the run still runs) is written by checkpoint_write.ts; no
   * match means the checkpoint writes nothing: the run was cancelled or
   * finished, or another driver took it after this one stalled past its
   * lease.
   */
  extension(
    now: DateTime,
    expiresAt: DateTime | null
  ): { columns: Record<string, unknown>; expiresAt: DateTime } | null {
    const left = expiresAt ? expiresAt.toMillis() - now.toMillis() : 0
    if (left > (this.#ttl * 2) / 3) return null
    const until = later(now, this.#ttl)
    this.#probe ??= new AgentRun()
    return {
      columns: preparedColumns(this.#probe, { leaseExpiresAt: until, updatedAt: now }),
      expiresAt: until,
    }
  }

  async #extend(runId: string) {
    const probe = new AgentRun()
    await AgentRun.query()
      .where('id', runId)
      .where('lease_owner', this.owner)
      .update(
        preparedColumns(probe, {
          leaseExpiresAt: later(DateTime.now(), this.#ttl),
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
