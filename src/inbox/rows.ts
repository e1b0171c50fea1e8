/*
 * Writing a run's tool-call rows. Every row, waiting or not, is written
 * here: next in its run's sequence, with the run's owner copied on so the
 * inbox finds "rows this person may settle" by index. A question of the
 * model's spends the run's ask budget in the same transaction, so a
 * crash cannot leave a row without its spent budget or the reverse.
 */

import { AgentRun, isFinished, type RunStatus } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { nextSequence } from '../persistence/prepared_columns.ts'
import { E_ABORTED } from '../errors.ts'
import debug from '../debug.ts'

/**
 * The run a row belongs to: an agent run of the runtime, or none, for a
 * wait opened from outside the runtime (an MCP elicitation, say), which
 * only names the person who may answer it.
 */
export type RowHolder =
  | { id: string; ownerId: string | null; attempt: number; status?: RunStatus }
  | { id: null; ownerId: string | null }

/**
 * Inserts a row of the holder's current attempt, next in sequence. With
 * `spendsBudget`, the run's `ask_count` goes up by one in the same
 * transaction. A run known to be finished gets E_ABORTED: nobody would
 * ever read the row's answer.
 */
export async function insertRow(
  holder: RowHolder,
  attributes: Partial<ToolCall>,
  spendsBudget = false
): Promise<ToolCall> {
  if (holder.id === null) {
    const row = await ToolCall.create({
      runId: null,
      sequence: 1,
      attempt: 1,
      ownerId: holder.ownerId,
      ...attributes,
    })
    debug('external row %s (%s, %s)', row.id, row.kind, row.status)
    return row
  }

  const runId = holder.id
  if (holder.status && isFinished(holder.status)) throw new E_ABORTED([runId])
  const row = await AgentRun.transaction(async (trx) => {
    const created = await ToolCall.create(
      {
        runId,
        attempt: holder.attempt,
        ownerId: holder.ownerId,
        sequence: await nextSequence(ToolCall, runId, trx),
        ...attributes,
      },
      { client: trx }
    )
    if (spendsBudget) {
      await AgentRun.query({ client: trx }).where('id', runId).increment('ask_count', 1)
    }
    return created
  })
  debug('run %s: row %s (%s, %s)', runId, row.id, row.kind, row.status)
  return row
}
