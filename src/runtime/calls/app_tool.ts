/*
 * A call of one of the agent's own tools. A new call is validated, then
 * either opens an approval wait (when the tool needs approval for this
 * input) or is recorded and executed at once. A call found with a row is
 * carried on from what the row says: still pending, cancelled, approved
 * (with the args the person saw, maybe edited) or declined, checked
 * against the tool as the running deploy defines it (it may have changed
 * or gone since the row was written: current_tool.ts, removed_tool.ts).
 */

import { hashArgs } from '../../inbox/args_hash.ts'
import type { RecordedCall } from '../../inbox/inbox.ts'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { approvedArgs, verifyDecision } from '../../inbox/decision_signature.ts'
import debug from '../../debug.ts'
import type { DecisionOutcome } from '../../questions/types.ts'
import type { SavedToolCall } from '../journal.ts'
import { CANCELLED, errorOutput, WAIT, type CallContext, type CallResult } from './context.ts'
import { executeOnce } from './execute_once.ts'
import { governedCall } from './governed.ts'
import { removedToolCall } from './removed_tool.ts'
import { checkedUnder, schemaDigest } from './current_tool.ts'

/**
 * Handles a call of an app tool, its row stored under `storedId`
 * (journal.ts `rowCallId`). `row` is the call's row when an earlier pass
 * opened or recorded it.
 */
export async function handleAppTool(
  context: CallContext,
  call: SavedToolCall,
  storedId: string,
  row: ToolCall | undefined
): Promise<CallResult> {
  const definition = context.agent.tools.get(call.toolName)
  // A row of a tool this deploy no longer defines still says what happened (removed_tool.ts)
  if (!definition && row) return removedToolCall(context, row)
  if (!definition) {
    return errorOutput(`There is no tool named "${call.toolName}". Use one of the tools offered.`)
  }
  if (!row) {
    const checked = await definition.validate(call.input)
    if (!checked.ok) {
      return errorOutput(
        `Invalid input for tool "${definition.name}":\n${checked.issues
          .map((issue) => `${issue.path}: ${issue.message}`)
          .join('\n')}\nNothing was run. Fix the input and call the tool again.`
      )
    }
    const recorded = {
      kind: definition.kind,
      toolName: definition.name,
      toolCallId: storedId,
      args: checked.value,
      summary: definition.summarize(checked.value),
      schema: schemaDigest(definition),
    } satisfies RecordedCall
    return governedCall(context, definition, recorded, checked.value)
  }

  if (row.status === 'pending') return WAIT
  if (row.status === 'cancelled') return CANCELLED
  // Rows of an earlier drive, maybe of an earlier deploy: their args must fit the tool as it is now
  if (row.status === 'auto') {
    const current = { current: true, under: checkedUnder(row) }
    return executeOnce(context, definition, row, row.request.args, null, current)
  }

  const decision = row.outcome as DecisionOutcome
  if (row.status !== 'approved') return { type: 'text', value: decision.text }
  if (hashArgs(row.request.args) !== row.argsHash) {
    await refuse(context, row, 'its args do not match their hash')
    return errorOutput(
      'The approved args no longer match what the person was shown, so the action was not run.'
    )
  }
  const args = approvedArgs(row, decision)
  if (context.signer && !(await verifiedOrRefused(context, row, args))) {
    return errorOutput(
      'The approval of this call does not verify: its record was changed after the person approved it, so the action was not run.'
    )
  }
  const current = { current: true, under: checkedUnder(row, decision) }
  return executeOnce(context, definition, row, args, decision.text, current)
}

/**
 * Whether the approval's signature covers running `row` with `args`. One
 * that does not is marked `refused` on the row, once, and never runs.
 */
async function verifiedOrRefused(context: CallContext, row: ToolCall, args: unknown) {
  if (row.execution === 'refused') return false
  if (row.execution !== null && row.execution !== undefined) return true
  if (verifyDecision(context.signer!, row, args, row.decisionSignature)) return true
  await refuse(context, row, 'its approval does not verify')
  return false
}

/**
 * Marks an approved row whose record was changed after the approval
 * `refused`, once: it never runs, and no approved row is left without an
 * execution state.
 */
async function refuse(context: CallContext, row: ToolCall, why: string) {
  if (row.execution === 'refused') return
  await ToolCall.query().where('id', row.id).whereNull('execution').update({ execution: 'refused' })
  row.execution = 'refused'
  debug('run %s: row %s refused: %s', context.run.id, row.id, why)
}
