/*
 * Expiry, set-based (docs/design.md §7.3): settling the rows nobody answered
 * in time by their expiry rule, a batch at a time, and cancelling the runs of
 * the `cancel` rule in the same transaction, so a sweep killed between
 * two statements never leaves an expired-with-cancel row whose run goes on.
 *
 * A batch is one transaction (../persistence/batch_transaction.ts): lock
 * the rows (and runs) it will write, compute every outcome with the pure
 * model, write them all with one conditional UPDATE, cancel runs, commit.
 * Which rows this call won is the set it locked, correct on each database
 * for its own reason. On PostgreSQL and MySQL, `SELECT … FOR UPDATE SKIP
 * LOCKED`: two sweepers share the work instead of racing (each skips the
 * other's batch), and a person's settle (one conditional UPDATE of one
 * row) waits for the lock, then finds the row no longer pending and loses.
 * SQLite has no row locks: the batch takes the database's write lock
 * first, so what it reads is what it writes, and the person's UPDATE runs
 * before or after the batch, never between.
 *
 * Locks are taken runs before rows, as `cancelRuns` callers and the
 * driver's checkpoints take them, so nothing waits in a cycle: the batches
 * of rows whose expiry touches no run lock rows only, and wait on nothing.
 */

import { type DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DatabaseQueryBuilderContract } from '@adonisjs/lucid/types/querybuilder'
import { AgentRun, FINISHED_RUN_STATUSES, isFinished } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { affectedRows, preparedColumns } from '../persistence/prepared_columns.ts'
import { settleExpired } from '../questions/settle.ts'
import type { QuestionLimits } from '../questions/types.ts'
import { waitOf } from './wait.ts'
import { anyRow, batchTransaction, hasRowLocks } from '../persistence/batch_transaction.ts'
import { appendEvents } from './audit_log.ts'
import debug from '../debug.ts'
import { noteSettled } from '../telemetry/settled.ts'
import { settledTrace } from '../telemetry/trace_context.ts'

/**
 * What one batch (or one late reply's expiry) wrote, once committed.
 */
export type ExpiryBatch = {
  /** The rows this call settled by their expiry rule, as written */
  expired: ToolCall[]
  /** The runs this call cancelled (the `cancel` rule), their other pending rows with them */
  cancelledRunIds: string[]
}

/** Inside a batch's transaction (crash tests): after the rows' update, after the runs' */
export type ExpiryStep = 'rows' | 'runs'

export type ExpiryOptions = {
  /** The clock of the expiry: rows due at it are settled, and settled at it */
  now: DateTime
  limits?: Partial<QuestionLimits>
  /** Rows (or runs, for the `cancel` rule) a batch; 500 by default */
  batchSize?: number
  /** Called after each batch commits: events and resumes go here */
  onBatch?: (batch: ExpiryBatch) => void | Promise<void>
  /** Called inside a batch's transaction (tests) */
  onWrite?: (step: ExpiryStep) => void | Promise<void>
}

export const EXPIRY_BATCH_SIZE = 500

type Lock = 'skip' | 'wait'

/**
 * Settles every row due at `now` by its expiry rule, a batch at a time, and
 * returns the rows this call settled. Runs of the `cancel` rule first
 * (their rows need the run locked before them), then every other row.
 */
export async function sweepDue(options: ExpiryOptions): Promise<ToolCall[]> {
  const size = options.batchSize ?? EXPIRY_BATCH_SIZE
  const settled: ToolCall[] = []
  // Most sweeps find nothing due: one read of the expiry index then, no batch transaction
  if (!(await anyRow(ToolCall, (query) => dueRows(query, options.now)))) return settled
  for (const next of [cancelBatch, rowsBatch]) {
    for (;;) {
      const { batch, claimed } = await batchTransaction(ToolCall, (trx) => next(trx, size, options))
      settled.push(...batch.expired)
      await noteSettled(batch.expired)
      if (batch.expired.length > 0) await options.onBatch?.(batch)
      // A short batch means nothing more is due, or another sweeper holds it
      if (claimed < size) break
    }
  }
  debug('swept %d expired rows', settled.length)
  return settled
}

/**
 * Settles one row by its expiry rule now, as a late reply needs: with its run
 * cancelled in the same transaction when its expiry rule says so. Nothing is
 * written when the row is no longer pending.
 */
export async function expireRow(
  row: ToolCall,
  options: Omit<ExpiryOptions, 'batchSize' | 'onBatch'>
): Promise<ExpiryBatch> {
  const batch = await batchTransaction(ToolCall, async (trx) => {
    const runIds = row.onExpiry === 'cancel' && row.runId ? [row.runId] : []
    const runs = await lockRuns(trx, runIds, 'wait')
    const rows = await lock(
      trx,
      trx.from(ToolCall.table).where('id', row.id).where('status', 'pending'),
      'wait'
    )
    return writeBatch(trx, rows, runs, options)
  })
  if (batch.expired.length > 0) debug('row %s expired (%s)', row.id, row.onExpiry)
  await noteSettled(batch.expired)
  return batch
}

