/*
 * A row of the inbox as what an outside agent receives: the tool result
 * (the typed answers, the decision and its reason, an expiry, or "still
 * pending" with the row's id) and the MCP task the row stands for. The row
 * is the task's whole state, so any process answers `tasks/get` and
 * `tasks/result` for it, after a restart too. Pure: the row in, JSON out.
 */

import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { DecisionOutcome, QuestionOutcome, QuestionSet } from '../questions/types.ts'
import { typedAnswers } from '../mcp/to_result.ts'
import { waitsForAnswers } from '../inbox/wait.ts'

type RowView = Pick<
  ToolCall,
  'id' | 'kind' | 'status' | 'request' | 'outcome' | 'createdAt' | 'settledAt' | 'answeredBy'
>

/** A `CallToolResult` of the MCP schema */
export type ToolResult = {
  content: { type: 'text'; text: string }[]
  structuredContent: Record<string, unknown>
  isError?: boolean
}

/** An MCP task (2025-11-25 revision, experimental) */
export type McpTask = {
  taskId: string
  status: 'working' | 'completed' | 'cancelled'
  ttl: null
  createdAt: string
  lastUpdatedAt: string
  pollInterval: number
  statusMessage?: string
}

/**
 * A tool error the client reads (a malformed call): nothing was opened.
 */
export function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { error: text }, isError: true }
}

/**
 * What the client receives of a row: its answer once settled, else
 * "still pending" with the id `get_answer` takes.
 */
export function rowResult(row: RowView): ToolResult {
  const text = (value: string, structured: Record<string, unknown>): ToolResult => ({
    content: [{ type: 'text', text: value }],
    structuredContent: { id: row.id, ...structured },
  })
  if (row.status === 'pending') {
    return text(
      `Still pending: nobody has answered yet. Call get_answer with {"id": "${row.id}"} later to collect the answer.`,
      { status: 'pending' }
    )
  }
  if (row.status === 'cancelled' || !row.outcome) {
    return text('Withdrawn: this request was cancelled before anyone answered it.', {
      status: 'cancelled',
    })
  }
  if (waitsForAnswers(row)) {
    const outcome = row.outcome as QuestionOutcome
    return text(outcome.text, {
      status: outcome.expired ? 'expired' : outcome.skipped ? 'skipped' : 'answered',
      answers: typedAnswers(row.request as QuestionSet, outcome.answers),
      defaulted: outcome.defaulted,
      answeredBy: outcome.answeredBy,
      answeredVia: outcome.answeredVia,
    })
  }
  const decision = row.outcome as DecisionOutcome
  return text(decision.text, {
    status: decision.expired ? 'expired' : decision.approved ? 'approved' : 'rejected',
    approved: decision.approved,
    ...(decision.reason ? { reason: decision.reason } : {}),
    ...(decision.editedInput !== undefined ? { editedArguments: decision.editedInput } : {}),
    ...(decision.rule ? { rule: decision.rule } : {}),
    answeredBy: decision.answeredBy,
    answeredVia: decision.answeredVia,
  })
}

/**
 * The task a row stands for: working while pending, cancelled when
 * withdrawn, completed once settled (its result is `rowResult`).
 */
export function rowTask(row: RowView, pollInterval: number): McpTask {
  const created = row.createdAt.toUTC().toISO()!
  const status =
    row.status === 'pending' ? 'working' : row.status === 'cancelled' ? 'cancelled' : 'completed'
  return {
    taskId: row.id,
    status,
    ttl: null,
    createdAt: created,
    lastUpdatedAt: row.settledAt?.toUTC().toISO() ?? created,
    pollInterval,
    ...(status === 'working' ? { statusMessage: 'Waiting for a person in the inbox' } : {}),
  }
}
