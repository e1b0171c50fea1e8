/*
 * A model for tests that needs no network: the AI SDK's mock model playing
 * a script, one step per model call. The package's own tests, its demo and
 * an app's agent tests all use this one; `adonis-agent-inbox/testing`
 * exports it.
 *
 * Two ways to pick the step a call plays:
 *  - `by: 'call'` (the default): the nth call of this model plays step n.
 *    One model per test; a provider error step followed by a good one
 *    tests the AI SDK's retries.
 *  - `by: 'turn'`: the step is the number of model responses already in the
 *    conversation. One model then serves any number of runs at once, and a
 *    run resumed by another process carries on where it stopped, just as
 *    with a real model (the demo's and the fixture's agents).
 */

import { setTimeout as sleep } from 'node:timers/promises'
import { MockLanguageModelV4 } from 'ai/test'
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import { APICallError } from '@ai-sdk/provider'
import type { QuestionSet } from '../questions/types.ts'

/**
 * What a step function sees: the model call's options (its `prompt` and
 * `tools`), the run's first user message, the tool results the model was
 * sent since its last response, and the step's index.
 */
export type TurnContext = LanguageModelV4CallOptions & {
  input: string
  results: SentToolResult[]
  turn: number
}

/**
 * One tool result the model was sent, flattened to text.
 */
export type SentToolResult = { toolCallId: string; toolName: string; type: string; value: string }

/**
 * A step: the content the model answers with (text, tool calls), a
 * function of the call returning it, or an Error the call throws.
 */
export type ScriptStep =
  | LanguageModelV4Content[]
  | Error
  | ((context: TurnContext) => LanguageModelV4Content[] | Promise<LanguageModelV4Content[]>)

export type ScriptOptions = {
  /** How a call picks its step; see the module comment. Default 'call' */
  by?: 'call' | 'turn'
  /** The model's provider and id, as `generateText` reports them */
  provider?: string
  modelId?: string
  /**
   * How many of the latest calls `model.doGenerateCalls` (and `doStreamCalls`) keeps (each holds
   * its whole prompt); default 100. A model driving a long-lived app (the
   * demo, a soak) would otherwise keep every prompt it was ever sent.
   */
  keepCalls?: number
  /** How a streamed call (`streamText`, an agent's `stream: true`) plays its step */
  stream?: StreamOptions
}

/**
 * How a streamed call cuts its step: text and each tool call's JSON input
 * in pieces of `chunkSize` characters (default 8), `chunkDelay` ms apart
 * (default 0), `onChunk` awaited before each piece with its index (a test
 * can stop, or kill, a step mid-stream there).
 */
export type StreamOptions = {
  chunkSize?: number
  chunkDelay?: number
  onChunk?: (index: number) => void | Promise<void>
}

/** The calls a scripted model keeps unless told otherwise */
export const KEPT_CALLS = 100

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/**
 * What a mock model returns for a step's content: the finish reason follows
 * from whether it calls tools.
 */
