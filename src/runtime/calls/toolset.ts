/*
 * The tools a run's model is offered on each call: the agent's own, and
 * the ask tool only when someone can answer (in strict form when the agent
 * asks for it: questions/strict_schema.ts). The tools have no `execute`:
 * the SDK hands their calls back, the response is journaled, and the loop
 * handles each call from the journal.
 */

import { jsonSchema, tool, type ToolSet } from 'ai'
import type { AgentRun } from '../../persistence/models/agent_run.ts'
import { ASK_TOOL_NAME, askToolDescription, askToolInputSchema } from '../../questions/ask_tool.ts'
import type { AgentDefinition } from '../define_agent.ts'

/**
 * Whether someone can answer this run's questions (docs/design.md §4.1).
 */
export function canAsk(run: AgentRun, agent: AgentDefinition): boolean {
  return agent.askEnabled && run.ownerId !== null && run.parentRunId === null
}

/**
 * Toolsets built so far, by agent and by whether the ask tool is in: the
 * ask tool's JSON Schema is not rebuilt on every model call.
 */
const built = new WeakMap<AgentDefinition, { withAsk?: ToolSet; withoutAsk?: ToolSet }>()

/**
 * The tools the model is offered: the agent's, plus the ask tool only
 * when someone can answer (docs/design.md §4.1).
 */
export function toolset(run: AgentRun, agent: AgentDefinition): ToolSet {
  const withAsk = canAsk(run, agent)
  const known = built.get(agent) ?? {}
  built.set(agent, known)
  const slot = withAsk ? 'withAsk' : 'withoutAsk'
  known[slot] ??= buildToolset(agent, withAsk)
  return known[slot]
}

function buildToolset(agent: AgentDefinition, withAsk: boolean): ToolSet {
  const tools: ToolSet = {}
  for (const definition of agent.tools.values()) {
    tools[definition.name] = tool({
      description: definition.description,
      inputSchema: jsonSchema(definition.jsonSchema as any),
    })
  }
  if (withAsk) {
    const strict = agent.askStrict
    tools[ASK_TOOL_NAME] = tool({
      description: askToolDescription(agent.limits),
      inputSchema: jsonSchema(askToolInputSchema(agent.limits, { strict }) as any),
      ...(strict ? { strict } : {}),
    })
  }
  return tools
}
