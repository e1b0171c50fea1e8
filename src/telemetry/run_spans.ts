/*
 * The spans of a run's drive: the drive itself (one per drive; a run that
 * waits for days is several), each step (the model call, under which the
 * AI SDK's own spans nest, and the read tools that go with it), and each
 * execution of a tool. Attributes follow the OpenTelemetry GenAI semantic
 * conventions (`gen_ai.*`) where one applies.
 */

import type { AgentRun } from '../persistence/models/agent_run.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { activeSpan, inSpan } from './tracing.ts'

export { linkWoken } from './trace_context.ts'
export { modelTelemetry } from './tracing.ts'

/** A drive of run `runId`, its outcome (a status, or `busy`) noted when it ends */
export function driveSpan<T extends string>(runId: string, work: () => Promise<T>): Promise<T> {
  return inSpan(
    'invoke_agent',
    { 'gen_ai.operation.name': 'invoke_agent', 'agent_inbox.run.id': runId },
    async (span) => {
      const status = await work()
      span.setAttribute('agent_inbox.run.status', status)
      return status
    }
  )
}

/** Names the active drive's span after the run it holds, once read */
export function describeDrive(run: AgentRun) {
  const span = activeSpan()
  if (!span.isRecording()) return
  span.updateName(`invoke_agent ${run.agent}`)
  span.setAttributes({
    'gen_ai.agent.name': run.agent,
    'gen_ai.conversation.id': run.id,
    'agent_inbox.run.attempt': run.attempt,
  })
}

/** Step `step` of a run: its model call and the reads that go with it */
export function stepSpan<T>(
  { run, agent }: { run: AgentRun; agent: { model: unknown } },
  step: number,
  work: (step: number) => Promise<T>
): Promise<T> {
  const modelId = (agent.model as { modelId?: string }).modelId
  return inSpan(
    `agent_inbox.step ${step}`,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.agent.name': run.agent,
      'agent_inbox.run.id': run.id,
      'agent_inbox.step': step,
      ...(typeof modelId === 'string' && { 'gen_ai.request.model': modelId }),
    },
    () => work(step)
  )
}

/** Notes a model call's usage and finish on the active step's span */
export function noteModelResult(result: {
  finishReason: string
  usage: { inputTokens?: number; outputTokens?: number }
}) {
  const span = activeSpan()
  if (!span.isRecording()) return
  span.setAttributes({
    'gen_ai.response.finish_reasons': [result.finishReason],
    ...(result.usage.inputTokens !== undefined && {
      'gen_ai.usage.input_tokens': result.usage.inputTokens,
    }),
    ...(result.usage.outputTokens !== undefined && {
      'gen_ai.usage.output_tokens': result.usage.outputTokens,
    }),
  })
}

/** One execution of a tool's handler: its idempotency key and attempt */
export function toolSpan<T>(row: ToolCall, work: () => Promise<T>): Promise<T> {
  return inSpan(
    `execute_tool ${row.toolName}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': row.toolName,
      'gen_ai.tool.call.id': row.toolCallId ?? row.id,
      'agent_inbox.run.id': row.runId ?? '',
      'agent_inbox.row.id': row.id,
      'agent_inbox.idempotency_key': row.idempotencyKey ?? '',
      'agent_inbox.execution.attempt': row.executionAttempts ?? 1,
      'agent_inbox.transactional': Boolean(row.transactional),
    },
    () => work()
  )
}
