/*
 * Running an app tool at most once per row, across process deaths, and the
 * text the model reads of its result. The claim on `execution` and the
 * write of `result` are the only writes the runtime makes to
 * `agent_tool_calls` itself: rows are created by the inbox.
 */

import { DateTime } from 'luxon'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { affectedRows, preparedColumns } from '../../persistence/prepared_columns.ts'
import { quoteUntrusted } from '../../questions/model_text.ts'
import debug from '../../debug.ts'
import type { ToolDefinition } from '../define_tool.ts'
import type { ToolOutput } from '../journal.ts'
import { errorOutput, type CallContext } from './context.ts'

/**
 * Runs a tool at most once per row. The row's `execution` column is
 * claimed with a conditional update before the tool runs; a row found
 * `running` by a later driver belongs to a dead process and is marked
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
  const { run } = context
  const prefix = approvalText ? `${approvalText}\n` : ''
  // Args a person edited may come back in the result: fence it like their other text
  const edited = args !== row.request.args
  if (row.execution === 'running') {
    await ToolCall.query()
      .where('id', row.id)
      .where('execution', 'running')
      .update({ execution: 'interrupted' })
    row.execution = 'interrupted'
  }
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

  const claimed = await ToolCall.query()
    .where('id', row.id)
    .whereNull('execution')
    .update({ execution: 'running' })
  if (affectedRows(claimed) !== 1) {
    const fresh = await ToolCall.findOrFail(row.id)
    return executeOnce(context, definition, fresh, args, approvalText)
  }
  await context.onCheckpoint?.('before-execute', run.id)

  const toolContext = {
    runId: run.id,
    ownerId: run.ownerId,
    toolCallId: row.toolCallId ?? row.id,
    argsEdited: edited,
  }
  let execution: 'succeeded' | 'failed'
  let result: unknown
  try {
    result = { value: (await definition.handle(args, toolContext)) ?? null }
    execution = 'succeeded'
  } catch (error) {
    result = { error: error instanceof Error ? error.message : String(error) }
    execution = 'failed'
  }
  /*
   * Only over our own claim: a driver that stalled past its lease must not
   * turn the next driver's `interrupted` into a result.
   */
  const recorded = await ToolCall.query()
    .where('id', row.id)
    .where('execution', 'running')
    .update(preparedColumns(row, { execution, result, updatedAt: DateTime.now() }))
  if (affectedRows(recorded) !== 1) {
    const fresh = await ToolCall.findOrFail(row.id)
    return executeOnce(context, definition, fresh, args, approvalText)
  }
  Object.assign(row, { execution, result })
  debug('run %s: %s %s', run.id, definition.name, execution)
  const text = `${prefix}${resultText(result, edited)}`
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
