/*
 * The spans of the inbox's side: a settle (under the active span, the
 * HTTP request's when `@adonisjs/otel` traces the app's requests), a
 * sweep, a ladder step, a notice's delivery. A settle that wins also
 * writes its trace context with the row and records the wait it ended
 * (./trace_context.ts).
 */

import type { ToolCall } from '../persistence/models/tool_call.ts'
import { recordWait, settledTrace } from './trace_context.ts'
import { inSpan } from './tracing.ts'

/**
 * The settle of `row` with `changes`: `write` gets the changes with the
 * settle's trace context, and answers whether it won.
 */
export function settleSpan(
  row: ToolCall,
  changes: Partial<ToolCall>,
  write: (changes: Partial<ToolCall>) => Promise<boolean>
): Promise<boolean> {
  return inSpan(
    'agent_inbox.settle',
    {
      'agent_inbox.row.id': row.id,
      'agent_inbox.row.kind': row.kind,
      'agent_inbox.run.id': row.runId ?? '',
      'gen_ai.tool.name': row.toolName,
      'agent_inbox.via': changes.answeredVia ?? '',
    },
    async (span) => {
      const won = await write({ ...changes, ...(await settledTrace()) })
      span.setAttribute('agent_inbox.settle.won', won)
      if (won) recordWait(row, changes, new Date())
      return won
    }
  )
}

/** A sweep: ladder steps due, then expired rows; how many rows it expired */
export function sweepSpan(work: () => Promise<number>): Promise<number> {
  return inSpan('agent_inbox.sweep', {}, async (span) => {
    const expired = await work()
    span.setAttribute('agent_inbox.sweep.expired', expired)
    return expired
  })
}

/** One ladder step of a row (a reminder, a reassign, an escalation) */
export function ladderSpan<T>(row: ToolCall, step: number, work: () => Promise<T>): Promise<T> {
  return inSpan(
    'agent_inbox.ladder_step',
    {
      'agent_inbox.row.id': row.id,
      'agent_inbox.run.id': row.runId ?? '',
      'agent_inbox.ladder.step': step,
    },
    () => work()
  )
}

/** One delivery of an outbox: a person's notices, or a tool's effect */
export function deliverySpan<T>(
  outbox: 'notification' | 'effect',
  attributes: Record<string, string | number>,
  work: () => Promise<T>
): Promise<T> {
  return inSpan(`agent_inbox.deliver ${outbox}`, attributes, () => work())
}
