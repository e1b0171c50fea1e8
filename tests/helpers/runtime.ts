/*
 * A scripted model for runtime tests: the AI SDK's MockLanguageModelV4,
 * answering each model call with the next scripted step and recording
 * every prompt, so tests can assert what the model was told.
 */

import { MockLanguageModelV4 } from 'ai/test'
import type { LanguageModelV4CallOptions, LanguageModelV4Content } from '@ai-sdk/provider'
import { APICallError } from '@ai-sdk/provider'
import vine from '@vinejs/vine'
import { generateResult } from '../../fixtures/app/app/agents/scripted_model.ts'
import { Agents, type AgentsOptions } from '../../src/runtime/agents.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { QuestionSet } from '../../src/questions/types.ts'

export type ScriptStep =
  | LanguageModelV4Content[]
  | ((
      options: LanguageModelV4CallOptions
    ) => LanguageModelV4Content[] | Promise<LanguageModelV4Content[]>)

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
      return generateResult(typeof step === 'function' ? await step(options) : step)
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
 * An action that needs no approval, writing its text down in `notes`, and
 * a read tool, `look`, whose keys go to `reads`.
 */
export function noteTools(notes: string[], reads: string[] = []) {
  const note = defineTool({
    name: 'note',
    description: 'Write a note down',
    kind: 'action',
    needsApproval: false,
    input: vine.object({ text: vine.string() }),
    handle: async ({ text }) => {
      notes.push(text)
      return 'noted'
    },
  })
  const look = defineTool({
    name: 'look',
    description: 'Look something up',
    kind: 'read',
    input: vine.object({ key: vine.string() }),
    handle: async ({ key }) => {
      reads.push(key)
      return `value of ${key}`
    },
  })
  return { note, look }
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

/*
 * Helpers of the runtime scenario suites (tests/runtime/*.spec.ts).
 */

/**
 * One tool result the model was sent, flattened.
 */
export type SentToolResult = { toolCallId: string; toolName: string; type: string; value: string }

/**
 * Every tool result in one model call's prompt, in order, so a test can
 * check exactly what the model read for one tool call.
 */
export function toolResults(options: LanguageModelV4CallOptions): SentToolResult[] {
  const results: SentToolResult[] = []
  for (const message of options.prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue
      const output = part.output as { type: string; value?: unknown }
      results.push({
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        type: output.type,
        value: typeof output.value === 'string' ? output.value : JSON.stringify(output.value),
      })
    }
  }
  return results
}

/**
 * The result one tool call got, as the model read it in this call.
 */
export function toolResultOf(options: LanguageModelV4CallOptions, toolCallId: string) {
  const found = toolResults(options).find((result) => result.toolCallId === toolCallId)
  if (!found) throw new Error(`The model was sent no result for tool call "${toolCallId}"`)
  return found
}

/**
 * The system prompt of one model call.
 */
export function systemText(options: LanguageModelV4CallOptions): string {
  return options.prompt
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n')
}

/**
 * An events sink recording the names it was sent, in order.
 */
export function eventRecorder() {
  const names: string[] = []
  return {
    names,
    emit(name: string) {
      names.push(name)
    },
  }
}

/**
 * A provider error as an API client throws it. Retryable ones carry a
 * `retry-after-ms: 0` header, so the AI SDK's own retries (2 by default)
 * happen at once instead of after seconds of back-off.
 */
export function providerError(retryable: boolean) {
  return new APICallError({
    message: retryable ? 'Overloaded, try again' : 'Invalid API key',
    url: 'https://model.test/v1/generate',
    requestBodyValues: {},
    statusCode: retryable ? 529 : 401,
    responseHeaders: retryable ? { 'retry-after-ms': '0' } : {},
    isRetryable: retryable,
  })
}

/**
 * A script step that throws `error`.
 */
export function failWith(error: Error): ScriptStep {
  return () => {
    throw error
  }
}

/**
 * The rows of a run, in order.
 */
export function rowsOf(runId: string) {
  return ToolCall.query().where('run_id', runId).orderBy('sequence', 'asc')
}

/**
 * A one-question set with two options, the first pre-picked.
 */
export function choice(id: string, prompt: string, labels: [string, string]): QuestionSet {
  return {
    questions: [
      {
        id,
        prompt,
        options: [
          { value: `${id}-a`, label: labels[0] },
          { value: `${id}-b`, label: labels[1] },
        ],
        defaults: [`${id}-a`],
      },
    ],
  }
}
