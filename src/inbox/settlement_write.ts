/*
 * The write of a settlement (docs/design.md §7.2, §11.5): the conditional
 * update on a still-pending, unexpired row, and, only when it won, what the
 * settlement brings with it — its audit entries and the grant the person
 * approved with — all or nothing, so a settlement never stands without its
 * record, nor a grant without the approval that gave it. A guarded write
 * (../persistence/guarded_write.ts): one statement on PostgreSQL.
 */

import type { DateTime } from 'luxon'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { Grant } from '../persistence/models/grant.ts'
import { InboxEvent } from '../persistence/models/inbox_event.ts'
import { preparedColumns } from '../persistence/prepared_columns.ts'
import { guardedWrite, type Condition } from '../persistence/guarded_write.ts'
import { eventColumns, type AuditEntry } from './audit_log.ts'
import { settleSpan } from '../telemetry/inbox_spans.ts'

/**
 * Writes `changes` over `row` if it is still pending, unexpired at `now`
 * and at the ladder step it was read at, then `entries` and `grant`. True
 * when this call won.
 */
export function writeSettlement(
  row: ToolCall,
  now: DateTime,
  changes: Partial<ToolCall>,
  entries: AuditEntry[],
  grant: Grant | null
): Promise<boolean> {
  const at = preparedColumns(row, { expiresAt: now }).expires_at
  return settleSpan(row, changes, (traced) =>
    guardedWrite({
      model: ToolCall,
      set: preparedColumns(row, { ...traced, updatedAt: now }),
      where: [
        ['id = ?', row.id],
        ["status = 'pending'"],
        ['(expires_at is null or expires_at > ?)', at],
        // No ladder step ran since the read: a reassign changes who may settle (docs/design.md §7.7)
        ...(typeof row.ladderStep === 'number'
          ? [['ladder_step = ?', row.ladderStep] as Condition]
          : []),
      ],
      inserts: [
        [Grant.table, grant ? [preparedColumns(grant, grant.$attributes)] : []],
        [InboxEvent.table, eventColumns(entries)],
      ],
    })
  )
}
