/*
 * The app's agents as the runtime holds them, and a fingerprint of what
 * each is, as this deploy defines it: its tools
 * (names, kinds, input schemas), its intake form, its limits, its MCP
 * servers. A run keeps the fingerprint it was started under, and each row
 * the one it was asked under (`definition_digest`), so a later deploy tells
 * the rows asked under another definition of their agent from the others
 * (`node ace agents:inbox --changed`, docs/guides/deploying_while_runs_wait.md).
 * What a model call reads anew each time (instructions, the model,
 * provider options) is left out: it changes nothing already asked.
 */

import { createHash } from 'node:crypto'
import { questionSetFingerprint } from '../questions/memory.ts'
import { schemaDigest } from './calls/current_tool.ts'
import type { AgentDefinition } from './define_agent.ts'
import type { QuestionLimits } from '../questions/types.ts'
import { DEFAULT_LIMITS, resolveLimits } from '../questions/values.ts'

const digests = new WeakMap<AgentDefinition, string>()

/**
 * The digest of `agent`, computed once per definition: the runtime asks
 * for it as it takes the app's agents, before any MCP tool is listed.
 */
export function digestOf(agent: AgentDefinition): string {
  let digest = digests.get(agent)
  if (digest === undefined) {
    digest = definitionDigest(agent)
    digests.set(agent, digest)
  }
  return digest
}

/**
 * The digest of `agent` as defined by the app (before any MCP tool is
 * listed: those are named by their servers). An intake that is a function
 * of the input is named as such: its forms cannot be known ahead.
 */
export function definitionDigest(agent: AgentDefinition): string {
  const tools = [...agent.tools.values()]
    .map((tool) => [tool.name, tool.kind, schemaDigest(tool)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const intake =
    typeof agent.intake === 'function'
      ? 'by input'
      : agent.intake
        ? questionSetFingerprint(agent.intake)
        : null
  const described = {
    tools,
    intake,
    ask: agent.askEnabled,
    limits: agent.limits,
    maxSteps: agent.maxSteps,
    mcp: agent.mcp.map((server) => server.name),
  }
  return createHash('sha256').update(JSON.stringify(described)).digest('base64url')
}

/**
 * What became of the definition a row was asked under: `unknown` for a row
 * written before fingerprints were kept (or outside a run).
 */
export type SinceAsked = 'unchanged' | 'changed' | 'agent-removed' | 'unknown'

/**
 * Compares the fingerprint a row was asked under with its agent's now.
 *
 * @example
 * sinceAsked(row.definitionDigest, run.agent, agents.definitions) // 'changed'
 */
export function sinceAsked(
  digest: string | null,
  agent: string | null | undefined,
  definitions: Map<string, AgentDefinition>
): SinceAsked {
  if (!agent) return 'unknown'
  const defined = definitions.get(agent)
  if (!defined) return 'agent-removed'
  if (digest === null) return 'unknown'
  return digestOf(defined) === digest ? 'unchanged' : 'changed'
}

/** The part of a rows query `askedUnderAnother` uses */
type RowConditions = {
  where(callback: (query: RowConditions) => void): RowConditions
  orWhere(callback: (query: RowConditions) => void): RowConditions
  whereIn(column: string, values: unknown): RowConditions
  whereNot(column: string, value: unknown): RowConditions
}

/**
 * Narrows a rows query to the rows asked under a definition other than
 * their agent's now, or whose agent is gone. Rows with no fingerprint are
 * left out: nothing says what they were asked under.
 */
export function askedUnderAnother<Query extends RowConditions>(
  query: Query,
  definitions: Map<string, AgentDefinition>,
  runsOf: (agents: string[], except?: boolean) => unknown
): Query {
  const names = [...definitions.keys()]
  query.where((changed) => {
    changed.whereIn('run_id', runsOf(names, true))
    for (const name of names) {
      changed.orWhere((agent) =>
        agent
          .whereIn('run_id', runsOf([name]))
          .whereNot('definition_digest', digestOf(definitions.get(name)!))
      )
    }
  })
  return query
}

/**
 * The app's agents as a runtime holds them, by name, each fingerprinted
 * before any MCP tool joins it. The config's limits are every agent's
 * defaults. An agent's own limits arrive resolved over DEFAULT_LIMITS, so
 * a key it set is one that differs from the default: that key wins, the
 * others come from config (so an agent that sets a key to its default
 * value takes the config's).
 */
export function runtimeDefinitions(
  agents: AgentDefinition[],
  configured?: Partial<QuestionLimits>
): Map<string, AgentDefinition> {
  const definitions = new Map<string, AgentDefinition>()
  const configLimits = resolveLimits(configured)
  for (const agent of agents) {
    if (definitions.has(agent.name)) {
      throw new Error(`Two agents are named "${agent.name}"; agent names must be unique`)
    }
    const limits = { ...configLimits }
    for (const key of Object.keys(DEFAULT_LIMITS) as (keyof QuestionLimits)[]) {
      if (agent.limits[key] !== DEFAULT_LIMITS[key]) limits[key] = agent.limits[key]
    }
    // Tools of its own: an agent's MCP tools are added per runtime (mcp_tools.ts)
    const defined = { ...agent, limits, tools: new Map(agent.tools) }
    digestOf(defined)
    definitions.set(agent.name, defined)
  }
  return definitions
}