/**
 * Moves runs that have not finished to `cancelled`, and their pending rows
 * to `cancelled`, inside the caller's transaction: all of them or none.
 * Returns how many were cancelled: 0 when every run had finished already,
 * in which case nothing was written. `agents.cancel` and the `cancel`
 * expiry rule both go through here.
 */
export async function cancelRuns(
  trx: TransactionClientContract,
  runIds: string[],
  now: DateTime
): Promise<number> {
  if (runIds.length === 0) return 0
  const changed = affectedRows(
    await AgentRun.query({ client: trx })
      .whereIn('id', runIds)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .update(
        preparedColumns(new AgentRun(), { status: 'cancelled', finishedAt: now, updatedAt: now })
      )
  )
  if (changed === 0) return 0
  if (changed !== runIds.length) {
    // Some had finished meanwhile: the caller's transaction rolls back rather than half cancel
    throw new Error(`cancelRuns: ${runIds.length - changed} of the runs had finished`)
  }
  await closePendingRows(trx, runIds, now)
  return changed
}

/**
 * Closes the pending rows of runs that ended (`cancelled`), in the
 * transaction that ended them: a late reply gets E_CANCELLED.
 */
export async function closePendingRows(
  trx: TransactionClientContract,
  runIds: string[],
  now: DateTime
) {
  await ToolCall.query({ client: trx })
    .whereIn('run_id', runIds)
    .where('status', 'pending')
    .update(preparedColumns(new ToolCall(), { status: 'cancelled', updatedAt: now }))
}

/**
 * One batch of runs with a due `cancel` row: lock the runs, skipping those
 * another transaction holds (paging past a batch another sweeper has), then
 * those rows. `claimed` counts the candidates looked at, so the sweep goes
 * on while there may be more.
 */
async function cancelBatch(trx: TransactionClientContract, size: number, options: ExpiryOptions) {
  for (let offset = 0; ; offset += size) {
    // In the expiry index's order, so the scan stops at the page (a run may repeat)
    const candidates = await dueRows(trx.from(ToolCall.table), options.now)
      .where('on_expiry', 'cancel')
      .whereNotNull('run_id')
      .select('run_id')
      .orderBy('expires_at')
      .offset(offset)
      .limit(size)
    const runIds = new Set<string>(candidates.map((candidate) => candidate.run_id))
    const runs = await lockRuns(trx, [...runIds], 'skip')
    if (runs.length === 0) {
      // Every candidate's run is another sweeper's: page on while the page was full
      if (candidates.length === size) continue
      return { batch: { expired: [], cancelledRunIds: [] }, claimed: candidates.length }
    }
    // Their rows read, then locked by id: locked by run id, MySQL may scan the expiry index
    // (its plan), waiting on every row the other sweeper holds
    const locked = runs.map((run) => run.id)
    const due = dueRows(trx.from(ToolCall.table), options.now).where('on_expiry', 'cancel')
    const found = await due.clone().whereIn('run_id', locked).select('id')
    const ids = found.map((row) => row.id)
    const rows = await lock(trx, due.whereIn('id', ids), 'wait')
    return { batch: await writeBatch(trx, rows, runs, options), claimed: candidates.length }
  }
}

/**
 * One batch of due rows whose expiry touches no run: every expiry rule but
 * `cancel`, and any row without a run.
 */
async function rowsBatch(trx: TransactionClientContract, size: number, options: ExpiryOptions) {
  const rows = await lock(
    trx,
    dueRows(trx.from(ToolCall.table), options.now)
      .where((query) => query.whereNot('on_expiry', 'cancel').orWhereNull('run_id'))
      .orderBy('expires_at')
      .limit(size),
    'skip'
  )
  return { batch: await writeBatch(trx, rows, [], options), claimed: rows.length }
}

/**
 * Writes a batch the transaction holds: the rows expired by their expiry rule
 * with one UPDATE (one CASE arm per distinct outcome), then the `runs` of
 * `cancel` rows that have not finished cancelled, with their other pending
 * rows.
 */
