/*
 * A trace across the pause. A run that waits for a person ends its drive;
 * days later, on another process or a queue's worker, another drive
 * resumes it. Nothing in memory survives that, so the row carries it: the
 * W3C traceparent of the drive that opened it (`opened_trace`) and of the
 * settle that answered it (`settled_trace`), written with the row and with
 * the settle when a recording span is active, never otherwise. The drive
 * that reads the row's outcome links to both, and the wait itself is
 * recorded when it is settled, as a span from the row's opening to its
 * settle under the drive that opened it.
 */

import type { Link, SpanContext } from '@opentelemetry/api'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { hasTraceContexts } from '../persistence/schema_features.ts'
import { activeSpan, recordSpan, recordsAnswers } from './tracing.ts'

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/u

/** The active span's context as a W3C traceparent, when it records */
function activeTraceparent(): string | undefined {
  const span = activeSpan()
  if (!span.isRecording()) return undefined
  const { traceId, spanId, traceFlags } = span.spanContext()
  return `00-${traceId}-${spanId}-${(traceFlags & 1) === 1 ? '01' : '00'}`
}

/** A stored traceparent as a remote span context, or undefined */
export function spanContextOf(traceparent: string | null | undefined): SpanContext | undefined {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null
  if (!match) return undefined
  return {
    traceId: match[1],
    spanId: match[2],
    traceFlags: Number.parseInt(match[3], 16),
    isRemote: true,
  }
}

/** The active span's traceparent to store, while it records and the table has the columns */
async function storedTraceparent(): Promise<string | undefined> {
  const traceparent = activeTraceparent()
  return traceparent && (await hasTraceContexts()) ? traceparent : undefined
}

/** The trace context a new row is written with: `{ openedTrace }`, or nothing */
export async function openedTrace(): Promise<{ openedTrace?: string }> {
  const traceparent = await storedTraceparent()
  return traceparent ? { openedTrace: traceparent } : {}
}

/** The trace context a settle writes with its outcome: `{ settledTrace }`, or nothing */
export async function settledTrace(): Promise<{ settledTrace?: string }> {
  const traceparent = await storedTraceparent()
  return traceparent ? { settledTrace: traceparent } : {}
}

/**
 * Links the active span (the drive that reads a settled row's outcome) to
 * the drive that opened the row and to the settle that answered it.
 */
export function linkWoken(row: ToolCall | undefined) {
  if (!row?.settledTrace && !row?.openedTrace) return
  const span = activeSpan()
  if (!span.isRecording()) return
  const links: Link[] = []
  const opened = spanContextOf(row.openedTrace)
  const settled = spanContextOf(row.settledTrace)
  const rowId = { 'agent_inbox.row.id': row.id }
  if (opened)
    links.push({ context: opened, attributes: { ...rowId, 'agent_inbox.link': 'opened' } })
  if (settled)
    links.push({ context: settled, attributes: { ...rowId, 'agent_inbox.link': 'settled' } })
  span.addLinks(links)
}

/**
 * Records the wait a settle ended: from the row's opening to now, a child
 * of the drive that opened it (when known), linked to the settle. Its kind,
 * the time to decision and `via`; the answer only when configured.
 */
export function recordWait(row: ToolCall, changes: Partial<ToolCall>, settledAt: Date) {
  const span = activeSpan()
  if (!span.isRecording()) return
  const opened = row.createdAt.toJSDate()
  const outcome = changes.outcome as { approved?: boolean; text?: string } | null | undefined
  recordSpan(
    `agent_inbox.wait ${row.kind}`,
    {
      'agent_inbox.row.id': row.id,
      'agent_inbox.row.kind': row.kind,
      'agent_inbox.row.status': changes.status ?? row.status,
      'agent_inbox.run.id': row.runId ?? '',
      'gen_ai.tool.name': row.toolName,
      'agent_inbox.via': changes.answeredVia ?? '',
      'agent_inbox.time_to_decision_ms': settledAt.getTime() - opened.getTime(),
      ...(typeof outcome?.approved === 'boolean' && { 'agent_inbox.approved': outcome.approved }),
      ...(recordsAnswers() &&
        outcome?.text !== undefined && { 'agent_inbox.answer': outcome.text }),
    },
    {
      startTime: opened,
      parent: spanContextOf(row.openedTrace),
      links: [{ context: span.spanContext(), attributes: { 'agent_inbox.link': 'settled' } }],
    }
  )
}
