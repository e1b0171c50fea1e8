/*
 * What the inbox shows of a row: a card per row, grouped by run, and of a
 * run its summary. One shape serves the Inertia pages and JSON clients, so
 * both see the same thing. People appear by id here; the pages get their
 * names beside (`people`, from the `displayName` hook).
 */

import { DateTime } from 'luxon'
import type { AgentRun } from '../persistence/models/agent_run.ts'
import { runSummary, type RunSummary } from '../runtime/run_summary.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { Outcome, QuestionSet } from '../questions/types.ts'
import type { ErrorReport } from '../errors.ts'
import { waitsForAnswers } from '../inbox/wait.ts'
import { viewDigest } from '../governance/view.ts'
import { tally, type QuorumSpec, type Vote } from '../governance/quorum.ts'
import { grantOptions, type GrantChoice, type GrantOption } from '../governance/grant_rules.ts'
import { quorumOf } from '../inbox/votes.ts'
import { ladderNote } from '../governance/ladder.ts'
import type { RowChange } from '../runtime/changed_rows.ts'

/**
 * Where the votes on a row that needs a quorum stand, as its card shows
 * them: "2 of 3 approvals" at the open stage, and who voted what.
 */
export type QuorumCard = {
  stage: number
  stages: QuorumSpec['stages']
  approvals: number
  needed: number
  excludeRequester: boolean
  requester: string | null
  votes: Vote[]
}

export type RowCard = {
  id: string
  /** Null for a wait opened outside the runtime (an MCP elicitation) */
  runId: string | null
  kind: ToolCall['kind']
  status: ToolCall['status']
  toolName: string
  /**
   * The model's id of the call the row is for (a chat places the card at
   * the call); null for a wait opened outside the runtime and for intake
   */
  toolCallId: string | null
  createdAt: string | null
  expiresAt: string | null
  onExpiry: ToolCall['onExpiry']
  /**
   * A pending row's escalation ladder, as words: its last step and its
   * next ("reminded 2 h ago; escalates to @oncall in 2 h", docs/design.md §7.7)
   */
  escalation?: string
  /**
   * The digest of what the card shows: a reply names it, and is refused
   * (409 E_STALE_VIEW) when the row changed since (docs/design.md §11.4)
   */
  digest: string
  /**
   * A pending row of a run that changed since it was asked, against the
   * running deploy: what changed, and so what can still happen
   * (docs/guides/deploying_while_runs_wait.md). Absent when nothing did.
   */
  changed?: RowChange
  /** An approval that needs a quorum: the count and the votes */
  quorum?: QuorumCard
  /** What approving a pending action may remember ("… for this run") */
  grants?: GrantOption[]
  /** ask and intake rows */
  questionSet?: QuestionSet
  /** read and action rows */
  action?: {
    summary: string
    args: unknown
    /**
     * A pending approval's args as JSON Schema, from the tool's Vine schema:
     * the page builds its edit form from it. Null when the tool is not
     * (or no longer) defined.
     */
    schema?: Record<string, unknown> | null
    /**
     * A link the person opens to do what is asked (an MCP URL-mode
     * elicitation), settled when what is behind it completes. As sent:
     * the page makes only http(s) URLs links.
     */
    link?: string
  }
  settled?: {
    by: string | null
    via: string | null
    at: string | null
    outcome: Outcome | null
  }
}

export type { RunSummary } from '../runtime/run_summary.ts'

/** People's names by id, as the `displayName` hook gives them */
export type People = Record<string, string>

/**
 * What the inbox page is told of the reply it last sent (its `feedback`
 * prop): the row it was for, and either how the row was settled, or the
 * error the reply met (the body API clients receive, with its status; a
 * 409's entry carries who settled the row, via what and when, in `meta`).
 * Null when the page sent nothing.
 */
export type ReplyFeedback = {
  rowId: string | null
  settled?: { by: string | null; via: string | null; at: string | null }
  error?: ErrorReport
  /** The grant the page last revoked */
  revoked?: string
  /** A vote that counted without deciding its quorum: where the count stands */
  voted?: QuorumCard
  /** A bulk decision's result per row, in the order sent */
  bulk?: BulkResult[]
}

/**
 * What became of one row of a bulk decision: how it was settled, or the
 * error its reply met (a 409 when someone settled it first).
 */
export type BulkResult = {
  rowId: string
  settled?: { by: string | null; via: string | null; at: string | null }
  /** A vote that counted without deciding its row's quorum */
  voted?: true
  error?: ErrorReport
}

