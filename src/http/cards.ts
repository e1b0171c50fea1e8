/*
 * What the inbox shows of a row: a card per row, grouped by run. One shape
 * serves the Inertia page and JSON clients, so both see the same thing.
 */

import type { AgentRun } from '../persistence/models/agent_run.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { Outcome, QuestionSet } from '../questions/types.ts'
import type { ErrorResponseBody } from '../errors.ts'
import { waitsForAnswers } from '../inbox/wait.ts'

export type RowCard = {
  id: string
  /** Null for a wait opened outside the runtime (an MCP elicitation) */
  runId: string | null
  kind: ToolCall['kind']
  status: ToolCall['status']
  toolName: string
  createdAt: string | null
  expiresAt: string | null
  onExpiry: ToolCall['onExpiry']
  /** ask and intake rows */
  questionSet?: QuestionSet
  /** read and action rows */
  action?: { summary: string; args: unknown }
  settled?: {
    by: string | null
    via: string | null
    at: string | null
    outcome: Outcome | null
  }
}

export type RunSummary = {
  id: string
  agent: string
  status: AgentRun['status']
  ownerId: string | null
  createdAt: string | null
}

/**
 * What the inbox page is told of the reply it last sent (its `feedback`
 * prop): the row it was for, and either how the row was settled, or the
 * error the reply met (the body API clients receive; a 409 carries who
 * settled the row, via what and when). Null when the page sent nothing.
 */
export type ReplyFeedback = {
  rowId: string | null
  settled?: { by: string | null; via: string | null; at: string | null }
  error?: ErrorResponseBody
}

/** A run's cards; a wait opened outside the runtime is a group of its own with no run */
export type RunGroup = { run: RunSummary | null; rows: RowCard[] }

/**
 * A row as a card.
 */
export function rowCard(row: ToolCall): RowCard {
  return {
    id: row.id,
    runId: row.runId,
    kind: row.kind,
    status: row.status,
    toolName: row.toolName,
    createdAt: row.createdAt?.toISO() ?? null,
    expiresAt: row.expiresAt?.toISO() ?? null,
    onExpiry: row.onExpiry,
    ...(waitsForAnswers(row)
      ? { questionSet: row.request as QuestionSet }
      : { action: { summary: row.request?.summary ?? row.toolName, args: row.request?.args } }),
    ...(row.status === 'pending'
      ? {}
      : {
          settled: {
            by: row.answeredBy,
            via: row.answeredVia,
            at: row.settledAt?.toISO() ?? null,
            outcome: row.outcome,
          },
        }),
  }
}

/**
 * A run as the inbox names it.
 */
export function runSummary(run: AgentRun): RunSummary {
  return {
    id: run.id,
    agent: run.agent,
    status: run.status,
    ownerId: run.ownerId,
    createdAt: run.createdAt?.toISO() ?? null,
  }
}

/**
 * Cards grouped by run, groups in the order of their oldest row (rows are
 * expected oldest first).
 *
 * @example
 * groupByRun(rows, new Map(runs.map((run) => [run.id, run])))
 */
export function groupByRun(rows: ToolCall[], runs: Map<string, AgentRun>): RunGroup[] {
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
    group.rows.push(rowCard(row))
  }
  return [...groups.values()]
}
