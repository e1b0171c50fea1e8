/*
 * A call whose row an earlier deploy of the app wrote, of a tool the
 * running deploy no longer defines (docs/guides/deploying_while_runs_wait.md).
 * The row still says what happened, and the model is told it: a pending row
 * waits as any other; a decided one reaches the model with its decision
 * (a rejection's reason included); an approved one that never ran ends
 * `tool-removed`, never run; one that was running when its process died is
 * `interrupted` and may have taken effect, as when the tool still exists.
 */

import type { ToolCall } from '../../persistence/models/tool_call.ts'
import type { DecisionOutcome } from '../../questions/types.ts'
import { CANCELLED, WAIT, errorOutput, type CallContext, type CallResult } from './context.ts'
import { earlierExecution } from './execute_once.ts'
import { markNotRun } from './current_tool.ts'

/**
 * What becomes of `row`, whose tool is gone. Never runs anything.
 */
export async function removedToolCall(context: CallContext, row: ToolCall): Promise<CallResult> {
  if (row.status === 'pending') return WAIT
  if (row.status === 'cancelled') return CANCELLED
  const name = row.toolName
  const decision = row.status === 'auto' ? null : (row.outcome as DecisionOutcome | null)
  const prefix = decision?.text ? `${decision.text}\n` : ''
  if (row.status !== 'approved' && row.status !== 'auto') {
    // Rejected or expired: nothing was to run; the model learns the tool is gone as well
    return {
      type: 'text',
      value: `${prefix}The tool "${name}" has also been removed from this version of the app: do not call it again.`,
    }
  }
  const edited = decision?.editedInput !== undefined
  // A claim of this driver's own can never be finished without the tool: it counts as a dead one's
  context.claims.delete(row.id)
  const earlier = await earlierExecution(context, name, row, prefix, edited)
  if (earlier) {
    return row.execution === 'interrupted'
      ? errorOutput(
          `${earlier.value}\nThe tool "${name}" no longer exists in this version of the app, so it cannot be called again: check its effect some other way, or say in your final answer that it needs checking.`
        )
      : earlier
  }
  const result = { error: `The tool "${name}" no longer exists in this version of the app` }
  const output = await markNotRun(context, row, 'tool-removed', result, prefix)
  if (output) return output
  // Marked (or run) by another driver meanwhile: tell what its record says
  await row.refresh()
  return removedToolCall(context, row)
}
