/*
 * The console's queries, each built here and run by ./read.ts: the same
 * statements serve the page, the JSON API and `node ace agents:stats`,
 * and the bench and the index-plan test explain them by name. Each reads
 * one index range (docs/guides/operating.md lists which), so its cost
 * follows what it counts (pending rows, the window's rows, a page of a
 * list), never the size of the tables:
 *
 * - per-day counts are one pass over the window's range, each day a
 *   `sum(case …)` between bound timestamps, so no dialect's date
 *   functions are needed and every database counts the same days;
 * - time to decision reads the last DECISION_SAMPLE decisions of the
 *   window (a bounded sample) and ./figures.ts takes its percentiles.
 */

import type { DateTime } from 'luxon'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { DatabaseQueryBuilderContract } from '@adonisjs/lucid/types/querybuilder'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { AgentEffect } from '../persistence/models/agent_effect.ts'
import { Notification } from '../persistence/models/notification.ts'
import { preparedColumns } from '../persistence/prepared_columns.ts'
import { strandedHalves } from '../runtime/stranded.ts'
import { bucketBounds, DECISION_SAMPLE, type DayWindow } from './figures.ts'

/** What the queries are asked at one moment */
export type ConsolePlan = {
  now: DateTime
  window: DayWindow
  /** Pending rows created at or before this are overdue */
  overdueBefore: DateTime
  /** Runs stranded this long (ms) are listed (the recovery grace, as the health check has it) */
  strandedFor: number
  /** Entries per list */
  limit: number
}

/** The statuses a run is counted by: those it leaves, and `failed` */
export const COUNTED_RUN_STATUSES = ['queued', 'running', 'waiting', 'failed'] as const

/** A time as the dialect compares it in a where clause */
function at(time: DateTime): unknown {
  return preparedColumns(new ToolCall(), { createdAt: time }).created_at
}

/** The connection the package's models use */
export function consoleClient(): QueryClientContract {
  return ToolCall.$adapter.modelConstructorClient(ToolCall)
}

/** `sum(case when <column> in [from, to) …)` per day of the window, as d0, d1, … */
function perDay(
  client: QueryClientContract,
  query: DatabaseQueryBuilderContract,
  column: string,
  window: DayWindow
) {
  if (client.dialect.name === 'mysql') return perDayGrouped(client, query, column, window)
  const ends = [...window.starts.slice(1), window.end]
  window.starts.forEach((start, index) => {
    query.select(
      client.raw(`sum(case when ${column} >= ? and ${column} < ? then 1 else 0 end) as d${index}`, [
        at(start),
        at(ends[index]),
      ] as any[])
    )
  })
  return query
}

/**
 * `perDay` for MySQL, which evaluates every CASE for every row (the
 * window's fourteen cost more than its index scan): the rows are grouped
 * by their day in the window first (the window's days are UTC days of
 * 86,400 s), one expression a row, and the days summed from the groups.
 */
function perDayGrouped(
  client: QueryClientContract,
  query: DatabaseQueryBuilderContract,
  column: string,
  window: DayWindow
) {
  const day = client.raw(`floor(timestampdiff(second, ?, ${column}) / 86400) as day`, [
    at(window.starts[0]),
  ] as any[])
  query.select(day).count('* as n').groupBy('day')
  const days = client.query().from(query.as('per_day'))
  window.starts.forEach((_, index) => {
    days.select(client.raw(`sum(case when day = ? then n else 0 end) as d${index}`, [index]))
  })
  return days
}

/** The stranded runs' two halves as of the plan (runtime/stranded.ts) */
const stranded = (plan: ConsolePlan) =>
  strandedHalves({ now: plan.now, quietFor: plan.strandedFor })

/** The where clauses the console's filters use, as Lucid's and knex's builders both have them */
type Filterable = {
  whereNull(column: string): Filterable
  whereNotNull(column: string): Filterable
  whereIn(column: string, values: string[]): Filterable
}

/** A notification not sent yet whose last try failed */
const failingNotice = (query: Filterable) => query.whereNull('sent_at').whereNotNull('last_error')

/** An effect retried after a failure, or given up */
const failingEffect = (query: Filterable) =>
  query.whereNotNull('last_error').whereIn('status', ['pending', 'failed'])

/**
 * The statements, by name. Each takes the client and the plan and returns
 * a query not yet run.
 */
