/*
 * Rebuilds the conversation a run had with its model from the run journal.
 * Pure: it reads journal entries' payloads and returns AI SDK model
 * messages, so a run resumed on another process sends exactly what it
 * would have sent. Kept apart from journal.ts, which reads the database.
 */

import type { ModelMessage } from 'ai'
import type { JournalEntry, SavedToolCall, ToolOutput } from './journal.ts'

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
 * const messages = buildMessages(memory.journal)
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
