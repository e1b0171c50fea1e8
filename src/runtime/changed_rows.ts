/*
 * What changed since a pending row was asked, against the running deploy
 * (docs/guides/deploying_while_runs_wait.md): its run's agent or its tool
 * is gone, its args no longer fit the tool's input schema, or a policy in
 * force now denies it. The cards say it (`changed`, src/http/cards.ts) and
 * the settle refuses what can no longer happen (./approval_check.ts), from
 * the same reading. No query here: the caller gives the rows and their
 * runs, read once per page; the app's policies are asked at most once per
 * row and args for one reader, which lives for one request.
 */

import type { AgentRun } from '../persistence/models/agent_run.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { QuestionIssue } from '../questions/types.ts'
import { waitsForAnswers } from '../inbox/wait.ts'
import { decide, type ApprovalsConfig, type PolicyDecision } from '../governance/policy.ts'
import debug from '../debug.ts'
import type { AgentDefinition } from './define_agent.ts'
import type { ToolDefinition } from './define_tool.ts'
import { checkedUnder, currentArgsIssues } from './calls/current_tool.ts'
import { policyCallOf } from './calls/governed.ts'

/**
 * What changed since a pending row was asked, as its card tells it:
 *  - `agent-removed`: the run's agent is not defined any more; the run can
 *    only be closed
 *  - `tool-removed`: the call's tool is gone; it can only be rejected
 *  - `policy-denies`: a policy in force denies the call; it can only be
 *    rejected (an approval is refused, and rejects it by the policy)
 *  - `policy-failed`: the policy threw; an approval is refused until it
 *    can decide
 *  - `schema-changed`: the tool's input schema refuses the args asked; it
 *    can be approved only with args edited to `schema`, starting from
 *    `prefill` (the args asked, less the fields that no longer fit)
 */
export type RowChange =
  | { kind: 'agent-removed'; agent: string }
  | { kind: 'tool-removed' }
  | { kind: 'policy-denies'; reason: string; rule?: string }
  | { kind: 'policy-failed' }
  | {
      kind: 'schema-changed'
      schema: Record<string, unknown>
      prefill: Record<string, unknown>
      issues: QuestionIssue[]
    }

/** The run of a row, as far as a policy sees it */
export type RowRun = Pick<AgentRun, 'id' | 'agent' | 'ownerId'>

/** What the running deploy defines of a row's tool */
export type ToolState =
  | { state: 'agent-removed' | 'tool-removed' | 'unknown' }
  | { state: 'defined'; definition: ToolDefinition }

/** A policy's verdict on a waiting row, or that it threw */
export type WaitingVerdict = PolicyDecision | null | { decision: 'failed' }

/**
 * The tool of a pending row of `agent`'s, as the running deploy defines
 * it. A tool of an MCP server is known only once the agent's servers are
 * connected in this process (./mcp_tools.ts): until then it is `unknown`,
 * never called removed.
 */
export function toolStateOf(
  definitions: Map<string, AgentDefinition>,
  agent: string,
  toolName: string
): ToolState {
  const definition = definitions.get(agent)
  if (!definition) return { state: 'agent-removed' }
  const tool = definition.tools.get(toolName)
  if (tool) return { state: 'defined', definition: tool }
  return { state: definition.mcp.length > 0 ? 'unknown' : 'tool-removed' }
}

/**
 * The args of `args` whose top-level fields no issue names, and that the
 * JSON Schema still has: what an edit form in the new schema starts from.
 * Pure.
 *
 * @example
 * prefillOf({ branch: 'main', env: 'prod' }, { properties: { ref: {}, env: {} } }, [{ path: 'ref', message: 'is required' }])
 * // { env: 'prod' }
 */
export function prefillOf(
  args: unknown,
  schema: Record<string, unknown>,
  issues: QuestionIssue[]
): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return {}
  const properties = (schema.properties ?? {}) as Record<string, unknown>
  const broken = new Set(issues.map((issue) => issue.path.split(/[.[]/)[0]))
  return Object.fromEntries(
    Object.entries(args).filter(([key]) => Object.hasOwn(properties, key) && !broken.has(key))
  )
}

