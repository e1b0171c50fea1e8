/*
 * The operator's console, as its pages and JSON clients receive it: the
 * props of the Inertia page `agent_console/index` (CONSOLE_PAGE), which
 * are also the JSON body of `GET <prefix>/console`, and the names and
 * bodies of its three actions (Retry, Cancel, Reassign). Types only, so
 * the React and Vue pages import them from `adonis-agent-inbox/types`
 * without pulling in the server.
 *
 * Every figure is read by the queries of ./queries.ts, the same ones
 * `node ace agents:stats` prints. Times are ISO strings (UTC); durations
 * are milliseconds; days are UTC days. People appear by id, with their
 * names beside in `people` (the `displayName` hook), as on the inbox.
 *
 * Keep this file stable: the pages are built against it. A change is
 * committed on its own, saying what changed.
 */

import type { ErrorReport } from '../errors.ts'
import type { RunSummary } from '../runtime/run_summary.ts'
import type { RunStatus } from '../persistence/models/agent_run.ts'
import type { ToolCallKind } from '../persistence/models/tool_call.ts'

/** The Inertia page the app receives as a stub */
export const CONSOLE_PAGE = 'agent_console/index'

/** The console's named routes (registerConsoleRoutes) */
export const CONSOLE_ROUTES = {
  /** GET `<prefix>/console`: the page, or its props as JSON */
  index: 'agent_console.index',
  /** POST `<prefix>/console/runs/:id/retry`, body RetryBody */
  retry: 'agent_console.runs.retry',
  /** POST `<prefix>/console/runs/:id/cancel`, body CancelBody */
  cancel: 'agent_console.runs.cancel',
  /** POST `<prefix>/console/rows/:id/reassign`, body ReassignBody */
  reassign: 'agent_console.rows.reassign',
} as const

export type ConsoleAction = 'retry' | 'cancel' | 'reassign'

/** Retry a failed run (`agents.retry`): no fields */
export type RetryBody = Record<string, never>

/** Cancel a run that has not finished (`agents.cancel`): no fields */
export type CancelBody = Record<string, never>

/**
 * Reassign a pending row to one person (the escalation ladder's reassign,
 * docs/design.md §7.7): `to` is one of the row's `assignees`; anyone else
 * is refused with 422 E_INVALID_REPLY naming the field `to`.
 */
export type ReassignBody = { to: string }

/**
 * What an action answers a JSON client (200). An Inertia visit or a form
 * post is redirected back instead, and the page finds the same in its
 * `feedback` prop.
 */
export type ConsoleActionResult =
  | { action: 'retry' | 'cancel'; run: RunSummary }
  | { action: 'reassign'; row: { id: string; ownerId: string | null; from: string[] } }

/**
 * What the page was told of its last action: the id in the action's URL
 * (a run's for Retry and Cancel, a row's for Reassign; named `rowId` as
 * on the inbox, where the package's errors flash it), and either what was
 * done or the error the action met (its status and the package's error
 * body: 409 E_RUN_NOT_ACTIONABLE for a run retried that has not failed
 * or a finished run cancelled, 409 E_ALREADY_SETTLED for a row settled
 * meanwhile, 422 E_INVALID_REPLY for an unknown person, 404, 403
 * E_NOT_AN_OPERATOR). Null when the page sent nothing.
 */
export type ConsoleFeedback = {
  rowId: string | null
  done?: ConsoleActionResult
  error?: ErrorReport
}

/** The counts at the top of the console, read at `generatedAt` */
export type ConsoleCounts = {
  /** Rows waiting for a person */
  pendingRows: number
  /** Pending rows open longer than `overdueAfterMs` (the `overdue` list's rows) */
  overdueRows: number
  /** Runs by status, for the statuses a run leaves (finished ones are history) and `failed` */
  runs: Record<Exclude<RunStatus, 'completed' | 'cancelled'>, number>
  /** Runs recovery should resume and has not: leased to a dead process, queued with no taker, settled and never resumed */
  strandedRuns: number
  /** Rows that waited for a person, opened and settled within the charts' window */
  openedInWindow: number
  settledInWindow: number
  /** Deliveries that failed at least once and are not sent yet */
  failingNotifications: number
  failingEffects: number
}

/**
 * Rows opened and settled per UTC day, oldest day first, every day of the
 * window present (0 when none). `at` is each day's start in Unix seconds,
 * the x values uPlot takes as they are; `days` the same as `YYYY-MM-DD`.
 */
