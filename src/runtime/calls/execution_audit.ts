/*
 * The audit entries of a call's execution (docs/design.md §11.5). Only a
 * governed row (one a person, a policy or a grant decided) has them: a
 * call nobody governs (a plain read, an action needing no approval) is its
 * own record, and costs no statement more.
 */

import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { affectedRows } from '../../persistence/prepared_columns.ts'
import { transaction } from '../../persistence/transaction.ts'
import { appendEvents } from '../../inbox/audit_log.ts'
import { viewDigest } from '../../governance/view.ts'

type ExecutionEvent = 'executed' | 'interrupted'

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
  if (!governed(row)) return
  await appendEvents(
    [{ type, runId: row.runId, rowId: row.id, channel: 'runtime', digest: viewDigest(row), data }],
    trx
  )
}

/**
 * Runs an execution's conditional update, and for a governed row appends
 * its entry in the same transaction when the update changed it.
 */
export async function audited(
  row: ToolCall,
  type: ExecutionEvent,
  data: Record<string, unknown>,
  update: (client?: TransactionClientContract) => Promise<unknown>
): Promise<unknown> {
  if (!governed(row)) return update()
  return transaction(ToolCall, async (trx) => {
    const changed = await update(trx)
    if (affectedRows(changed) === 1) await auditExecution(row, type, data, trx)
    return changed
  })
}
