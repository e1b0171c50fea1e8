/*
 * Agents: a model, instructions, tools, an optional intake form, the
 * ask tool's settings and the options every model call gets (streamed or
 * not). Definitions are checked when they are made (at boot,
 * from config/agents.ts), so a misconfigured agent never starts a run.
 */

import type { generateText, LanguageModel } from 'ai'
import { E_RESERVED_TOOL_NAME } from '../errors.ts'
import { ASK_TOOL_NAME } from '../questions/ask_tool.ts'
import type { ExpiryRule } from '../questions/settle.ts'
import type { QuestionLimits, QuestionSet } from '../questions/types.ts'
import { resolveLimits } from '../questions/values.ts'
import type { ToolDefinition } from './define_tool.ts'
import type { McpServerConfig } from '../mcp_client/types.ts'
import { checkedLadder, type LadderStep } from '../governance/ladder.ts'
import type { RunSight } from '../governance/view.ts'

/**
 * The intake: a question set, or a function of the run's input returning
 * one (or nothing, to skip the intake for this input).
 */
export type Intake =
  | QuestionSet
  | ((input: unknown) => QuestionSet | null | undefined | Promise<QuestionSet | null | undefined>)

/**
 * How long a pending row may wait, and what happens then (docs/design.md §6.6).
 */
export type ExpiryOptions = {
  /** Milliseconds a row may stay pending; none by default */
  ttl?: number
  onExpiry?: ExpiryRule
  /** Steps before the expiry: remind, reassign (docs/design.md §7.7) */
  ladder?: LadderStep[]
}

/**
 * Options for the model's provider, by provider name, as `generateText`
 * takes them: `{ openai: { store: false, reasoningEffort: 'low' } }`.
 */
export type ProviderOptions = NonNullable<Parameters<typeof generateText>[0]['providerOptions']>

export type AskOptions = {
  /** Offer the ask tool; default true (it is still absent when nobody can answer) */
  enabled?: boolean
  limits?: Partial<QuestionLimits>
  /**
   * Offer the ask tool as a strict tool: its schema in the form strict
   * tool calling accepts (every property required, optional ones
   * nullable), marked `strict` for providers that hold the model to it
   * (OpenAI). Default false
   */
  strict?: boolean
}

/**
 * What the people who decide a run's rows without reading the run (a
 * quorum's approvers, a reassigned approver) are shown of it
 * (docs/guides/governance.md#what-an-approver-sees).
 */
export type ApproversOptions = {
  /**
   * `rows` (the default): the rows they decide, the agent's name, who asked
   * and the run's status, not the run's input, transcript or other rows;
   * `run`: the whole run, as its owner sees it
   */
  see?: RunSight
}

export type AgentOptions = {
  name: string
  model: LanguageModel
  instructions: string | ((input: unknown) => string)
  tools?: ToolDefinition[]
  intake?: Intake
  ask?: AskOptions
  /** Passed to every model call of the agent's runs (docs/guides/agents_and_tools.md) */
  providerOptions?: ProviderOptions
  /** Model calls a run may make; default 20 */
  maxSteps?: number
  expiry?: ExpiryOptions
  /** MCP servers whose tools the agent may call (docs/guides/mcp.md) */
  mcp?: McpServerConfig[]
  /** What approvers who may not read a run see of it; default only their rows */
  approvers?: ApproversOptions
  /**
   * Stream each model call (`streamText`): its text and tool calls go live to
   * the run's page as they arrive; the journal still saves each step once,
   * when its call ends. Default false (docs/guides/agents_and_tools.md#streaming-steps)
   */
  stream?: boolean
}

export type AgentDefinition = {
  name: string
  model: LanguageModel
  instructions: (input: unknown) => string
  tools: Map<string, ToolDefinition>
  intake?: Intake
  askEnabled: boolean
  /** The ask tool is offered in strict form (`ask.strict`) */
  askStrict: boolean
  limits: QuestionLimits
  providerOptions?: ProviderOptions
  maxSteps: number
  expiry: { ttl?: number; onExpiry: ExpiryRule; ladder?: LadderStep[] }
  mcp: McpServerConfig[]
  /** What approvers who may not read a run see of it (`approvers.see`) */
  approversSee: RunSight
  /** Model calls stream (`stream`) */
  stream: boolean
}

/**
 * Defines an agent. Throws `E_RESERVED_TOOL_NAME` when one of its tools is
 * named like the built-in ask tool (docs/design.md §4.6), and a plain error for
 * duplicate tool names or a bad `maxSteps`.
 *
 * @example
 * export const deployer = defineAgent({
 *   name: 'deployer',
 *   model: openai('gpt-5'),
 *   instructions: 'You deploy services safely.',
 *   tools: [readLogs, deploy],
 * })
 */
export function defineAgent(options: AgentOptions): AgentDefinition {
  const tools = new Map<string, ToolDefinition>()
  for (const tool of options.tools ?? []) {
    if (tool.name === ASK_TOOL_NAME) throw new E_RESERVED_TOOL_NAME([tool.name, options.name])
    if (tools.has(tool.name)) {
      throw new Error(`Agent "${options.name}" has two tools named "${tool.name}"`)
    }
    tools.set(tool.name, tool)
  }
  const maxSteps = options.maxSteps ?? 20
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new Error(`Agent "${options.name}": maxSteps must be a whole number >= 1`)
  }
  const instructions = options.instructions

  return {
    name: options.name,
    model: options.model,
    instructions: typeof instructions === 'function' ? instructions : () => instructions,
    tools,
    intake: options.intake,
    askEnabled: options.ask?.enabled ?? true,
    askStrict: options.ask?.strict ?? false,
    limits: resolveLimits(options.ask?.limits),
    providerOptions: options.providerOptions,
    maxSteps,
    expiry: {
      ttl: options.expiry?.ttl,
      onExpiry: options.expiry?.onExpiry ?? 'defaults',
      ...checkedLadder(
        `Agent "${options.name}": expiry.`,
        options.expiry?.ladder,
        options.expiry?.ttl
      ),
    },
    mcp: options.mcp ?? [],
    approversSee: approversSight(options),
    stream: options.stream === true,
  }
}

/** `approvers.see`, checked: a typo must not show a run's input to its approvers */
function approversSight(options: AgentOptions): RunSight {
  const see = options.approvers?.see ?? 'rows'
  if (see !== 'rows' && see !== 'run') {
    throw new Error(`Agent "${options.name}": approvers.see must be 'rows' or 'run'`)
  }
  return see
}