async function writeBatch(
  trx: TransactionClientContract,
  expiring: Record<string, any>[],
  runs: { id: string; status: string }[],
  options: Omit<ExpiryOptions, 'batchSize' | 'onBatch'>
): Promise<ExpiryBatch> {
  const now = options.now
  if (expiring.length === 0) return { expired: [], cancelledRunIds: [] }

  // The rows are read and written as the adapter's columns: a model a row
  // would cost more than the whole statement, and is made once, for the events
  const columns = preparedColumns(new ToolCall(), {
    status: 'expired',
    reply: null,
    answeredBy: null,
    answeredVia: 'expiry',
    settledAt: now,
    updatedAt: now,
    // The sweep's trace context: the drive that resumes the run links to it
    ...(await settledTrace()),
  })
  // Rows of the same request, kind and expiry rule expire the same way: computed once
  const computed = new Map<string, string>()
  const byOutcome = new Map<string, string[]>()
  const outcomes = expiring.map((row) => {
    const request = typeof row.request === 'string' ? row.request : JSON.stringify(row.request)
    const key = `${row.kind}\n${row.tool_name}\n${row.on_expiry}\n${request}`
    let outcome = computed.get(key)
    if (outcome === undefined) {
      const wait = waitOf({ kind: row.kind, toolName: row.tool_name, request: JSON.parse(request) })
      const context = { answeredBy: null, answeredVia: 'expiry' as const, limits: options.limits }
      outcome = JSON.stringify(settleExpired(wait, row.on_expiry, context))
      computed.set(key, outcome)
    }
    const group = byOutcome.get(outcome)
    if (group) group.push(row.id)
    else byOutcome.set(outcome, [row.id])
    return outcome
  })
  const ids = expiring.map((row) => row.id)
  const written = affectedRows(
    await ToolCall.query({ client: trx })
      .whereIn('id', ids)
      .where('status', 'pending')
      .update({ ...columns, outcome: outcomeColumn(trx, byOutcome) })
  )
  // The rows are locked by this transaction: anything else is a bug, never a half-written batch
  if (written !== ids.length) throw new Error(`expiry: wrote ${written} of ${ids.length} rows`)
  await appendEvents(
    expiring.map((row) => ({
      type: 'expired' as const,
      runId: row.run_id,
      rowId: row.id,
      channel: 'expiry',
      data: { onExpiry: row.on_expiry },
    })),
    trx
  )
  await options.onWrite?.('rows')

  const expiringRuns = new Set(expiring.map((row) => row.run_id))
  const cancelling = runs
    .filter((run) => !isFinished(run.status) && expiringRuns.has(run.id))
    .map((run) => run.id)
  await cancelRuns(trx, cancelling, now)
  if (cancelling.length > 0) await options.onWrite?.('runs')
  // The times as the clock's (PostgreSQL's prepared form reads back as an invalid date)
  const expired = expiring.map((row, index) =>
    ToolCall.$createFromAdapterResult({ ...row, ...columns, outcome: outcomes[index] })!.merge({
      settledAt: now,
      updatedAt: now,
    })
  )
  return { expired, cancelledRunIds: cancelling }
}

/**
 * The outcome column of a batch: a value when every row has the same
 * outcome, else `CASE WHEN id IN (…) THEN ? … END`, one arm per outcome.
 */
function outcomeColumn(trx: TransactionClientContract, byOutcome: Map<string, string[]>) {
  const groups = [...byOutcome]
  if (groups.length === 1) return groups[0][0]
  const arms = groups.map(([, ids]) => `WHEN id IN (${ids.map(() => '?').join(', ')}) THEN ?`)
  const bindings = groups.flatMap(([outcome, ids]) => [...ids, outcome])
  return trx.knexRawQuery(`CASE ${arms.join(' ')} END`, bindings)
}

/** Pending rows whose expiry is at or before `now` */
function dueRows(query: DatabaseQueryBuilderContract, now: DateTime) {
  const at = preparedColumns(new ToolCall(), { expiresAt: now }).expires_at
  query.where('status', 'pending').whereNotNull('expires_at').where('expires_at', '<=', at)
  return query
}

/**
 * Locks the runs with these ids and returns them with their status. With
 * `skip`, runs another transaction holds are left out.
 */
async function lockRuns(
  trx: TransactionClientContract,
  runIds: string[],
  mode: Lock
): Promise<{ id: string; status: string }[]> {
  if (runIds.length === 0) return []
  const query = trx.from(AgentRun.table).select('id', 'status').whereIn('id', runIds).orderBy('id')
  const knex = query.knexQuery
  // PostgreSQL: NO KEY UPDATE, so inserting a row that references the run is not held up
  if (trx.dialect.name === 'postgres') knex.forNoKeyUpdate()
  else if (trx.dialect.name === 'mysql') knex.forUpdate()
  if (mode === 'skip' && hasRowLocks(trx)) knex.skipLocked()
  return query
}

/** Rows as a locking read (SQLite holds the write lock already), as the adapter returns them */
function lock(
  trx: TransactionClientContract,
  query: DatabaseQueryBuilderContract,
  mode: Lock
): Promise<Record<string, any>[]> {
  query.select('*')
  if (!hasRowLocks(trx)) return query
  query.forUpdate()
  if (mode === 'skip') query.skipLocked()
  return query
}
