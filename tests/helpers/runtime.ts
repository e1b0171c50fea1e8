/*
 * A scripted model for runtime tests: the AI SDK's MockLanguageModelV4,
 * answering each model call with the next scripted step and recording
 * every prompt, so tests can assert what the model was told.
 */

import { MockLanguageModelV4 } from 'ai/test'
import type { LanguageModelV4CallOptions, LanguageModelV4Content } from '@ai-sdk/provider'
import vine from '@vinejs/vine'
import { Agents, type AgentsOptions } from '../../src/runtime/agents.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import type { QuestionSet } from '../../src/questions/types.ts'

export type ScriptStep =
  | LanguageModelV4Content[]
  | ((
      options: LanguageModelV4CallOptions
    ) => LanguageModelV4Content[] | Promise<LanguageModelV4Content[]>)

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/**
 * A model that plays `steps` in order; a call past the end fails the test
 * loudly instead of inventing an answer.
 */
export function scriptedModel(steps: ScriptStep[]) {
  let next = 0
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const step = steps[next++]
      if (!step) throw new Error(`The scripted model has no step ${next}`)
      const content = typeof step === 'function' ? await step(options) : step
      const calls = content.some((part) => part.type === 'tool-call')
      return {
        content,
        finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined },
        usage: USAGE,
        warnings: [],
      }
    },
  })
}

export function say(text: string): LanguageModelV4Content {
  return { type: 'text', text }
}

export function call(toolCallId: string, toolName: string, input: unknown): LanguageModelV4Content {
  return {
    type: 'tool-call',
    toolCallId,
    toolName,
    input: typeof input === 'string' ? input : JSON.stringify(input),
  }
}

export function ask(toolCallId: string, set: QuestionSet): LanguageModelV4Content {
  return call(toolCallId, 'ask', set)
}

/**
 * Everything the model was sent in one call, flattened to text, so a test
 * can look for what a tool result or an answer said.
 */
export function promptText(options: LanguageModelV4CallOptions): string {
  return JSON.stringify(options.prompt)
}

/**
 * The names of the tools offered in one model call.
 */
export function offeredTools(options: LanguageModelV4CallOptions): string[] {
  return (options.tools ?? []).map((offered) => offered.name)
}

/**
 * A deploy action that records each execution, and a read tool.
 */
export function deployTools() {
  const executions: Array<{ branch: string; force: boolean }> = []
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a branch to production',
    kind: 'action',
    input: vine.object({ branch: vine.string().minLength(1), force: vine.boolean().optional() }),
    summary: ({ branch }) => `Deploy ${branch} to production`,
    handle: async ({ branch, force }) => {
      executions.push({ branch, force: force ?? false })
      return { deployed: branch }
    },
  })
  const readLogs = defineTool({
    name: 'read_logs',
    description: 'Read the last log lines of a service',
    kind: 'read',
    input: vine.object({ service: vine.string() }),
    handle: async ({ service }) => `${service}: all quiet`,
  })
  return { deploy, readLogs, executions }
}

/**
 * A runtime on the test app's database.
 */
export function createAgents(options: AgentsOptions) {
  return new Agents(options)
}

export const DB_QUESTION: QuestionSet = {
  questions: [
    {
      id: 'db',
      prompt: 'Which database?',
      options: [
        { value: 'pg', label: 'PostgreSQL' },
        { value: 'mysql', label: 'MySQL' },
      ],
      defaults: ['pg'],
    },
  ],
}
