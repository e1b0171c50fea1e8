/*
 * A person's Reassign of a pending row (the operator's console): the
 * ladder's own reassignment (./ladder_steps.ts `reassign`) run on one row
 * at a person's word rather than at a step's due time. One transaction
 * locks the row, checks it is still pending, changes who may settle it,
 * and writes the audit entry naming who reassigned it and the notices of
 * who gained and lost it, so a reply that won first leaves it settled.
 */

import type { DateTime } from 'luxon'
import { AlreadySettledException, E_NOT_FOUND } from '../errors.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { batchTransaction, hasRowLocks } from '../persistence/batch_transaction.ts'
import { affectedRows, preparedColumns, readRows } from '../persistence/prepared_columns.ts'
import { appendEvents, type Actor } from './audit_log.ts'
import { appendNotices } from './notices.ts'
import { reassign } from './ladder_steps.ts'
import { quorumOf, votesOf } from './votes.ts'

export type ReassignOptions = {
  now: DateTime
  /** Who reassigns, through what, from where (the audit entry's actor) */
  actor: Actor
  /** Write the notices to the outbox (notifications are configured) */
  notify?: boolean
}

/**
 * Reassigns pending row `rowId` to `people`. Throws E_NOT_FOUND for no
 * such row and E_ALREADY_SETTLED (409) for a row no longer pending.
 * Returns the row as written, who held it before and who was assigned.
 *
 * @example
 * await reassignRow(row.id, ['user:2'], { now: DateTime.now(), actor: { actor: 'ops:1', channel: 'console' } })
 */
export async function reassignRow(rowId: string, people: string[], options: ReassignOptions) {
  return batchTransaction(ToolCall, async (trx) => {
    const query = trx.from(ToolCall.table).select('*').where('id', rowId)
    if (hasRowLocks(trx)) query.forUpdate()
    const [row] = readRows(ToolCall, await query)
    if (!row) throw new E_NOT_FOUND([`No row ${rowId}`])
    if (row.status !== 'pending') {
      throw new AlreadySettledException(
        row.id,
        row.answeredBy,
        row.answeredVia,
        row.settledAt?.toJSDate() ?? null
      )
    }
    const spec = quorumOf(row)
    const votes = spec ? await votesOf(trx, row.id) : []
    const change = await reassign(trx, row, spec, votes, people)
    const changes = { ownerId: change.ownerId, request: change.request, updatedAt: options.now }
    const written = await trx
      .from(ToolCall.table)
      .where('id', row.id)
      .where('status', 'pending')
      .update(preparedColumns(row, changes))
    // The row is locked and pending: a miss is a bug
    if (affectedRows(written) !== 1)
      throw new Error(`reassign: row ${row.id} changed under its lock`)
    await appendEvents(
      [
        {
          ...options.actor,
          type: 'reassigned',
          runId: row.runId,
          rowId: row.id,
          data: { do: 'reassign', to: people, from: change.from, assigned: change.assigned },
        },
      ],
      trx
    )
    if (options.notify) await appendNotices(trx, row.id, change.notices, options.now)
    row.merge(changes)
    return { row, from: change.from, assigned: change.assigned }
  })
}
