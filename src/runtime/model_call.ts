/*
 * One model call of a step, through the AI SDK: `generateText`, or
 * `streamText` for an agent with `stream: true`, its text and tool-call
 * deltas told to a watcher as they arrive (step_stream.ts). Either way the
 * caller gets the same answer once the call is over, and journals it as
 * one checkpoint before anything acts on it (run_driver.ts): a stream cut
 * by a dead process left nothing durable, and the next driver calls the
 * model for that step again (docs/design.md §8.6).
 */

import { randomUUID } from 'node:crypto'
import {
  generateText,
  streamText,
  type ModelMessage,
  type TelemetryOptions,
  type ToolSet,
} from 'ai'
import type { AgentDefinition } from './define_agent.ts'
import type { AgentEvents, EventSink } from '../events.ts'
import type { AgentRun } from '../persistence/models/agent_run.ts'
import debug from '../debug.ts'
import { stepWatcher, type StepDelta } from './step_stream.ts'

/** What a step asks the model */
export type ModelRequest = {
  agent: AgentDefinition
  system: string
  messages: ModelMessage[]
  tools: ToolSet
  telemetry: TelemetryOptions
}

/** What the step keeps of the model's answer, streamed or not */
export type ModelAnswer = Pick<
  Awaited<ReturnType<typeof generateText>>,
  'text' | 'toolCalls' | 'finishReason' | 'usage'
> & { response: { messages: Awaited<ReturnType<typeof generateText>>['response']['messages'] } }

/**
 * Calls the model once: streamed when the agent streams, each batch of
 * deltas to `onDelta` (when given). Throws what the AI SDK throws, or the
 * error a stream ended with, so a failed call fails the run the same way
 * whether it streamed or not.
 */
export async function callModel(
  request: ModelRequest,
  onDelta?: (delta: StepDelta) => void
): Promise<ModelAnswer> {
  const { agent, ...prompt } = request
  const options = { model: agent.model, providerOptions: agent.providerOptions, ...prompt }
  if (!agent.stream) return generateText(options)

  // Errors come as a part of the stream, read below: nothing to log here
  const result = streamText({ ...options, onError: () => {} })
  const watcher = onDelta ? stepWatcher(onDelta) : null
  let failure: { error: unknown } | null = null
  try {
    for await (const part of result.stream) {
      if (part.type === 'error') failure = { error: part.error }
      else watcher?.push(part)
    }
  } finally {
    watcher?.end()
  }
  if (failure) throw failure.error
  const [text, toolCalls, finishReason, usage, response] = await Promise.all([
    result.text,
    result.toolCalls,
    result.finishReason,
    result.usage,
    result.response,
  ])
  return { text, toolCalls, finishReason, usage, response }
}

/**
 * Tells `events` of step `step` of `run` as it streams (`agents:step:delta`)
 * and once it is journaled (`agents:step:committed`), under a name of its
 * own; null when nobody listens. A listener that fails is noted with
 * `NODE_DEBUG` and never holds up or fails the step.
 */
export function stepTeller(events: EventSink | undefined, run: AgentRun, step: number) {
  if (!events) return null
  const listened = ['agents:step:delta', 'agents:step:committed'] as const
  if (events.hasListeners && !listened.some((name) => events.hasListeners!(name))) return null
  const stream = randomUUID()
  const tell = <Name extends keyof AgentEvents>(name: Name, data: AgentEvents[Name]) => {
    try {
      void Promise.resolve(events.emit(name, data)).catch((error) => debug('%s %O', name, error))
    } catch (error) {
      debug('%s %O', name, error)
    }
  }
  return {
    delta: (delta: StepDelta) => tell('agents:step:delta', { run, step, stream, ...delta }),
    committed: () => tell('agents:step:committed', { run, step, stream }),
  }
}
