/*
 * Reads the console's figures: runs every query of ./queries.ts once and
 * shapes what came back into the props' counts, charts and lists
 * (./props.ts) with ./figures.ts. What needs a request (people's names,
 * who a row may be reassigned to) is the controller's; `node ace
 * agents:stats` prints what this returns.
 */

import { DateTime } from 'luxon'
import { isFinished, type AgentRun } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { readRows } from '../persistence/prepared_columns.ts'
import { runSummary } from '../runtime/run_summary.ts'
import { agentsOfRuns } from '../inbox/rows.ts'
import { quorumOf, quorumVotes } from '../inbox/votes.ts'
import { settlers } from '../governance/ladder.ts'
import {
  AGE_BUCKETS,
  dailySeries,
  dayWindow,
  DECISION_SAMPLE,
  decisionTimes,
  type Decision,
} from './figures.ts'
import {
  CONSOLE_QUERIES,
  consoleClient,
  COUNTED_RUN_STATUSES,
  pendingOfRuns,
  type ConsolePlan,
} from './queries.ts'
import type {
  ConsoleCounts,
  ConsoleOverdueRow,
  ConsoleProps,
  ConsoleRun,
  PendingAgeChart,
} from './props.ts'

export type ConsoleReadOptions = {
  now?: DateTime
  /** The charts' window in days */
  days: number
  /** A pending row open longer than this (ms) is overdue */
  overdueAfter: number
  /** A run stranded longer than this (ms) is listed */
  strandedFor: number
  /** Entries per list; default 20 */
  limit?: number
}

/** What the console shows apart from the request: counts, charts, lists */
export type ConsoleFigures = Pick<
  ConsoleProps,
  'generatedAt' | 'window' | 'overdueAfterMs' | 'counts' | 'charts' | 'lists'
> & {
  /** The overdue rows as read, for the hook that says who each may be reassigned to */
  overdueRecords: ToolCall[]
}

const PENDING_KINDS = ['action', 'ask', 'intake'] as const

const total = (row: { total?: unknown } | undefined) => Number(row?.total ?? 0)

/** A run in a list, with what Retry and Cancel may do to it */
function listedRun(run: AgentRun, reason: ConsoleRun['reason'], pending = 0): ConsoleRun {
  return {
    ...runSummary(run),
    reason,
    updatedAt: run.updatedAt?.toISO() ?? null,
    error: run.error ? String(run.error).slice(0, 500) : null,
    pendingRows: pending,
    actions: { retry: run.status === 'failed', cancel: !isFinished(run.status) },
  }
}

/**
 * The console's figures at `now`.
 *
 * @example
 * const figures = await readConsole({ days: 14, overdueAfter: 86_400_000, strandedFor: 120_000 })
 */