export type DailySeries = {
  at: number[]
  days: string[]
  opened: number[]
  settled: number[]
}

/** Time to decision of one agent, tool or approver */
export type DecisionTimes = {
  /** The agent's name, the tool's name, or the approver's id (named in `people`) */
  key: string
  /** Decisions in the sample */
  count: number
  /** Milliseconds from a row opening to its settlement */
  p50: number
  p90: number
}

/**
 * Time to decision (p50, p90) by agent, tool and approver, most decisions
 * first (at most 20 keys each). Computed over a bounded sample: the most
 * recent `sample.limit` rows a person settled within the window (see
 * docs/guides/operating.md), so the figure costs the same at any size.
 */
export type DecisionChart = {
  sample: { size: number; limit: number; from: string | null }
  byAgent: DecisionTimes[]
  byTool: DecisionTimes[]
  byApprover: DecisionTimes[]
}

/** An age range of pending rows: from `fromMs` (inclusive) to `toMs` (null: no bound) */
export type AgeBucket = { label: string; fromMs: number; toMs: number | null }

/**
 * Pending rows by age and kind: `counts[k][b]` rows of `kinds[k]` whose
 * age falls in `buckets[b]` (youngest bucket first), one series per kind.
 */
export type PendingAgeChart = {
  buckets: AgeBucket[]
  kinds: Exclude<ToolCallKind, 'read'>[]
  counts: number[][]
}

export type ConsoleCharts = {
  daily: DailySeries
  decisions: DecisionChart
  pendingByAge: PendingAgeChart
}

/** A run in a list, with the actions its status allows */
export type ConsoleRun = RunSummary & {
  /** Why it is listed: failed, stranded (recovery should have resumed it), waiting longest */
  reason: 'failed' | 'stranded' | 'waiting'
  updatedAt: string | null
  /** A failed run's last error message, cut to 500 characters */
  error: string | null
  /** Rows of the run waiting for a person (waiting runs; 0 otherwise) */
  pendingRows: number
  /** Retry: `failed` only. Cancel: a run that has not finished */
  actions: { retry: boolean; cancel: boolean }
}

/** A pending row open longer than `overdueAfterMs`, oldest first */
export type ConsoleOverdueRow = {
  id: string
  runId: string | null
  agent: string | null
  kind: ToolCallKind
  toolName: string
  /** Who may settle it now: its owner, or a quorum's approvers who have not voted */
  ownerId: string | null
  approvers: string[]
  createdAt: string | null
  expiresAt: string | null
  /** When its escalation ladder's next step is due */
  ladderDueAt: string | null
  /** Who it may be reassigned to (the `console.assignees` hook); empty: Reassign is not offered */
  assignees: string[]
}

/** A delivery of an outbox that failed at least once and is not sent yet */
export type ConsoleFailingDelivery = {
  outbox: 'notification' | 'effect'
  /** A notification's id (a number, as a string) or an effect's UUID */
  id: string
  rowId: string
  runId: string | null
  /** A notification's person, or null for an effect */
  personId: string | null
  /** A notification's reason (created, reminded, …) or the effect's `ctx.after` name */
  name: string
  attempts: number
  lastError: string | null
  /** When it is (or was) due */
  dueAt: string | null
  /** `failed`: an effect that gave up; `retrying`: it is tried again */
  state: 'retrying' | 'failed'
}

export type ConsoleLists = {
  /** Failed runs, last failed first */
  failedRuns: ConsoleRun[]
  /** Stranded runs, longest stranded first */
  strandedRuns: ConsoleRun[]
  /** Waiting runs, waiting longest first */
  waitingRuns: ConsoleRun[]
  overdueRows: ConsoleOverdueRow[]
  failingDeliveries: ConsoleFailingDelivery[]
}

/** The console page's props, and the JSON of `GET <prefix>/console` */
export type ConsoleProps = {
  /** The operator */
  person: string
  generatedAt: string
  /** The charts' window: `days` UTC days ending today (`?days=`, 1 to 90; default 14) */
  window: { days: number; from: string; to: string }
  /** A row is overdue when pending longer than this (`console.overdueAfter`) */
  overdueAfterMs: number
  counts: ConsoleCounts
  charts: ConsoleCharts
  lists: ConsoleLists
  /** Names of every person the props mention, by id (as the inbox's `People`) */
  people: Record<string, string>
  /** The console's own URL (actions post under it) and the inbox's */
  consoleUrl: string
  inboxUrl: string
  feedback: ConsoleFeedback | null
}
