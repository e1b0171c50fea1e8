/*
 * The conversation a run had with its model, from the run journal. Pure:
 * it reads journal entries' payloads and returns AI SDK model messages,
 * so a run resumed on another process sends exactly what it would have
 * sent. Kept apart from journal.ts, which reads the database.
 */

import type { ModelMessage } from 'ai'
import type { JournalEntry, JournalPayloads, ToolOutput } from './journal.ts'

type ToolResultPart = {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  output: ToolOutput
}

type OpenStep = {
  response: JournalPayloads['model-response']
  results: Map<string, ToolResultPart>
  /** Calls the runtime wrote a result of (not the SDK's own errors) */
  done: Set<string>
}

/**
 * The conversation of a run, kept up to date one journal entry at a time
 * (a driver adds each entry it writes, so nothing is rebuilt per step).
 * Tool results of a step are gathered into one tool message, in the order
 * the model called the tools: the SDK's own errors for invalid calls and
 * the runtime's results.
 *
 * @example
 * const conversation = new Conversation(memory.journal)
 * conversation.add(entry)
 * await generateText({ model, messages: conversation.messages() })
 */
export class Conversation {
  /**
   * The earlier turns of the run's conversation (a chat: ./transcripts.ts),
   * sent before the run's own messages; none for a run on its own
   */
  earlier: ModelMessage[] = []
  /** Messages of the steps before the open one */
  #closed: ModelMessage[] = []
  #open: OpenStep | null = null
  #steps = 0
  /** Tool-call ids of the responses before the open one */
  #closedIds = new Set<string>()

  constructor(entries: JournalEntry[] = []) {
    for (const entry of entries) this.add(entry)
  }

  /** How many model responses the run has */
  get steps(): number {
    return this.#steps
  }

  /**
   * The last model response, and the ids of its calls the runtime wrote a
   * result of: a live view, which each `tool-result` entry added extends.
   */
  get lastStep(): {
    response: JournalPayloads['model-response']
    done: ReadonlySet<string>
  } | null {
    if (!this.#open) return null
    return { response: this.#open.response, done: this.#open.done }
  }

  /**
   * The ids the model gave tool calls in the responses before step `step`:
   * the last step (the open one) or the next, which is all there are.
   */
  callIdsBefore(step: number): { has(id: string): boolean } {
    if (step === this.#steps) return this.#closedIds
    if (step !== this.#steps + 1) {
      throw new Error(`Step ${step} is neither the last (${this.#steps}) nor the next`)
    }
    const open = this.#open?.response.toolCalls ?? []
    return {
      has: (id) => this.#closedIds.has(id) || open.some((call) => call.toolCallId === id),
    }
  }

  add(entry: JournalEntry): void {
    switch (entry.kind) {
      case 'input':
        this.#closed.push({ role: 'user', content: entry.payload.text })
        break
      case 'intake':
        if (entry.payload.text) this.#closed.push({ role: 'user', content: entry.payload.text })
        break
      case 'model-response': {
        this.#close()
        this.#steps++
        const [assistant, ...rest] = entry.payload.messages
        if (assistant) this.#closed.push(assistant)
        this.#open = { response: entry.payload, results: new Map(), done: new Set() }
        for (const message of rest) {
          if (message.role !== 'tool') continue
          for (const part of message.content) {
            if (part.type === 'tool-result') {
              this.#open.results.set(part.toolCallId, part as unknown as ToolResultPart)
            }
          }
        }
        break
      }
      case 'tool-result':
        this.#open?.done.add(entry.payload.toolCallId)
        this.#open?.results.set(entry.payload.toolCallId, {
          type: 'tool-result',
          toolCallId: entry.payload.toolCallId,
          toolName: entry.payload.toolName,
          output: entry.payload.output,
        })
        break
    }
  }

  /**
   * The model messages so far, in journal order.
   */
  messages(): ModelMessage[] {
    const tool = this.#open && toolMessage(this.#open)
    return [...this.earlier, ...this.#closed, ...(tool ? [tool] : [])]
  }

  #close() {
    if (!this.#open) return
    const tool = toolMessage(this.#open)
    if (tool) this.#closed.push(tool)
    for (const call of this.#open.response.toolCalls) this.#closedIds.add(call.toolCallId)
    this.#open = null
  }
}

/**
 * The model messages of a run's journal entries.
 */
export function buildMessages(entries: JournalEntry[]): ModelMessage[] {
  return new Conversation(entries).messages()
}

function toolMessage(step: OpenStep): ModelMessage | null {
  const parts = step.response.toolCalls
    .map((call) => step.results.get(call.toolCallId))
    .filter((part): part is ToolResultPart => part !== undefined)
  return parts.length > 0 ? ({ role: 'tool', content: parts } as ModelMessage) : null
}

/**
 * The first user message of a run: its input, as text.
 */
export function renderInput(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? null, null, 2)
}

/** One turn of a conversation (a chat, docs/design.md §12) as read for its transcript */
export type Turn = {
  runId: string
  /** The run's input: the person's message */
  input: unknown
  journal: JournalEntry[]
}

type Part = { type: string; toolCallId?: string; text?: string }

/**
 * The model messages one ended turn of a conversation hands to the turns after it: its
 * journal's messages (the person's message first), without tool calls that
 * never got a result: a turn that failed or was cancelled can end on a
 * response whose calls have none, and a provider refuses such a call in the
 * middle of a conversation (their text stays).
 *
 * @example
 * const earlier = turns.flatMap((turn) => turnTranscript(turn))
 * await streamText({ model, messages: [...earlier, ...ownMessages] })
 */
export function turnTranscript(turn: Turn): ModelMessage[] {
  const messages =
    turn.journal.length > 0
      ? buildMessages(turn.journal)
      : [{ role: 'user' as const, content: renderInput(turn.input) }]
  const answered = new Set<string>()
  for (const message of messages) {
    if (message.role !== 'tool') continue
    for (const part of message.content as Part[]) if (part.toolCallId) answered.add(part.toolCallId)
  }
  return messages.flatMap((message): ModelMessage[] => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return [message]
    const parts = (message.content as Part[]).filter(
      (part) => part.type !== 'tool-call' || answered.has(part.toolCallId ?? '')
    )
    if (parts.length === 0) return []
    return [{ ...message, content: parts } as ModelMessage]
  })
}
