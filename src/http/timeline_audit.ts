/*
 * The audit log on a run's page (docs/design.md §11.5): each call of the
 * timeline carries the entries of its row — opened, decided by a policy or
 * a grant, each vote, settled, expired, executed, interrupted, a grant
 * given or revoked — with who, through what and when. Entries are added to
 * the timeline's own calls, so the timeline's model stays one.
 */

import type { InboxEvent } from '../persistence/models/inbox_event.ts'
import type { RunTimeline } from './timeline.ts'

/** One audit entry as a run's page shows it */
export type AuditLine = {
  type: InboxEvent['type']
  actor: string | null
  channel: string | null
  at: string | null
  data: Record<string, unknown> | null
}

/**
 * The timeline with each call's audit entries (`audit`), in the order they
 * were written.
 */
export function withAudit(timeline: RunTimeline, events: InboxEvent[]): RunTimeline {
  const byRow = new Map<string, AuditLine[]>()
  for (const event of events) {
    if (!event.rowId) continue
    const lines = byRow.get(event.rowId) ?? []
    lines.push({
      type: event.type,
      actor: event.actor,
      channel: event.channel,
      at: event.createdAt?.toISO() ?? null,
      data: event.data,
    })
    byRow.set(event.rowId, lines)
  }
  return {
    ...timeline,
    entries: timeline.entries.map((entry) =>
      entry.type === 'call' && entry.row && byRow.has(entry.row.id)
        ? { ...entry, audit: byRow.get(entry.row.id) }
        : entry
    ),
  }
}

/**
 * The people the audit entries name.
 */
export function auditPeople(timeline: RunTimeline): (string | null)[] {
  return timeline.entries.flatMap((entry) =>
    entry.type === 'call' ? (entry.audit ?? []).map((line) => line.actor) : []
  )
}
