/*
 * Running an app tool at most once per row, across process deaths, and
 * exactly once across lost connections; and the text the model reads of
 * its result. The claim on `execution` and the write of `result` are the
 * only writes the runtime makes to `agent_tool_calls` itself: rows are
 * created by the inbox.
 */

import { toolSpan } from '../../telemetry/run_spans.ts'
import { DateTime } from 'luxon'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { affectedRows, preparedColumns } from '../../persistence/prepared_columns.ts'
import { quoteUntrusted } from '../../questions/model_text.ts'
import debug from '../../debug.ts'
import type { ToolContext, ToolDefinition, ToolWaits } from '../define_tool.ts'
import { canAsk } from './toolset.ts'
import { expiry, openWait } from './waits.ts'
import type { ToolOutput } from '../journal.ts'
import { errorOutput, rowKey, toolContext, type CallContext } from './context.ts'
import { runInTransaction } from './execute_in_transaction.ts'
import { auditedUpdate } from './execution_audit.ts'
import { checkCurrentArgs, notRunText } from './current_tool.ts'

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
 * comes before the result in what the model reads. With `current`, for a
 * row an earlier drive wrote, the args are first checked against the
 * tool's input schema as this deploy defines it (./current_tool.ts).
 *
 * A transactional tool takes another way (execute_in_transaction.ts): its
 * handler's writes and the row's result commit together, so it has no
 * claim to leave behind and is never `interrupted`; found committed, its
 * effects still pending are delivered before the model reads its result.
 */
export async function executeOnce(
  context: CallContext,
  definition: ToolDefinition,
  row: ToolCall,
  args: unknown,
  approvalText: string | null,
  options: { current?: boolean; under?: unknown } = {}
): Promise<ToolOutput> {
  const { run, claims } = context
  const prefix = approvalText ? `${approvalText}\n` : ''
  // Args a person edited may come back in the result: fence it like their other text
  const edited = args !== row.request.args
  const open = row.claimedBy === context.owner ? claims.get(row.id) : undefined
  if (row.execution === 'running' && open?.ran) {
    return record(context, definition, row, open, args, approvalText)
  }
  const earlier = await earlierExecution(context, definition.name, row, prefix, edited)
  if (earlier) return earlier

  /*
   * A row of an earlier drive may come from an earlier deploy of the app:
   * its args must fit the tool's schema as it is now, or it never runs
   * (docs/design.md §5.2). A call validated in this drive needs no second look.
   */
  if (!row.execution && options.current) {
    const checked = await checkCurrentArgs(context, definition, row, args, prefix, options.under)
    if (!checked.fits) {
      if (checked.output) return checked.output
      // Run or marked by another driver meanwhile: its record says what became of it
      return executeOnce(context, definition, await ToolCall.findOrFail(row.id), args, approvalText)
    }
  }
  // A row just built in memory has no execution at all, not even null
  if (!row.execution && definition.transactional) {
    if (await runInTransaction(context, definition, row, args)) {
      return storedOutput(row, prefix, edited)
    }
    // Run (or refused) by another driver meanwhile: its record says what became of it
    const fresh = await ToolCall.findOrFail(row.id)
    return executeOnce(context, definition, fresh, args, approvalText)
  }
  if (!row.execution) {
    const key = rowKey(run, row, row.id)
    const now = DateTime.now()
    // Open before the update: if its answer is lost, the claim may be in all the same
    claims.set(row.id, { ran: false })
    const claimed = await ToolCall.query()
      .where('id', row.id)
      .whereNull('execution')
      .update({
        ...preparedColumns(row, {
          execution: 'running',
          claimedBy: context.owner,
          idempotencyKey: key,
          executionAttempts: 1,
          startedAt: now,
        }),
      })
    if (affectedRows(claimed) !== 1) {
      claims.delete(row.id)
      const fresh = await ToolCall.findOrFail(row.id)
      return executeOnce(context, definition, fresh, args, approvalText)
    }
    Object.assign(row, {
      execution: 'running',
      claimedBy: context.owner,
      idempotencyKey: key,
      executionAttempts: 1,
      startedAt: now,
    })
  }
  await context.onCheckpoint?.('before-execute', run.id)

  let outcome: OpenClaim & { ran: true }
  try {
    const handlerContext: ToolContext = {
      ...toolContext(run, row.toolCallId ?? row.id, row, edited),
      waits: definition.opensWaits && canAsk(run, context.agent) ? toolWaits(context) : undefined,
    }
    context.handlersRun++
    const value = (await toolSpan(row, async () => definition.handle(args, handlerContext))) ?? null
    outcome = { ran: true, execution: 'succeeded', result: { value } }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    outcome = { ran: true, execution: 'failed', result: { error: message } }
  }
  claims.set(row.id, outcome)
  return record(context, definition, row, outcome, args, approvalText)
}