/**
 * Reads what changed for the rows of one request. Policies are app code:
 * each is asked once per row and args, and one that throws is reported
 * (`policy-failed`), never thrown at the page.
 *
 * @example
 * const reader = new ChangedRows(agents.definitions, agents.approvals)
 * const change = await reader.change(row, run)
 */
export class ChangedRows {
  #verdicts = new Map<string, Promise<WaitingVerdict>>()

  constructor(
    readonly definitions: Map<string, AgentDefinition>,
    readonly approvals: ApprovalsConfig
  ) {}

  /**
   * The verdict of the policies in force (the tool's, else the app's) on
   * the row's call with `args`; null when none has an opinion.
   */
  verdict(row: ToolCall, run: RowRun, tool: ToolDefinition, args: unknown) {
    if (!tool.policy && !this.approvals.policy) return Promise.resolve(null)
    const key = `${row.id}\n${JSON.stringify(args ?? null)}`
    let verdict = this.#verdicts.get(key)
    if (!verdict) {
      const call = policyCallOf(run, tool, args)
      verdict = decide(call, [tool.policy, this.approvals.policy]).catch((error) => {
        debug('the policy of row %s failed %O', row.id, error)
        return { decision: 'failed' as const }
      })
      this.#verdicts.set(key, verdict)
    }
    return verdict
  }

  /**
   * What changed for one pending row of `run`; undefined when nothing did
   * (or the row is not pending, or belongs to no run).
   */
  async change(row: ToolCall, run: RowRun | undefined): Promise<RowChange | undefined> {
    if (row.status !== 'pending' || !run) return undefined
    const tool = toolStateOf(this.definitions, run.agent, row.toolName)
    if (tool.state === 'agent-removed') return { kind: 'agent-removed', agent: run.agent }
    // A question set asks nothing of a tool; a link is settled where it leads
    if (waitsForAnswers(row) || typeof row.request?.link === 'string') return undefined
    if (tool.state === 'tool-removed') return { kind: 'tool-removed' }
    if (tool.state !== 'defined') return undefined
    const args = row.request?.args
    const verdict = await this.verdict(row, run, tool.definition, args)
    if (verdict?.decision === 'failed') return { kind: 'policy-failed' }
    if (verdict?.decision === 'deny') {
      return { kind: 'policy-denies', reason: verdict.reason, ...ruleOf(verdict) }
    }
    const issues = await currentArgsIssues(tool.definition, checkedUnder(row), args)
    if (issues.length === 0) return undefined
    const schema = tool.definition.jsonSchema
    return { kind: 'schema-changed', schema, prefill: prefillOf(args, schema, issues), issues }
  }

  /**
   * What changed for each of `rows` (their runs by id), by row id: only
   * the rows where something did.
   */
  async of(rows: ToolCall[], runs: Map<string, RowRun>): Promise<Map<string, RowChange>> {
    const changes = new Map<string, RowChange>()
    for (const row of rows) {
      const change = await this.change(row, row.runId ? runs.get(row.runId) : undefined)
      if (change) changes.set(row.id, change)
    }
    return changes
  }
}

/**
 * What changed for each of `rows` since it was asked, against the agents
 * and policies of `agents` (the runtime), by row id: one reader for one
 * request.
 *
 * @example
 * const changes = await changedRows(agents, rows, new Map(runs.map((run) => [run.id, run])))
 */
export function changedRows(
  agents: { definitions: Map<string, AgentDefinition>; approvals: ApprovalsConfig },
  rows: ToolCall[],
  runs: Map<string, RowRun>
): Promise<Map<string, RowChange>> {
  return new ChangedRows(agents.definitions, agents.approvals).of(rows, runs)
}

function ruleOf(verdict: PolicyDecision): { rule?: string } {
  return verdict.rule ? { rule: verdict.rule } : {}
}