export function generateResult(content: LanguageModelV4Content[]) {
  const calls = content.some((part) => part.type === 'tool-call')
  return {
    content,
    finishReason: { unified: calls ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
    usage: USAGE,
    warnings: [],
  }
}

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

function contextOf(options: LanguageModelV4CallOptions, turn: number): TurnContext {
  const user = options.prompt.find((message) => message.role === 'user')
  const input = user
    ? user.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
    : ''
  const lastResponse = options.prompt.findLastIndex((message) => message.role === 'assistant')
  const results = toolResults({ ...options, prompt: options.prompt.slice(lastResponse + 1) })
  return { ...options, input, results, turn }
}

/**
 * A model playing `steps`; a call past the end fails loudly instead of
 * inventing an answer (the run fails with `E_PROVIDER`). A single function
 * instead of a list plays every call (a model that decides from its
 * prompt). The latest calls it received (`keepCalls`, 100 by default) are on
 * `model.doGenerateCalls`.
 *
 * @example
 * const model = scriptedModel([
 *   [ask('c1', { questions: [...] })],
 *   ({ results }) => [say(`Received: ${results[0].value}`)],
 * ])
 */
export function scriptedModel(
  steps: ScriptStep[] | Extract<ScriptStep, Function>,
  options: ScriptOptions = {}
) {
  let calls = 0
  const keep = options.keepCalls ?? KEPT_CALLS
  const trim = (kept: LanguageModelV4CallOptions[]) => {
    if (kept.length > keep) kept.splice(0, kept.length - keep)
  }
  /** The content of the step this call plays, whether generated or streamed */
  const play = async (callOptions: LanguageModelV4CallOptions) => {
    const turn =
      options.by === 'turn'
        ? callOptions.prompt.filter((message) => message.role === 'assistant').length
        : calls++
    const step = typeof steps === 'function' ? steps : steps[turn]
    if (!step) throw new Error(`The scripted model has no step ${turn + 1}`)
    if (step instanceof Error) throw step
    return typeof step === 'function' ? await step(contextOf(callOptions, turn)) : step
  }
  const model = new MockLanguageModelV4({
    provider: options.provider,
    modelId: options.modelId,
    doGenerate: async (callOptions) => {
      trim(model.doGenerateCalls)
      return generateResult(await play(callOptions))
    },
    doStream: async (callOptions) => {
      trim(model.doStreamCalls)
      return { stream: streamOf(await play(callOptions), options.stream) }
    },
  })
  return model
}

/**
 * A step's content as a provider streams it: each text in deltas, each
 * tool call's input in deltas and then the whole call, then the finish.
 * Pulled, so `onChunk` runs as the consumer reads.
 */
function streamOf(
  content: LanguageModelV4Content[],
  options: StreamOptions = {}
): ReadableStream<LanguageModelV4StreamPart> {
  const size = options.chunkSize ?? 8
  const pieces = (text: string) => {
    const cut: string[] = []
    for (let at = 0; at < text.length; at += size) cut.push(text.slice(at, at + size))
    return cut
  }
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }]
  for (const [index, part] of content.entries()) {
    if (part.type === 'text') {
      const id = `text-${index}`
      parts.push({ type: 'text-start', id })
      for (const delta of pieces(part.text)) parts.push({ type: 'text-delta', id, delta })
      parts.push({ type: 'text-end', id })
    } else if (part.type === 'tool-call') {
      const id = part.toolCallId
      parts.push({ type: 'tool-input-start', id, toolName: part.toolName })
      for (const delta of pieces(part.input)) parts.push({ type: 'tool-input-delta', id, delta })
      parts.push({ type: 'tool-input-end', id }, part)
    } else {
      parts.push(part as LanguageModelV4StreamPart)
    }
  }
  const { finishReason, usage } = generateResult(content)
  parts.push({ type: 'finish', finishReason, usage })

  let next = 0
  return new ReadableStream({
    async pull(controller) {
      if (next === parts.length) return controller.close()
      if (next > 0 && options.chunkDelay) await sleep(options.chunkDelay)
      await options.onChunk?.(next)
      controller.enqueue(parts[next++])
    },
  })
}

/**
 * Text the model answers with; a step of text alone ends the run.
 */
export function say(text: string): LanguageModelV4Content {
  return { type: 'text', text }
}

/**
 * A call of a tool; `input` is sent as JSON (a string is sent as is, for
 * malformed input).
 */
export function call(toolCallId: string, toolName: string, input: unknown): LanguageModelV4Content {
  return {
    type: 'tool-call',
    toolCallId,
    toolName,
    input: typeof input === 'string' ? input : JSON.stringify(input),
  }
}

/**
 * A call of the built-in ask tool with a question set.
 */
export function ask(toolCallId: string, set: QuestionSet): LanguageModelV4Content {
  return call(toolCallId, 'ask', set)
}

/**
 * A step that throws `error`, as a provider's client would.
 */
export function failWith(error: Error): ScriptStep {
  return () => {
    throw error
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
 * The system prompt of one model call.
 */
export function systemText(options: LanguageModelV4CallOptions): string {
  return options.prompt
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n')
}
