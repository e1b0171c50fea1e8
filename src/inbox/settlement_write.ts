/*
 * The write of a settlement (docs/design.md §7.2, §11.5): the conditional
 * update on a still-pending, unexpired row, and, only when it won, what the
 * settlement brings with it — its audit entries and the grant the person
 * approved with — in the same transaction, so a settlement never stands
 * without its record, nor a grant without the approval that gave it.
 */

import type { DateTime } from 'luxon'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { Grant } from '../persistence/models/grant.ts'
import { affectedRows, preparedColumns } from '../persistence/prepared_columns.ts'
import { transaction } from '../persistence/transaction.ts'
import { appendEvents, type AuditEntry } from './audit_log.ts'

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
  const payload = preparedColumns(row, { ...changes, updatedAt: now })
  const at = preparedColumns(row, { expiresAt: now }).expires_at
  return transaction(ToolCall, async (trx) => {
    const affected = await trx
      .from(ToolCall.table)
      .where('id', row.id)
      .where('status', 'pending')
      .where((unexpired) => unexpired.whereNull('expires_at').orWhere('expires_at', '>', at))
      // No ladder step ran since the read: a reassign changes who may settle (docs/design.md §7.7)
      .if(typeof row.ladderStep === 'number', (query) => query.where('ladder_step', row.ladderStep))
      .update(payload)
    if (affectedRows(affected) !== 1) return false
    if (grant) {
      await trx.insertQuery().table(Grant.table).insert(preparedColumns(grant, grant.$attributes))
    }
    await appendEvents(entries, trx)
    return true
  })
}
