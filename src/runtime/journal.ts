/*
 * The run journal: what the run's model said and what its tools returned,
 * in order. Each model response and tool result is appended here before the
 * run acts on it (docs/design.md §8.2), and a resumed run reads it back to rebuild its
 * conversation (journal_messages.ts). This file holds the shape of an
 * entry; the driver reads and appends through run_memory.ts, and
 * `Agents.retry` clears the journal for a new attempt.
 */

import { createHash } from 'node:crypto'
import type { ModelMessage } from 'ai'
import { JournalRow } from '../persistence/models/journal_row.ts'

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

/**
 * Named points between checkpoints. Tests kill the process at each of
 * them to prove a restart loses nothing and repeats nothing.
 */
export type CheckpointPoint =
  | 'after-response-saved'
  | 'after-result-saved'
  | 'before-execute'
  /** Inside a checkpoint's transaction, before its commit */
  | 'before-commit'

export type OnCheckpoint = (point: CheckpointPoint, runId: string) => void | Promise<void>

/**
 * The journal's rows of a run, oldest first: the audit trail.
 */
export function journalRows(runId: string): Promise<JournalRow[]> {
  return JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
}

/**
 * The longest tool-call id stored as the model sent it. A model may send
 * an id of any length; the columns that hold one (a row's `tool_call_id`,
 * a journal key) are bounded, so a longer id is stored as its digest. The
 * journal's payloads keep the id as sent, for the transcript.
 */
const MAX_STORED_ID = 80

/**
 * A tool-call id as the tables store it.
 *
 * @example
 * storedCallId('call_1') // 'call_1'
 * storedCallId('x'.repeat(200)) // 'sha256:…' (71 characters)
 */
export function storedCallId(id: string): string {
  if (id.length <= MAX_STORED_ID) return id
  return `sha256:${createHash('sha256').update(id).digest('hex')}`
}

/**
 * The journal key of a tool call's result in a step.
 */
export function resultKey(step: number, toolCallId: string): string {
  return `step:${step}:tool:${storedCallId(toolCallId)}`
}
