/*
 * Events the runtime emits through `@adonisjs/events`, so apps can notify
 * people (mail, chat) when a row waits for them or a run ends.
 */

import type { AgentRun } from './persistence/models/agent_run.ts'
import type { ToolCall } from './persistence/models/tool_call.ts'

export type AgentEvents = {
  'agents:run:started': { run: AgentRun }
  'agents:run:waiting': { run: AgentRun }
  'agents:run:resumed': { run: AgentRun }
  'agents:run:completed': { run: AgentRun }
  'agents:run:failed': { run: AgentRun }
  'agents:run:cancelled': { run: AgentRun }
  'agents:row:created': { row: ToolCall }
  'agents:row:settled': { row: ToolCall }
}

/**
 * The part of the Adonis emitter the runtime uses.
 */
export type EventSink = {
  emit<Name extends keyof AgentEvents>(name: Name, data: AgentEvents[Name]): Promise<void> | void
  /** Lets the runtime skip reading what only a listener would get */
  hasListeners?(name: keyof AgentEvents): boolean
}