/**
 * What became of a row's execution in an earlier drive, or null when it
 * is still to run (or this driver's own claim is still to finish). A row
 * found `running` under a claim no longer open belongs to a dead or stalled
 * process: it is marked `interrupted` here, never run again. Needs only the
 * tool's name, so a row whose tool the running deploy no longer defines
 * is told the same way (./current_tool.ts).
 */
export async function earlierExecution(
  context: CallContext,
  toolName: string,
  row: ToolCall,
  prefix: string,
  edited: boolean
): Promise<ToolOutput | null> {
  const { run, claims } = context
  const open = row.claimedBy === context.owner ? claims.get(row.id) : undefined
  if (row.execution === 'running' && !open) {
    const now = DateTime.now()
    await auditedUpdate(
      row,
      'interrupted',
      {},
      preparedColumns(row, { execution: 'interrupted', executedAt: now, updatedAt: now }),
      [['id = ?', row.id], ["execution = 'running'"]]
    )
    // Waits the dead driver held open mid-call died with its requests
    if (row.claimedBy) await context.inbox.withdrawHeld(run.id, row.claimedBy)
    Object.assign(row, { execution: 'interrupted', executedAt: now })
  }
  if (row.execution && row.execution !== 'running') claims.delete(row.id)
  if (row.transactional && (row.execution === 'succeeded' || row.execution === 'failed')) {
    // Killed between its commit and its effects: they go out before the model reads on
    await context.outbox.deliverRow(run.agent, row.id)
  }
  switch (row.execution) {
    case 'succeeded':
    case 'failed':
      return storedOutput(row, prefix, edited)
    case 'interrupted':
      return errorOutput(
        `${prefix}The "${toolName}" call was interrupted by a process restart while it ran. It may or may not have taken effect, and it was not run again. Check its effect before calling it again.`
      )
    case 'tool-removed':
    case 'invalid-args':
      return errorOutput(`${prefix}${notRunText(row)}`)
    case 'refused':
      // An approval whose signature did not verify never runs
      return errorOutput(`${prefix}The "${toolName}" call was not run.`)
  }
  return null
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
  const now = DateTime.now()
  const recorded = await auditedUpdate(
    row,
    'executed',
    { execution },
    preparedColumns(row, { execution, result, executedAt: now, updatedAt: now }),
    [['id = ?', row.id], ["execution = 'running'"], ['claimed_by = ?', context.owner]]
  )
  context.claims.delete(row.id)
  if (!recorded) {
    const fresh = await ToolCall.findOrFail(row.id)
    return executeOnce(context, definition, fresh, args, approvalText)
  }
  Object.assign(row, { execution, result, executedAt: now })
  debug('run %s: %s %s', context.run.id, definition.name, execution)
  return storedOutput(row, approvalText ? `${approvalText}\n` : '', args !== row.request.args)
}

/**
 * What the model reads of a row whose tool ran: its result, or its error.
 */
function storedOutput(row: ToolCall, prefix: string, edited: boolean): ToolOutput {
  const text = `${prefix}${resultText(row.result, edited)}`
  return row.execution === 'succeeded' ? { type: 'text', value: text } : errorOutput(text)
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
 * The waits a running tool may open: rows of the run, numbered by this
 * driver and held by it, with the agent's expiry.
 */
function toolWaits(context: CallContext): ToolWaits {
  const { inbox } = context
  return {
    open: (wait) => openWait(context, wait, { ...expiry(context.agent), heldBy: context.owner }),
    settled: (rowId, options) => inbox.settled(rowId, options),
    withdraw: (rowId) => inbox.withdraw(rowId),
    settle: (rowId, reply, options) => inbox.settle(rowId, reply, options),
  }
}