export async function readConsole(options: ConsoleReadOptions): Promise<ConsoleFigures> {
  const now = options.now ?? DateTime.now()
  const window = dayWindow(now, options.days)
  const plan: ConsolePlan = {
    now,
    window,
    overdueBefore: now.minus({ milliseconds: options.overdueAfter }),
    strandedFor: options.strandedFor,
    limit: options.limit ?? 20,
  }
  const client = consoleClient()
  const q = CONSOLE_QUERIES
  const [byStatus, byAge, opened, settled, sample, failed, waiting] = await Promise.all([
    q.runsByStatus(client),
    q.pendingByAge(client, plan),
    q.openedPerDay(client, plan),
    q.settledPerDay(client, plan),
    q.decisions(client, plan),
    q.failedRuns(client, plan),
    q.waitingRuns(client, plan),
  ])
  const halves = await Promise.all([
    q.strandedLeased(client, plan),
    q.strandedWaiting(client, plan),
    q.strandedLeasedCount(client, plan),
    q.strandedWaitingCount(client, plan),
  ])
  // Both halves longest stranded first: the list is the first `limit` of the two merged
  const stranded = [...halves[0], ...halves[1]]
    .sort((a, b) => a.updatedAt.toMillis() - b.updatedAt.toMillis())
    .slice(0, plan.limit)
  const strandedCount = total(halves[2][0]?.$extras) + total(halves[3][0]?.$extras)
  const [overdue, notifications, notificationCount, effects, effectCount] = await Promise.all([
    q.overdueRows(client, plan),
    q.failingNotifications(client, plan),
    q.failingNotificationCount(client),
    q.failingEffects(client, plan),
    q.failingEffectCount(client),
  ])

  const days = window.starts.map((_, index) => `d${index}`)
  const openedSeries = days.map((day) => Number(opened[0]?.[day] ?? 0))
  const settledSeries = days.map((day) => Number(settled[0]?.[day] ?? 0))
  const pendingByAge: PendingAgeChart = {
    buckets: AGE_BUCKETS,
    kinds: [...PENDING_KINDS],
    counts: PENDING_KINDS.map((kind) => {
      const row = byAge.find((entry) => entry.kind === kind)
      return AGE_BUCKETS.map((_, index) => Number(row?.[`b${index}`] ?? 0))
    }),
  }
  // A read that needed an approval waits as a read: counted in all, shown with actions
  const pendingRows = byAge.reduce((sum, row) => sum + total(row), 0)
  const readRow = byAge.find((entry) => entry.kind === 'read')
  if (readRow) {
    AGE_BUCKETS.forEach((_, index) => {
      pendingByAge.counts[0][index] += Number(readRow[`b${index}`] ?? 0)
    })
  }

  const decided = readRows(ToolCall, sample)
  const agentOf = await agentsOfRuns(decided.flatMap((row) => (row.runId ? [row.runId] : [])))
  const decisions: Decision[] = decided.map((row) => ({
    agent: row.runId ? (agentOf.get(row.runId) ?? null) : null,
    tool: row.toolName,
    approver: row.answeredBy!,
    ms: Math.max(0, row.settledAt!.toMillis() - row.createdAt.toMillis()),
  }))

  const waitingPending = new Map<string, number>()
  if (waiting.length > 0) {
    const counted = await pendingOfRuns(
      client,
      waiting.map((run) => run.id)
    )
    for (const row of counted) waitingPending.set(String(row.run_id), total(row))
  }

  const runs = Object.fromEntries(
    COUNTED_RUN_STATUSES.map((status) => [
      status,
      total(byStatus.find((row) => row.status === status)),
    ])
  ) as ConsoleCounts['runs']

  return {
    generatedAt: now.toUTC().toISO()!,
    window: {
      days: options.days,
      from: window.starts[0].toISO()!,
      to: window.end.toISO()!,
    },
    overdueAfterMs: options.overdueAfter,
    counts: {
      pendingRows,
      overdueRows: byAge.reduce((sum, row) => sum + Number(row.overdue ?? 0), 0),
      runs,
      strandedRuns: strandedCount,
      openedInWindow: openedSeries.reduce((sum, count) => sum + count, 0),
      settledInWindow: settledSeries.reduce((sum, count) => sum + count, 0),
      failingNotifications: total(notificationCount[0]),
      failingEffects: total(effectCount[0]),
    },
    charts: {
      daily: dailySeries(window, openedSeries, settledSeries),
      decisions: {
        sample: {
          size: decisions.length,
          limit: DECISION_SAMPLE,
          from: window.starts[0].toISO(),
        },
        byAgent: decisionTimes(decisions, (decision) => decision.agent),
        byTool: decisionTimes(decisions, (decision) => decision.tool),
        byApprover: decisionTimes(decisions, (decision) => decision.approver),
      },
      pendingByAge,
    },
    lists: {
      failedRuns: failed.map((run) => listedRun(run, 'failed')),
      strandedRuns: stranded.map((run) => listedRun(run, 'stranded')),
      waitingRuns: waiting.map((run) => listedRun(run, 'waiting', waitingPending.get(run.id) ?? 0)),
      overdueRows: await overdueList(overdue),
      failingDeliveries: [
        ...notifications.map((entry) => ({
          outbox: 'notification' as const,
          id: String(entry.id),
          rowId: entry.rowId,
          runId: null,
          personId: entry.personId,
          name: entry.reason,
          attempts: entry.attempts,
          lastError: entry.lastError ?? null,
          dueAt: entry.dueAt?.toISO() ?? null,
          state: 'retrying' as const,
        })),
        ...effects.map((effect) => ({
          outbox: 'effect' as const,
          id: effect.id,
          rowId: effect.rowId,
          runId: effect.runId,
          personId: null,
          name: effect.name,
          attempts: effect.attempts,
          lastError: effect.lastError,
          dueAt: effect.availableAt?.toISO() ?? null,
          state: effect.status === 'failed' ? ('failed' as const) : ('retrying' as const),
        })),
      ],
    },
    overdueRecords: overdue,
  }
}

/** The overdue rows as listed: their agent, and who may settle each now */
async function overdueList(rows: ToolCall[]): Promise<ConsoleOverdueRow[]> {
  if (rows.length === 0) return []
  const agents = await agentsOfRuns(rows.flatMap((row) => (row.runId ? [row.runId] : [])))
  const votes = await quorumVotes(rows)
  return rows.map((row) => {
    const spec = quorumOf(row)
    return {
      id: row.id,
      runId: row.runId,
      agent: row.runId ? (agents.get(row.runId) ?? null) : null,
      kind: row.kind,
      toolName: row.toolName,
      ownerId: row.ownerId,
      approvers: spec ? settlers(row.ownerId, spec, votes.get(row.id) ?? []) : [],
      createdAt: row.createdAt?.toISO() ?? null,
      expiresAt: row.expiresAt?.toISO() ?? null,
      ladderDueAt: row.ladderDueAt?.toISO() ?? null,
      assignees: [],
    }
  })
}
