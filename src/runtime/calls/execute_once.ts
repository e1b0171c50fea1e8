/*
 * Running an app tool at most once per row, across process deaths, and
 * exactly once across lost connections; and the text the model reads of
 * its result. The claim on `execution` and the write of `result` are the
 * only writes the runtime makes to `agent_tool_calls` itself: rows are
 * created by the inbox.
 */

import { DateTime } from 'luxon'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { affectedRows, preparedColumns } from '../../persistence/prepared_columns.ts'
import { quoteUntrusted } from '../../questions/model_text.ts'
import debug from '../../debug.ts'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { transaction } from '../../persistence/transaction.ts'
import { appendEvents } from '../../inbox/audit_log.ts'
import { viewDigest } from '../../governance/view.ts'
import type { ToolDefinition } from '../define_tool.ts'
import type { ToolOutput } from '../journal.ts'
import { errorOutput, type CallContext } from './context.ts'

/**
 * An execution this driver claimed whose outcome is not in the database:
 * the claim's answer, or the write of the result, was lost with the
 * connection. `ran` says whether the tool ran, and with what result.
 */
export type OpenClaim =
  { ran: false } | { ran: true; execution: 'succeeded' | 'failed'; result: unknown }

/**
 * The open claims of one driver, by row id. They live as long as the
 * process: a retried drive (or this process's recovery) finishes them,
 * where any other driver can only mark them interrupted.
 */
export type OpenClaims = Map<string, OpenClaim>

/**
 * Runs a tool at most once per row, and exactly once while its driver's
 * process lives. The row's `execution` column is claimed with a
 * conditional update (naming this driver in `claimed_by`) before the tool
 * runs. A row found `running` is finished by the driver that claimed it,
 * from its open claims: the tool is run if the claim's answer was lost
 * before it ran, and the result written if its write was lost. Found by
 * any other driver, it belongs to a dead or stalled process and is marked
 * `interrupted`, never run again. `approvalText` (the person's decision)
 * comes before the result in what the model reads.
 */
export async function executeOnce(
  context: CallContext,
  definition: ToolDefinition,
  row: ToolCall,
  args: unknown,
  approvalText: string | null
): Promise<ToolOutput> {
  const { run, claims } = context
  const prefix = approvalText ? `${approvalText}\n` : ''
  // Args a person edited may come back in the result: fence it like their other text
  const edited = args !== row.request.args
  const open = row.claimedBy === context.owner ? claims.get(row.id) : undefined
  if (row.execution === 'running' && open?.ran) {
    return record(context, definition, row, open, args, approvalText)
  }
  if (row.execution === 'running' && !open) {
    await audited(row, 'interrupted', {}, (client) =>
      ToolCall.query({ client })
        .where('id', row.id)
        .where('execution', 'running')
        .update({ execution: 'interrupted' })
    )
    row.execution = 'interrupted'
  }
  if (row.execution && row.execution !== 'running') claims.delete(row.id)
  switch (row.execution) {
    case 'succeeded':
      return { type: 'text', value: `${prefix}${resultText(row.result, edited)}` }
    case 'failed':
      return errorOutput(`${prefix}${resultText(row.result, edited)}`)
    case 'interrupted':
      return errorOutput(
        `${prefix}The "${definition.name}" call was interrupted by a process restart while it ran. It may or may not have taken effect, and it was not run again. Check its effect before calling it again.`
      )
  }

  // A row just built in memory has no execution at all, not even null
  if (!row.execution) {
    // Open before the update: if its answer is lost, the claim may be in all the same
    claims.set(row.id, { ran: false })
    const claimed = await ToolCall.query()
      .where('id', row.id)
      .whereNull('execution')
      .update({ execution: 'running', claimed_by: context.owner })
    if (affectedRows(claimed) !== 1) {
      claims.delete(row.id)
      const fresh = await ToolCall.findOrFail(row.id)
      return executeOnce(context, definition, fresh, args, approvalText)
    }
    Object.assign(row, { execution: 'running', claimedBy: context.owner })
  } else if (row.execution !== 'running') {
    // `refused`: an approval whose signature did not verify never runs
    return errorOutput(`${prefix}The "${definition.name}" call was not run.`)
  }
  await context.onCheckpoint?.('before-execute', run.id)

  const toolContext = {
    runId: run.id,
    ownerId: run.ownerId,
    toolCallId: row.toolCallId ?? row.id,
    argsEdited: edited,
  }
  let outcome: OpenClaim & { ran: true }
  try {
    const value = (await definition.handle(args, toolContext)) ?? null
    outcome = { ran: true, execution: 'succeeded', result: { value } }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    outcome = { ran: true, execution: 'failed', result: { error: message } }
  }
  claims.set(row.id, outcome)
  return record(context, definition, row, outcome, args, approvalText)
}

/**
 * Writes what the tool did over this driver's claim, and only over it: a
 * driver that stalled past its lease must not turn the next driver's
 * `interrupted` into a result. A write that fails leaves the claim open
 * for the next drive.
 */
async function record(
  context: CallContext,
  definition: ToolDefinition,
  row: ToolCall,
  outcome: OpenClaim & { ran: true },
  args: unknown,
  approvalText: string | null
): Promise<ToolOutput> {
  const { execution, result } = outcome
  const recorded = await audited(row, 'executed', { execution }, (client) =>
    ToolCall.query({ client })
      .where('id', row.id)
      .where('execution', 'running')
      .where('claimed_by', context.owner)
      .update(preparedColumns(row, { execution, result, updatedAt: DateTime.now() }))
  )
  context.claims.delete(row.id)
  if (affectedRows(recorded) !== 1) {
    const fresh = await ToolCall.findOrFail(row.id)
    return executeOnce(context, definition, fresh, args, approvalText)
  }
  Object.assign(row, { execution, result })
  debug('run %s: %s %s', context.run.id, definition.name, execution)
  const prefix = approvalText ? `${approvalText}\n` : ''
  const text = `${prefix}${resultText(result, args !== row.request.args)}`
  return execution === 'succeeded' ? { type: 'text', value: text } : errorOutput(text)
}

/**
 * A tool's stored result as the model reads it. Results are data from the
 * tool, and tools may echo outside text, so error text is quoted; so is the
 * whole result of a call whose args a person edited.
 */
export function resultText(result: unknown, edited = false): string {
  const stored = (result ?? {}) as { value?: unknown; error?: string }
  if (stored.error !== undefined) return `The tool failed:\n${quoteUntrusted(stored.error)}`
  const text =
    typeof stored.value === 'string' ? stored.value : JSON.stringify(stored.value ?? null)
  return edited
    ? `The tool returned, for the args the person edited:\n${quoteUntrusted(text)}`
    : text
}

/**
 * Runs an execution's conditional update, and for a governed row (one a
 * person, a policy or a grant decided) appends its audit entry in the same
 * transaction when the update changed it. A call nobody governs (a plain
 * read, an action needing no approval) is its own record: no statement more.
 */
async function audited(
  row: ToolCall,
  type: 'executed' | 'interrupted',
  data: Record<string, unknown>,
  update: (client?: TransactionClientContract) => Promise<unknown>
): Promise<unknown> {
  if (row.status === 'auto' && !row.answeredVia) return update()
  return transaction(ToolCall, async (trx) => {
    const changed = await update(trx)
    if (affectedRows(changed) === 1) {
      await appendEvents(
        [
          {
            type,
            runId: row.runId,
            rowId: row.id,
            channel: 'runtime',
            digest: viewDigest(row),
            data,
          },
        ],
        trx
      )
    }
    return changed
  })
}
