/*
 * What a conversation's turns show on the chat page (docs/design.md §12),
 * from their journals: AI SDK UI messages, the person's message and the
 * agent's reply per turn. Pure: journals in, messages out; the reads are
 * ../runtime/conversations.ts, and what a turn's model is sent of the earlier turns
 * is the runtime's (../runtime/transcripts.ts).
 */

import type { UIMessage } from 'ai'
import type { JournalEntry } from '../runtime/journal.ts'
import { renderInput, type Turn } from '../runtime/journal_messages.ts'

export type { Turn }

/** The UI message part of a tool call, as `useChat` renders one it did not define */
type ToolPart = {
  type: 'dynamic-tool'
  toolName: string
  toolCallId: string
  state: 'input-available' | 'output-available' | 'output-error'
  input: unknown
  output?: unknown
  errorText?: string
}

/**
 * The chat page's messages of a conversation: per turn, the person's
 * message and the agent's reply (its text, and its tool calls with their
 * results where they have one), with ids stable across reads so a page
 * merges what it reads again.
 *
 * @example
 * chatMessages([{ runId, input: 'Hello', journal }])
 * // [{ id: `${runId}:user`, role: 'user', parts: [{ type: 'text', text: 'Hello' }] }, …]
 */
export function chatMessages(turns: Turn[]): UIMessage[] {
  return turns.flatMap((turn) => {
    const user: UIMessage = {
      id: `${turn.runId}:user`,
      role: 'user',
      parts: [{ type: 'text', text: renderInput(turn.input) }],
    }
    const parts = replyParts(turn.journal)
    if (parts.length === 0) return [user]
    return [user, { id: `${turn.runId}:assistant`, role: 'assistant', parts }]
  })
}

/** A reply's parts: each step's text and tool calls, in order */
function replyParts(journal: JournalEntry[]): UIMessage['parts'] {
  const results = new Map<string, { type: string; value: string }>()
  for (const entry of journal) {
    if (entry.kind === 'tool-result') results.set(entry.payload.toolCallId, entry.payload.output)
  }
  const parts: UIMessage['parts'] = []
  for (const entry of journal) {
    if (entry.kind !== 'model-response') continue
    if (entry.payload.text) parts.push({ type: 'text', text: entry.payload.text, state: 'done' })
    for (const call of entry.payload.toolCalls) {
      const result = results.get(call.toolCallId)
      const part: ToolPart = {
        type: 'dynamic-tool',
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        input: call.input,
        state: !result
          ? 'input-available'
          : result.type === 'error-text'
            ? 'output-error'
            : 'output-available',
        ...(result?.type === 'error-text' ? { errorText: result.value } : {}),
        ...(result && result.type !== 'error-text' ? { output: result.value } : {}),
      }
      parts.push(part as UIMessage['parts'][number])
    }
  }
  return parts
}