export const CONSOLE_QUERIES = {
  /** Runs by status (COUNTED_RUN_STATUSES): agent_runs_status_updated_index */
  runsByStatus: (client: QueryClientContract) =>
    client
      .from(AgentRun.table)
      .select('status')
      .count('* as total')
      .whereIn('status', [...COUNTED_RUN_STATUSES])
      .groupBy('status'),

  /** Pending rows by kind: per age bucket, overdue, all (agent_tool_calls_waiting_index) */
  pendingByAge: (client: QueryClientContract, plan: ConsolePlan) => {
    const query = client
      .from(ToolCall.table)
      .select('kind')
      .count('* as total')
      .where('status', 'pending')
      .groupBy('kind')
    bucketBounds(plan.now).forEach((bounds, index) => {
      const after = bounds.after ? 'created_at > ? and ' : ''
      const bindings = bounds.after ? [at(bounds.after)] : []
      query.select(
        client.raw(`sum(case when ${after}created_at <= ? then 1 else 0 end) as b${index}`, [
          ...bindings,
          at(bounds.atOrBefore),
        ] as any[])
      )
    })
    return query.select(
      client.raw('sum(case when created_at <= ? then 1 else 0 end) as overdue', [
        at(plan.overdueBefore),
      ] as any[])
    )
  },

  /** Rows that waited for a person, opened per day (agent_tool_calls_opened_index) */
  openedPerDay: (client: QueryClientContract, plan: ConsolePlan) =>
    perDay(
      client,
      client
        .from(ToolCall.table)
        .where('status', '<>', 'auto')
        .where('created_at', '>=', at(plan.window.starts[0]) as any)
        .where('created_at', '<', at(plan.window.end) as any),
      'created_at',
      plan.window
    ),

  /** Rows settled per day (agent_tool_calls_settled_index: its predicate, status <> 'auto', is carried) */
  settledPerDay: (client: QueryClientContract, plan: ConsolePlan) =>
    perDay(
      client,
      client
        .from(ToolCall.table)
        .where('status', '<>', 'auto')
        .whereNotNull('settled_at')
        .where('settled_at', '>=', at(plan.window.starts[0]) as any)
        .where('settled_at', '<', at(plan.window.end) as any),
      'settled_at',
      plan.window
    ),

  /**
   * The window's last DECISION_SAMPLE decisions a person made
   * (agent_tool_calls_settled_index); their runs' agents are read after,
   * by primary key (`agentsOfRuns` in ../inbox/rows.ts), rather than joined: a join let
   * PostgreSQL hash the whole runs table
   */
  decisions: (client: QueryClientContract, plan: ConsolePlan) =>
    client
      .from(ToolCall.table)
      .select('run_id', 'tool_name', 'answered_by', 'created_at', 'settled_at')
      .where('status', '<>', 'auto')
      .whereNotNull('settled_at')
      .where('settled_at', '>=', at(plan.window.starts[0]) as any)
      .whereNotNull('answered_by')
      .orderBy('settled_at', 'desc')
      .limit(DECISION_SAMPLE),

  /** Failed runs, last failed first (agent_runs_status_updated_index) */
  failedRuns: (_client: QueryClientContract, plan: ConsolePlan) =>
    AgentRun.query().where('status', 'failed').orderBy('updated_at', 'desc').limit(plan.limit),

  /** Waiting runs, waiting longest first (agent_runs_status_updated_index) */
  waitingRuns: (_client: QueryClientContract, plan: ConsolePlan) =>
    AgentRun.query().where('status', 'waiting').orderBy('updated_at', 'asc').limit(plan.limit),

  /**
   * Runs stranded longer than the grace, longest first, in the two halves
   * runtime/stranded.ts reads through an index each: `queued`/`running`
   * with a lapsed lease, and `waiting` with nothing pending
   */
  strandedLeased: (_client: QueryClientContract, plan: ConsolePlan) =>
    stranded(plan)[0].orderBy('updated_at', 'asc').limit(plan.limit),

  strandedWaiting: (_client: QueryClientContract, plan: ConsolePlan) =>
    stranded(plan)[1].orderBy('updated_at', 'asc').limit(plan.limit),

  /** How many runs are stranded longer than the grace, by half */
  strandedLeasedCount: (_client: QueryClientContract, plan: ConsolePlan) =>
    stranded(plan)[0].count('* as total'),

  strandedWaitingCount: (_client: QueryClientContract, plan: ConsolePlan) =>
    stranded(plan)[1].count('* as total'),

  /** Overdue rows, oldest first (agent_tool_calls_waiting_index) */
  overdueRows: (_client: QueryClientContract, plan: ConsolePlan) =>
    ToolCall.query()
      .where('status', 'pending')
      .where('created_at', '<=', at(plan.overdueBefore) as any)
      .orderBy('created_at', 'asc')
      .limit(plan.limit),

  /** Notifications not sent yet whose last try failed (agent_notifications_due_index) */
  failingNotifications: (_client: QueryClientContract, plan: ConsolePlan) =>
    Notification.query().where(failingNotice).orderBy('due_at', 'asc').limit(plan.limit),

  failingNotificationCount: (client: QueryClientContract) =>
    client.from(Notification.table).where(failingNotice).count('* as total'),

  /** Effects retried after a failure, or given up (agent_effects_failing_index) */
  failingEffects: (_client: QueryClientContract, plan: ConsolePlan) =>
    AgentEffect.query().where(failingEffect).orderBy('available_at', 'asc').limit(plan.limit),

  failingEffectCount: (client: QueryClientContract) =>
    client.from(AgentEffect.table).where(failingEffect).count('* as total'),
}

export type ConsoleQueryName = keyof typeof CONSOLE_QUERIES

/**
 * Pending rows per run, for the listed runs: one query by the rows'
 * run index.
 */
export function pendingOfRuns(client: QueryClientContract, runIds: string[]) {
  return client
    .from(ToolCall.table)
    .select('run_id')
    .count('* as total')
    .whereIn('run_id', runIds)
    .where('status', 'pending')
    .groupBy('run_id')
}
