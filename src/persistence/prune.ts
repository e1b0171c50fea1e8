/*
 * Retention: deleting what has ended long enough ago. A run that finished
 * (completed, failed or cancelled) before a cutoff goes with its rows and
 * its journal; a settled row from outside the runtime (no run) goes once
 * settled before the cutoff. Nothing unfinished or pending is ever touched,
 * so pruning is safe while the app runs: each batch (500 runs or rows) is
 * one transaction that locks what it deletes (./batch_transaction.ts) and
 * deletes only what still qualifies, so a run `agents.retry` brings back
 * meanwhile stays. A run that is the parent of another run waits until
 * that child is pruned (the same call prunes an old, finished child first),
 * and a run with an effect still to deliver (the outbox) waits until it is
 * delivered or given up; the effects go with their run.
 */

import { type DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { AgentEffect } from './models/agent_effect.ts'
import { AgentRun, FINISHED_RUN_STATUSES } from './models/agent_run.ts'
import { InboxEvent } from './models/inbox_event.ts'
import { Notification } from './models/notification.ts'
import { Approver } from './models/approver.ts'
import { Grant } from './models/grant.ts'
import { JournalRow } from './models/journal_row.ts'
import { ToolCall } from './models/tool_call.ts'
import { batchTransaction, hasRowLocks } from './batch_transaction.ts'
import { affectedRows, preparedColumns } from './prepared_columns.ts'
import debug from '../debug.ts'

export type PruneOptions = {
  /** Runs finished, and outside rows settled, before this are deleted */
  before: DateTime
  /** Runs (or outside rows) a transaction; 500 by default */
  batchSize?: number
  /** Count what would go, delete nothing */
  dryRun?: boolean
}

/**
 * What was deleted (or, in a dry run, would be).
 */
export type PruneCounts = {
  runs: number
  /** Tool-call rows of those runs */
  rows: number
  journal: number
  /** Settled rows with no run */
  outsideRows: number
}

const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/**
 * An age like `30d`, `12h` or `90m` in milliseconds, or null when the text
 * is not one (a whole number above zero and a unit: m, h or d).
 *
 * @example
 * parseAge('30d') // 2_592_000_000
 * parseAge('soon') // null
 */
export function parseAge(text: string): number | null {
  const match = /^(\d+)([mhd])$/.exec(text.trim())
  if (!match) return null
  const amount = Number(match[1])
  return amount > 0 ? amount * UNITS[match[2] as keyof typeof UNITS] : null
}

/**
 * Deletes the runs that finished before `before`, with their rows and
 * journal, and the outside rows settled before it, a batch at a time.
 * With `dryRun`, counts them instead (a parent run whose child is not
 * pruned yet is counted, and left).
 *
 * @example
 * await pruneFinished({ before: DateTime.now().minus({ days: 30 }) })
 */
export async function pruneFinished(options: PruneOptions): Promise<PruneCounts> {
  if (options.dryRun) return countPrunable(options.before)
  const size = options.batchSize ?? 500
  const counts: PruneCounts = { runs: 0, rows: 0, journal: 0, outsideRows: 0 }
  for (;;) {
    const batch = await batchTransaction(AgentRun, (trx) => pruneRuns(trx, options.before, size))
    counts.runs += batch.runs
    counts.rows += batch.rows
    counts.journal += batch.journal
    if (batch.claimed < size) break
  }
  for (;;) {
    const deleted = await batchTransaction(ToolCall, (trx) =>
      pruneOutside(trx, options.before, size)
    )
    counts.outsideRows += deleted
    if (deleted < size) break
  }
  debug('pruned %o', counts)
  return counts
}

/**
 * One batch of runs: lock up to `size` old finished runs no other run
 * names as its parent, then delete their journal, rows and themselves.
 */
async function pruneRuns(trx: TransactionClientContract, before: DateTime, size: number) {
  const query = finishedRuns(trx.from(AgentRun.table), before)
    .whereNotExists((children) =>
      children
        .from(`${AgentRun.table} as children`)
        .whereColumn('children.parent_run_id', `${AgentRun.table}.id`)
    )
    .select('id')
    .orderBy('finished_at')
    .orderBy('id')
    .limit(size)
  if (hasRowLocks(trx)) query.forUpdate().skipLocked()
  const locked: { id: string }[] = await query
  const ids = locked.map((run) => run.id)
  if (ids.length === 0) return { claimed: 0, runs: 0, rows: 0, journal: 0 }

  await trx.from(AgentEffect.table).whereIn('run_id', ids).delete()
  const journal = await trx.from(JournalRow.table).whereIn('run_id', ids).delete()
  // The audit log, the approvers and the run's grants go with their run, and only then
  await trx.from(InboxEvent.table).whereIn('run_id', ids).delete()
  const runRows = () => trx.from(ToolCall.table).select('id').whereIn('run_id', ids)
  await trx.from(Approver.table).whereIn('row_id', runRows()).delete()
  await trx.from(Notification.table).whereIn('row_id', runRows()).delete()
  await trx.from(Grant.table).whereIn('run_id', ids).delete()
  const rows = await trx.from(ToolCall.table).whereIn('run_id', ids).delete()
  // Locked, so still finished and old; the condition is repeated all the same
  const runs = await finishedRuns(trx.from(AgentRun.table), before).whereIn('id', ids).delete()
  return {
    claimed: ids.length,
    runs: affectedRows(runs),
    rows: affectedRows(rows),
    journal: affectedRows(journal),
  }
}

/**
 * One batch of settled rows with no run, settled before `before`.
 */
async function pruneOutside(trx: TransactionClientContract, before: DateTime, size: number) {
  const query = settledOutside(trx.from(ToolCall.table), before).select('id').limit(size)
  if (hasRowLocks(trx)) query.forUpdate().skipLocked()
  const locked: { id: string }[] = await query
  const ids = locked.map((row) => row.id)
  if (ids.length === 0) return 0
  await trx.from(InboxEvent.table).whereIn('row_id', ids).delete()
  await trx.from(Approver.table).whereIn('row_id', ids).delete()
  await trx.from(Notification.table).whereIn('row_id', ids).delete()
  return affectedRows(
    await settledOutside(trx.from(ToolCall.table), before).whereIn('id', ids).delete()
  )
}

/**
 * What a prune would delete now.
 */
async function countPrunable(before: DateTime): Promise<PruneCounts> {
  const client = AgentRun.$adapter.modelConstructorClient(AgentRun)
  const runIds = () => finishedRuns(client.from(AgentRun.table), before).select('id')
  const total = async (query: Promise<{ total: number | string }[]>) => {
    const [result] = await query
    return Number(result?.total ?? 0)
  }
  return {
    runs: await total(finishedRuns(client.from(AgentRun.table), before).count('* as total')),
    rows: await total(client.from(ToolCall.table).whereIn('run_id', runIds()).count('* as total')),
    journal: await total(
      client.from(JournalRow.table).whereIn('run_id', runIds()).count('* as total')
    ),
    outsideRows: await total(
      settledOutside(client.from(ToolCall.table), before).count('* as total')
    ),
  }
}

type Query = ReturnType<TransactionClientContract['from']>

function finishedRuns<T extends Query>(query: T, before: DateTime): T {
  const at = preparedColumns(new AgentRun(), { finishedAt: before }).finished_at
  query
    .whereIn('status', FINISHED_RUN_STATUSES)
    .where('finished_at', '<', at)
    .whereNotExists((undelivered) =>
      undelivered
        .from(AgentEffect.table)
        .whereColumn(`${AgentEffect.table}.run_id`, `${AgentRun.table}.id`)
        .where(`${AgentEffect.table}.status`, 'pending')
    )
  return query
}

function settledOutside<T extends Query>(query: T, before: DateTime): T {
  const at = preparedColumns(new ToolCall(), { settledAt: before }).settled_at
  query.whereNull('run_id').whereNot('status', 'pending').where('settled_at', '<', at)
  return query
}
