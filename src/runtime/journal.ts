/*
 * The run journal: what the run's model said and what its tools returned,
 * in order. Each model response and tool result is appended here before the
 * run acts on it (docs/design.md §8.2), and a resumed run reads it back to rebuild its
 * conversation (journal_messages.ts). This file holds the shape of an entry
 * and the runtime's reads of the journal table and its appends to it
 * (`Agents.retry` clears it for a new attempt).
 */

import type { ModelMessage } from 'ai'
import type { AgentRun } from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { nextSequence } from '../persistence/prepared_columns.ts'

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
export type CheckpointPoint = 'after-response-saved' | 'after-result-saved' | 'before-execute'

export type OnCheckpoint = (point: CheckpointPoint, runId: string) => void | Promise<void>

/**
 * The journal's rows of a run, oldest first: the audit trail.
 */
export function journalRows(runId: string): Promise<JournalRow[]> {
  return JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
}

/**
 * The journal of a run as typed entries, oldest first.
 */
export async function readJournal(runId: string): Promise<JournalEntry[]> {
  const entries = await journalRows(runId)
  return entries.map((entry) => ({ kind: entry.kind, payload: entry.payload }) as JournalEntry)
}

/**
 * Appends an entry under a key unique per run: appending the same key
 * twice fails rather than forking the history.
 *
 * @example
 * await appendToJournal(run, 'step:1:response', 'model-response', payload)
 */
export async function appendToJournal<Kind extends keyof JournalPayloads>(
  run: AgentRun,
  key: string,
  kind: Kind,
  payload: JournalPayloads[Kind]
) {
  await JournalRow.create({
    runId: run.id,
    sequence: await nextSequence(JournalRow, run.id),
    key,
    kind,
    payload,
  })
}
