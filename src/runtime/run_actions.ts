/*
 * What a person (or the app) does to a whole run: cancel it, retry it.
 * The Agents service (./agents.ts) calls these and then tells the app and
 * the executor; the operator's console reaches them through the service,
 * naming itself as the actor, so the audit log says who did it.
 */

import { DateTime } from 'luxon'
import { E_NOT_FOUND, E_NOT_RETRYABLE } from '../errors.ts'
import { cancelRuns } from '../inbox/expiry.ts'
import { appendEvents, runAction, type Actor } from '../inbox/audit_log.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { isRowId } from '../persistence/models/tool_call.ts'
import { transaction } from '../persistence/transaction.ts'

/**
 * A run by its id exactly as it was written (a lowercase UUID), or null:
 * MySQL's and MariaDB's default collations would find it by its id in
 * capitals too, where SQLite and PostgreSQL do not, and a run has one id
 * on every database. Anything that is no UUID never reaches SQL.
 */
export function findRun(id: string): Promise<AgentRun | null> {
  return isRowId(id) ? AgentRun.find(id) : Promise.resolve(null)
}

/**
 * Cancels a run: its pending rows become `cancelled`, so late replies get
 * E_CANCELLED. Finished runs are left as they are. The run and its rows
 * change in one transaction, the run locked first, as the expiry sweep's
 * `cancel` rule does it (../inbox/expiry.ts); with `actor`, so does its
 * audit entry. `cancelled` says whether this call cancelled it.
 */
export async function cancelRun(id: string, actor?: Actor) {
  const run = await findRun(id)
  if (!run) throw new E_NOT_FOUND([`No run ${id}`])
  const cancelled = await transaction(AgentRun, async (trx) => {
    const count = await cancelRuns(trx, [id], DateTime.now())
    if (count && actor) await appendEvents([runAction('cancelled', id, actor)], trx)
    return count
  })
  await run.refresh()
  return { run, cancelled: cancelled > 0 }
}

/**
 * Makes a failed run a new attempt from its input, `queued` for the
 * executor. Earlier rows stay as the run record, and feed answer memory:
 * a question asked again with the same words gets its earlier answer
 * without asking (docs/design.md §4.5). Throws `E_NOT_RETRYABLE` (409)
 * for a run that is not `failed`.
 */
export async function retryRun(id: string, actor?: Actor): Promise<AgentRun> {
  const run = await findRun(id)
  if (!run) throw new E_NOT_FOUND([`No run ${id}`])
  if (run.status !== 'failed') throw new E_NOT_RETRYABLE([id, run.status])
  await transaction(AgentRun, async (trx) => {
    await JournalRow.query({ client: trx }).where('run_id', id).delete()
    if (actor) await appendEvents([runAction('retried', id, actor)], trx)
    run.useTransaction(trx)
    run.merge({
      status: 'queued',
      attempt: run.attempt + 1,
      askCount: 0,
      journalLength: 0,
      error: null,
      errorCode: null,
      finishedAt: null,
    })
    await run.save()
  })
  return run
}
