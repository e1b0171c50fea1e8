/*
 * The model's ask tool: a question set for the run's owner. Before a row is
 * opened the call must pass, in order, whether anyone can answer, the ask
 * budget and validation; a set answered earlier in the run is answered
 * from memory and waits for nobody.
 */

import { E_DELEGATED_CALLER, E_NO_ANSWERER } from '../../errors.ts'
import type { WaitRequest } from '../../inbox/wait.ts'
import type { ToolCall } from '../../persistence/models/tool_call.ts'
import { ASK_TOOL_NAME, formatIssuesForModel } from '../../questions/ask_tool.ts'
import { checkAskBudget } from '../../questions/budget.ts'
import type { QuestionOutcome } from '../../questions/types.ts'
import { validateQuestionSet } from '../../questions/validate.ts'
import debug from '../../debug.ts'
import type { SavedToolCall } from '../journal.ts'
import { CANCELLED, errorOutput, WAIT, type CallContext, type CallResult } from './context.ts'
import { canAsk } from './toolset.ts'
import { expiry, openWait, recall } from './waits.ts'

/**
 * The ask tool: budget, validation, answer memory, then a pending row,
 * stored under `storedId` (journal.ts `rowCallId`). `row` is the call's
 * row when an earlier pass opened it.
 */
export async function handleAsk(
  context: CallContext,
  call: SavedToolCall,
  storedId: string,
  row: ToolCall | undefined
): Promise<CallResult> {
  const { run, agent } = context
  if (row) {
    if (row.status === 'pending') return WAIT
    if (row.status === 'cancelled') return CANCELLED
    return { type: 'text', value: (row.outcome as QuestionOutcome).text }
  }
  if (!canAsk(run, agent)) {
    return errorOutput(
      run.parentRunId ? new E_DELEGATED_CALLER().message : new E_NO_ANSWERER().message
    )
  }
  const budget = checkAskBudget(run.askCount, agent.limits)
  if (!budget.allowed) return errorOutput(budget.message)

  const checked = await validateQuestionSet(call.input, agent.limits)
  if (!checked.ok) return errorOutput(formatIssuesForModel(checked.issues))

  const recalled = await recall(run, 'ask', checked.value)
  const ask = {
    kind: 'ask',
    set: checked.value,
    toolName: ASK_TOOL_NAME,
    toolCallId: storedId,
  } satisfies WaitRequest
  if (recalled) {
    debug('run %s: ask %s answered from memory', run.id, call.toolCallId)
    await openWait(context, ask, { recalled })
    return { type: 'text', value: recalled.text }
  }
  await openWait(context, ask, { ...expiry(agent), spendsBudget: true })
  run.askCount += 1
  return WAIT
}
