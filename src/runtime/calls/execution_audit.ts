/*
 * The audit entries of a call's execution (docs/design.md §11.5). Only a
 * governed row (one a person, a policy or a grant decided) has them: a
 * call nobody governs (a plain read, an action needing no approval) is its
 * own record, and costs no statement more.
 */

import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { InboxEvent } from '../../persistence/models/inbox_event.ts'
import { guardedWrite, type Condition } from '../../persistence/guarded_write.ts'
import { appendEvents, eventColumns, type AuditEntry } from '../../inbox/audit_log.ts'
import { viewDigest } from '../../governance/view.ts'

type ExecutionEvent = 'executed' | 'interrupted' | 'not-run'

function governed(row: ToolCall) {
  return !(row.status === 'auto' && !row.answeredVia)
}

/**
 * Appends a governed row's execution entry in `trx`, the transaction of
 * the write it records.
 */
export async function auditExecution(
  row: ToolCall,
  type: ExecutionEvent,
  data: Record<string, unknown>,
  trx: TransactionClientContract
) {
  if (governed(row)) await appendEvents([entryOf(row, type, data)], trx)
}

function entryOf(row: ToolCall, type: ExecutionEvent, data: Record<string, unknown>): AuditEntry {
  return {
    type,
    runId: row.runId,
    rowId: row.id,
    channel: 'runtime',
    digest: viewDigest(row),
    data,
  }
}

/**
 * An execution's conditional update (`set` where `where`), and for a
 * governed row its audit entry, written only when the update matched: a
 * guarded write, one statement on PostgreSQL. True when it matched.
 */
export function auditedUpdate(
  row: ToolCall,
  type: ExecutionEvent,
  data: Record<string, unknown>,
  set: Record<string, unknown>,
  where: Condition[]
): Promise<boolean> {
  const entries = governed(row) ? [entryOf(row, type, data)] : []
  return guardedWrite({
    model: ToolCall,
    set,
    where,
    inserts: [[InboxEvent.table, eventColumns(entries)]],
  })
}
