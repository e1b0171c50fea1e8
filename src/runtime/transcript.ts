/*
 * Rebuilds the conversation a run had with its model from the run journal.
 * Pure: it reads checkpoint payloads and returns AI SDK model messages, so
 * a run resumed on another process sends exactly what it would have sent.
 */

import type { ModelMessage } from 'ai'

/**
 * One tool call as the model made it, saved with its response.
 */
export type SavedToolCall = {
  toolCallId: string
  toolName: string
  input: unknown
  /** The SDK could not parse it or knows no such tool; its error is in `messages` */
  invalid: boolean
}

export type ToolOutput = { type: 'text' | 'error-text'; value: string }

/**
 * Payloads of the journal's entries, by kind.
 */
export type JournalPayloads = {
  'input': { text: string }
  'intake': { text: string | null }
  'model-response': {
    messages: ModelMessage[]
    toolCalls: SavedToolCall[]
    text: string
    finishReason: string
  }
  'tool-result': { step: number; toolCallId: string; toolName: string; output: ToolOutput }
}

export type JournalEntry = {
  [K in keyof JournalPayloads]: { kind: K; payload: JournalPayloads[K] }
}[keyof JournalPayloads]

type ToolResultPart = {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  output: ToolOutput
}

/**
 * The model messages of a run so far, in journal order. Tool results of a
 * step are gathered into one tool message, in the order the model called
 * the tools: the SDK's own errors for invalid calls and the runtime's results.
 *
 * @example
 * const messages = buildMessages(checkpoints.map((c) => ({ kind: c.kind, payload: c.payload })))
 */
export function buildMessages(entries: JournalEntry[]): ModelMessage[] {
  const messages: ModelMessage[] = []
  let step: { calls: SavedToolCall[]; results: Map<string, ToolResultPart> } | null = null

  const flush = () => {
    if (!step) return
    const parts = step.calls
      .map((call) => step!.results.get(call.toolCallId))
      .filter((part): part is ToolResultPart => part !== undefined)
    if (parts.length > 0) messages.push({ role: 'tool', content: parts } as ModelMessage)
    step = null
  }

  for (const entry of entries) {
    switch (entry.kind) {
      case 'input':
        messages.push({ role: 'user', content: entry.payload.text })
        break
      case 'intake':
        if (entry.payload.text) messages.push({ role: 'user', content: entry.payload.text })
        break
      case 'model-response': {
        flush()
        const [assistant, ...rest] = entry.payload.messages
        if (assistant) messages.push(assistant)
        step = { calls: entry.payload.toolCalls, results: new Map() }
        for (const message of rest) {
          if (message.role !== 'tool') continue
          for (const part of message.content) {
            if (part.type === 'tool-result') {
              step.results.set(part.toolCallId, part as unknown as ToolResultPart)
            }
          }
        }
        break
      }
      case 'tool-result':
        step?.results.set(entry.payload.toolCallId, {
          type: 'tool-result',
          toolCallId: entry.payload.toolCallId,
          toolName: entry.payload.toolName,
          output: entry.payload.output,
        })
        break
    }
  }
  flush()
  return messages
}

/**
 * The first user message of a run: its input, as text.
 */
export function renderInput(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? null, null, 2)
}
