/*
 * The read tools a model response starts with, run at once so that the
 * response, their rows and their results commit as one checkpoint
 * (docs/design.md §8.2). A read has no effect to repeat: if the process
 * dies before that commit, nothing of the step was written and the next
 * driver asks the model again. So reads need no claim on their row; the
 * first call that is not a read the app runs without approval ends the
 * batch, and the loop handles it and the rest one at a time, in order, as
 * before (a read after an action must see the action's effect).
 */

import type { ExecutedCall } from '../../inbox/inbox.ts'
import { ASK_TOOL_NAME } from '../../questions/ask_tool.ts'
import { resultKey, rowCallId, type SavedToolCall, type ToolOutput } from '../journal.ts'
import type { NewEntry, RowBuilder } from '../run_memory.ts'
import type { CallContext } from './context.ts'
import { errorOutput, toolContext } from './context.ts'
import { resultText } from './execute_once.ts'
import { policyCall, verdictOf } from './governed.ts'

export type StepReads = { entries: NewEntry[]; rows?: RowBuilder }

/**
 * Runs the leading read calls of step `step` and returns their journal
 * entries and the builder of their rows, for the step's checkpoint.
 */
export async function runReads(
  context: CallContext,
  step: number,
  calls: SavedToolCall[]
): Promise<StepReads> {
  const { run, agent } = context
  const executed: ExecutedCall[] = []
  const entries: NewEntry[] = []
  const seen = new Set<string>()
  const earlier = context.memory.conversation.callIdsBefore(step)

  for (const call of calls) {
    if (call.invalid) continue
    if (call.toolName === ASK_TOOL_NAME || seen.has(call.toolCallId)) break
    const definition = agent.tools.get(call.toolName)
    if (!definition || definition.kind !== 'read' || definition.opensWaits) break
    const checked = await definition.validate(call.input)
    if (!checked.ok || (await definition.needsApproval(checked.value))) break
    // A policy's verdict is recorded with the call: decided one at a time (./governed.ts)
    const verdict = verdictOf(
      context.approvals,
      definition,
      policyCall(context, definition, checked.value)
    )
    if (verdict && (await verdict)) break
    seen.add(call.toolCallId)
    const storedId = rowCallId(step, call.toolCallId, earlier)

    let execution: ExecutedCall['execution']
    let result: unknown
    try {
      const value = await definition.handle(
        checked.value,
        toolContext(run, call.toolCallId, null, false, storedId)
      )
      result = { value: value ?? null }
      execution = 'succeeded'
    } catch (error) {
      result = { error: error instanceof Error ? error.message : String(error) }
      execution = 'failed'
    }
    executed.push({
      kind: 'read',
      toolName: definition.name,
      toolCallId: storedId,
      args: checked.value,
      summary: definition.summarize(checked.value),
      execution,
      result,
    })
    const text = resultText(result)
    const output: ToolOutput =
      execution === 'succeeded' ? { type: 'text', value: text } : errorOutput(text)
    entries.push({
      key: resultKey(step, call.toolCallId),
      kind: 'tool-result',
      payload: { step, toolCallId: call.toolCallId, toolName: call.toolName, output },
    })
  }

  if (executed.length === 0) return { entries }
  return {
    entries,
    rows: (firstSequence) => context.inbox.executedRows(run, executed, firstSequence),
  }
}