/**
 * A row's request as the pages read its question set: one whose questions
 * are missing (a row written by hand, or by a tool of the app's own) shows
 * no questions rather than break the page that lists it.
 */
function questionSetOf(request: unknown): QuestionSet {
  const set = (request ?? {}) as QuestionSet
  return Array.isArray(set.questions) ? set : { ...set, questions: [] }
}

/** A run's cards; a wait opened outside the runtime is a group of its own with no run */
export type RunGroup = { run: RunSummary | null; rows: RowCard[] }

/**
 * A row as a card; `schema` is the JSON Schema of a pending approval's
 * args, `changed` what changed since it was asked (`Agents.changedRows`).
 */
export function rowCard(
  row: ToolCall,
  schema?: Record<string, unknown> | null,
  votes?: Vote[],
  changed?: RowChange
): RowCard {
  const spec = quorumOf(row)
  const offered = (row.request?.grants ?? []) as GrantChoice[]
  return {
    id: row.id,
    runId: row.runId,
    kind: row.kind,
    status: row.status,
    toolName: row.toolName,
    toolCallId: row.toolCallId,
    createdAt: row.createdAt?.toISO() ?? null,
    expiresAt: row.expiresAt?.toISO() ?? null,
    onExpiry: row.onExpiry,
    digest: viewDigest(row),
    ...(changed ? { changed } : {}),
    ...escalationOf(row),
    ...(spec ? { quorum: quorumCard(spec, votes ?? []) } : {}),
    ...(row.status === 'pending' && offered.length > 0
      ? { grants: grantOptions(row.toolName, offered) }
      : {}),
    ...(waitsForAnswers(row)
      ? { questionSet: questionSetOf(row.request) }
      : {
          action: {
            summary: row.request?.summary ?? row.toolName,
            args: row.request?.args,
            ...(schema !== undefined ? { schema } : {}),
            ...(typeof row.request?.link === 'string' ? { link: row.request.link } : {}),
          },
        }),
    ...(row.status === 'pending'
      ? {}
      : {
          settled: { ...settlement(row), outcome: row.outcome },
        }),
  }
}

/** A pending row's ladder note, when it has a ladder */
function escalationOf(row: ToolCall): { escalation?: string } {
  if (row.status !== 'pending' || !row.ladder) return {}
  const note = ladderNote(row, DateTime.now())
  return note ? { escalation: note } : {}
}

/**
 * A quorum's count for its card.
 */
function quorumCard(spec: QuorumSpec, votes: Vote[]): QuorumCard {
  const counted = tally(spec, votes)
  const last = spec.stages.length - 1
  const open =
    counted.state === 'open'
      ? counted
      : { stage: last, approvals: spec.stages[last].quorum, needed: spec.stages[last].quorum }
  return {
    stage: open.stage,
    stages: spec.stages,
    approvals:
      counted.state === 'rejected'
        ? votes.filter((v) => v.vote === 'approve').length
        : open.approvals,
    needed: open.needed,
    excludeRequester: spec.excludeRequester,
    requester: spec.requester,
    votes: votes.filter((vote) => vote.vote !== null),
  }
}

export { runSummary }

/**
 * Who settled a row, through what and when, as recorded.
 */
export function settlement(row: ToolCall) {
  return { by: row.answeredBy, via: row.answeredVia, at: row.settledAt?.toISO() ?? null }
}

/**
 * Cards grouped by run, groups in the order of their oldest row (rows are
 * expected oldest first); `schemaOf` gives an approval's args schema,
 * `changes` what changed since a row was asked, by row id.
 *
 * @example
 * groupByRun(rows, new Map(runs.map((run) => [run.id, run])))
 */
export function groupByRun(
  rows: ToolCall[],
  runs: Map<string, AgentRun>,
  schemaOf?: (row: ToolCall, run: AgentRun | undefined) => Record<string, unknown> | null,
  votes?: Map<string, Vote[]>,
  changes?: Map<string, RowChange>
): RunGroup[] {
  const groups = new Map<string, RunGroup>()
  for (const row of rows) {
    const run = row.runId ? runs.get(row.runId) : undefined
    if (row.runId && !run) continue
    const key = run ? run.id : `row:${row.id}`
    let group = groups.get(key)
    if (!group) {
      group = { run: run ? runSummary(run) : null, rows: [] }
      groups.set(key, group)
    }
    const schema = row.kind === 'action' ? schemaOf?.(row, run) : undefined
    group.rows.push(rowCard(row, schema, votes?.get(row.id), changes?.get(row.id)))
  }
  return [...groups.values()]
}
