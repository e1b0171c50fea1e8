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
import { AgentEffect } from '../persistence/models/agent_effect.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'

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
  /** A tool's result is known (on its row); journaled already only if its handler ran */
  | 'after-result'
  /** Just before and after the model call of a step (the bench times a step's own share by them) */
  | 'before-model-call'
  | 'after-model-call'
  | 'before-execute'
  /** Inside a checkpoint's transaction, before its commit */
  | 'before-commit'
  /** Inside a transactional action's transaction, its result written, before its commit */
  | 'before-action-commit'
  /** A transactional action committed, its effects not delivered yet */
  | 'after-action-commit'

export type OnCheckpoint = (point: CheckpointPoint, runId: string) => void | Promise<void>

/**
 * The journal's rows of a run, oldest first.
 */
export function journalRows(runId: string): Promise<JournalRow[]> {
  return JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
}

/**
 * A run's record: every row in order, its journal, and the effects
 * its transactional actions asked for (by row, in order).
 */
export async function runRecord(runId: string) {
  const rows = await ToolCall.query().where('run_id', runId).orderBy('sequence', 'asc')
  const journal = await journalRows(runId)
  const effects = await AgentEffect.query()
    .where('run_id', runId)
    .orderBy('row_id', 'asc')
    .orderBy('position', 'asc')
  return { rows, journal, effects }
}

/**
 * The longest tool-call id stored as the model sent it. A model may send
 * an id of any length; the columns that hold one (a row's `tool_call_id`,
 * a journal key) are bounded, so a longer id is stored as its digest. The
 * journal's payloads keep the id as sent, for the conversation.
 */
const MAX_STORED_ID = 80

function digest(text: string): string {
  const hash = createHash('sha256')
  /*
   * UTF-8 cannot hold a lone surrogate (two would hash alike, as U+FFFD);
   * their UTF-16 code units can, after a byte UTF-8 never uses.
   */
  if (text.isWellFormed()) hash.update(text)
  else hash.update(Buffer.concat([Buffer.of(0xff), Buffer.from(text, 'utf16le')]))
  return `sha256:${hash.digest('hex')}`
}

/**
 * A tool-call id as the tables store it: as sent, unless a column cannot
 * hold it so: longer than MAX_STORED_ID, holding a NUL byte (PostgreSQL
 * refuses one in text) or a lone surrogate (every database would store
 * U+FFFD instead, so the id read back would not be the id sent, and two
 * such ids would be one). Those are stored as their digest.
 *
 * @example
 * storedCallId('call_1') // 'call_1'
 * storedCallId('x'.repeat(200)) // 'sha256:…' (71 characters)
 */
export function storedCallId(id: string): string {
  if (id.length <= MAX_STORED_ID && id.isWellFormed() && !id.includes('\u0000')) return id
  return digest(id)
}

/**
 * The id a tool call's row is stored under. Ids are unique within a step
 * at best: a model may give a call the id of a call of an earlier step
 * (some providers number each response's calls from zero). Such a call's
 * row is stored under a digest of its step and id, so every call of an
 * attempt has a row of its own, and the next driver finds it the same way.
 *
 * @example
 * rowCallId(2, 'call_0', memory.conversation.callIdsBefore(2)) // 'call_0', or 'sha256:…' when step 1 used it
 */
export function rowCallId(step: number, id: string, earlier: { has(id: string): boolean }): string {
  return earlier.has(id) ? digest(`step:${step}:${id}`) : storedCallId(id)
}

/**
 * The journal key of a tool call's result in a step.
 */
export function resultKey(step: number, toolCallId: string): string {
  return `step:${step}:tool:${storedCallId(toolCallId)}`
}
