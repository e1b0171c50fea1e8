/*
 * The append-only audit log (`agent_inbox_events`, docs/design.md §11.5):
 * every entry is written in the same transaction as what it records (a
 * row opened, a vote, a settlement, an expiry, a grant), so the log and the
 * rows never disagree, and nothing here updates or deletes an entry. Reads
 * serve the run page's timeline and `node ace agents:audit`.
 */

import { DateTime } from 'luxon'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { InboxEvent, type InboxEventType } from '../persistence/models/inbox_event.ts'
import { isRowId } from '../persistence/models/tool_call.ts'
import { preparedRows, readRows } from '../persistence/prepared_columns.ts'

/**
 * Who acts, through what, from where: what a channel knows of a request.
 * The HTTP side fills `requestId` and `ip`.
 */
export type Actor = {
  actor?: string | null
  channel?: string | null
  requestId?: string | null
  ip?: string | null
}

/** One entry to append */
export type AuditEntry = Actor & {
  type: InboxEventType
  runId: string | null
  rowId: string | null
  digest?: string | null
  data?: Record<string, unknown> | null
}

/** An operator's Retry or Cancel of a run, as its entry (the console: src/console/) */
export function runAction(type: 'retried' | 'cancelled', runId: string, actor: Actor): AuditEntry {
  return { ...actor, type, runId, rowId: null, data: null }
}

/**
 * Appends entries with one insert, on `client` (the caller's transaction)
 * or the model's connection.
 */
export async function appendEvents(
  entries: AuditEntry[],
  client?: QueryClientContract
): Promise<void> {
  if (entries.length === 0) return
  const query = client ?? InboxEvent.$adapter.modelConstructorClient(InboxEvent)
  await query.insertQuery().table(InboxEvent.table).multiInsert(eventColumns(entries))
}

/**
 * The prepared columns of entries, for a caller that writes them in its own
 * statement.
 */
export function eventColumns(entries: AuditEntry[]): Record<string, unknown>[] {
  const now = DateTime.now()
  return preparedRows(
    InboxEvent,
    entries.map((entry) => ({
      runId: entry.runId,
      rowId: entry.rowId,
      type: entry.type,
      actor: entry.actor ?? null,
      channel: entry.channel ?? null,
      requestId: entry.requestId ?? null,
      ip: entry.ip ?? null,
      digest: entry.digest ?? null,
      data: entry.data ?? null,
      createdAt: now,
    }))
  )
}

/**
 * A run's entries in the order they were written (its rows', and its
 * grants'). Its id as written: in capitals (which MySQL's collation would
 * match) or anything else that is no UUID, it names no run.
 */
export async function runEvents(runId: string): Promise<InboxEvent[]> {
  if (!isRowId(runId)) return []
  return readRows(
    InboxEvent,
    await InboxEvent.query().where('run_id', runId).orderBy('id', 'asc').pojo()
  )
}

/**
 * A row's entries in the order they were written; none for an id that is
 * not one as written (see `runEvents`).
 */
export async function rowEvents(rowId: string): Promise<InboxEvent[]> {
  if (!isRowId(rowId)) return []
  return readRows(
    InboxEvent,
    await InboxEvent.query().where('row_id', rowId).orderBy('id', 'asc').pojo()
  )
}

/**
 * An entry as JSON clients and `agents:audit --json` show it.
 */
export function eventJson(event: InboxEvent) {
  return {
    id: Number(event.id),
    type: event.type,
    runId: event.runId,
    rowId: event.rowId,
    actor: event.actor,
    channel: event.channel,
    requestId: event.requestId,
    ip: event.ip,
    digest: event.digest,
    data: event.data,
    at: event.createdAt?.toISO() ?? null,
  }
}
