/*
 * Events the runtime emits through `@adonisjs/events`, so apps can notify
 * people (mail, chat) when a row waits for them or a run ends, and watch a
 * streaming agent's step as it arrives.
 */

import type { AgentRun } from './persistence/models/agent_run.ts'
import type { ToolCall } from './persistence/models/tool_call.ts'
import type { ToolInputDelta } from './runtime/step_stream.ts'

/**
 * A streaming step of a run (an agent with `stream: true`): `step` is the
 * model call's number in the run's attempt, `stream` names this call of it
 * (a step called again after a crash streams under another name).
 */
export type StepStreamEvent = { run: AgentRun; step: number; stream: string }

export type AgentEvents = {
  'agents:run:started': { run: AgentRun }
  'agents:run:waiting': { run: AgentRun }
  'agents:run:resumed': { run: AgentRun }
  'agents:run:completed': { run: AgentRun }
  'agents:run:failed': { run: AgentRun }
  'agents:run:cancelled': { run: AgentRun }
  'agents:row:created': { row: ToolCall }
  'agents:row:settled': { row: ToolCall }
  /** Text and tool-call input that arrived since the last delta (batched: step_stream.ts) */
  'agents:step:delta': StepStreamEvent & { text: string; toolInputs: ToolInputDelta[] }
  /** The step's response was journaled: what its deltas showed is replaced by it */
  'agents:step:committed': StepStreamEvent
}

/**
 * The part of the Adonis emitter the runtime uses.
 */
export type EventSink = {
  emit<Name extends keyof AgentEvents>(name: Name, data: AgentEvents[Name]): Promise<void> | void
  /** Lets the runtime skip reading what only a listener would get */
  hasListeners?(name: keyof AgentEvents): boolean
}
