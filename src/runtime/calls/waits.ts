/*
 * How a call gets its row: through the inbox, which writes every row
 * (`open` for a wait, `record` for a call that needs nobody). Here too are
 * the agent's expiry for the waits it opens and answer memory, which lets
 * a question set answered earlier in the run be answered without asking.
 */

import { DateTime } from 'luxon'
import type { OpenOptions, RecordedCall } from '../../inbox/inbox.ts'
import type { WaitRequest } from '../../inbox/wait.ts'
import type { DecidedCall } from '../../inbox/row_records.ts'
import type { AgentRun } from '../../persistence/models/agent_run.ts'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { questionSetFingerprint, recallOutcome } from '../../questions/memory.ts'
import type { QuestionOutcome, QuestionSet } from '../../questions/types.ts'
import type { AgentDefinition } from '../define_agent.ts'
import type { CallContext } from './context.ts'
import { digestOf } from '../definitions.ts'
import { hasDefinitionDigests } from '../../persistence/schema_features.ts'
import type { LadderStep } from '../../governance/ladder.ts'
import { openedTrace } from '../../telemetry/trace_context.ts'

/**
 * Opens a wait of the run through the inbox and keeps the row in `rows`.
 */
export async function openWait(context: CallContext, wait: WaitRequest, options: OpenOptions) {
  const row = await context.inbox.open(context.run, wait, {
    ...options,
    sequence: context.memory.takeRowSequence(),
    definitionDigest: (await hasDefinitionDigests()) ? digestOf(context.agent) : undefined,
    ...(await openedTrace()),
  })
  context.rows.push(row)
  return row
}

/**
 * Records a call that needs nobody through the inbox and keeps the row in
 * `rows`.
 */
export async function recordCall(context: CallContext, call: RecordedCall, decided?: DecidedCall) {
  const row = await context.inbox.record(context.run, call, {
    sequence: context.memory.takeRowSequence(),
    decided,
  })
  context.rows.push(row)
  return row
}

/**
 * When the waits an agent opens expire, what expiry does, and the ladder
 * before it (the tool's own, for its approvals).
 */
export function expiry(agent: AgentDefinition, tool?: { ladder?: LadderStep[] }) {
  return {
    onExpiry: agent.expiry.onExpiry,
    expiresAt: agent.expiry.ttl ? DateTime.now().plus({ milliseconds: agent.expiry.ttl }) : null,
    ladder: tool?.ladder ?? agent.expiry.ladder,
  }
}

/**
 * Answer memory (docs/design.md §4.5): the outcome of the same question set settled
 * earlier in this run, any attempt, or null.
 */
export async function recall(run: AgentRun, kind: 'ask' | 'intake', set: QuestionSet) {
  const fingerprint = questionSetFingerprint(set)
  const remembered = await ToolCall.query()
    .where('run_id', run.id)
    .where('fingerprint', fingerprint)
    .where('kind', kind)
    .whereIn('status', ['answered', 'expired'])
    .orderBy('sequence', 'asc')
  return recallOutcome(
    set,
    remembered.map((earlier) => ({ fingerprint, outcome: earlier.outcome as QuestionOutcome }))
  )
}
