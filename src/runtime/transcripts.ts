/*
 * What a turn of a conversation (a chat, docs/design.md §12) is sent of the
 * turns before it: their journals' messages, in order (./journal_messages.ts
 * `turnTranscript`). Ended turns' journals never change, so each earlier
 * turn is read once and kept, by run id and journal length.
 */

import type { ModelMessage } from 'ai'
import { AgentRun, isFinished } from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import type { JournalEntry } from './journal.ts'
import { turnTranscript } from './journal_messages.ts'

/** The journals of runs, by run id, in one read */
export async function readJournals(runIds: string[]): Promise<Map<string, JournalEntry[]>> {
  const journals = new Map<string, JournalEntry[]>()
  if (runIds.length === 0) return journals
  const rows = await JournalRow.query()
    .whereIn('run_id', runIds)
    .orderBy('run_id', 'asc')
    .orderBy('sequence', 'asc')
  for (const row of rows) {
    const entries = journals.get(row.runId) ?? []
    entries.push({ kind: row.kind, payload: row.payload } as JournalEntry)
    journals.set(row.runId, entries)
  }
  return journals
}

/** How many ended turns' transcripts a process keeps */
const KEPT_TURNS = 2000

/**
 * The transcripts of ended turns, read once per run and kept (least recently
 * used first out): a turn's model is sent the turns before it, every step,
 * and a conversation's next turn reads them again.
 *
 * @example
 * const earlier = await transcripts.before(run) // [] for a run not in a conversation
 */
export class TranscriptCache {
  #kept = new Map<string, { length: number; messages: ModelMessage[] }>()

  /** The model messages of the turns before `run`'s, in order */
  async before(run: AgentRun): Promise<ModelMessage[]> {
    const conversationId = run.conversationId
    const turn = run.conversationTurn
    if (!conversationId || !turn || turn <= 1) return []
    const runs = await AgentRun.query()
      .where('conversation_id', conversationId)
      .where('conversation_turn', '<', turn)
      .orderBy('conversation_turn', 'asc')
      .select('id', 'input', 'journal_length', 'status')
    const missing = runs.filter((one) => this.#kept.get(one.id)?.length !== one.journalLength)
    const journals = await readJournals(missing.map((one) => one.id))
    return runs.flatMap((one) => {
      let kept = this.#kept.get(one.id)
      if (kept?.length !== one.journalLength) {
        kept = {
          length: one.journalLength,
          messages: turnTranscript({
            runId: one.id,
            input: one.input,
            journal: journals.get(one.id) ?? [],
          }),
        }
      }
      // A turn still live (a retried one) changes: only ended turns are kept
      this.#kept.delete(one.id)
      if (isFinished(one.status)) this.#kept.set(one.id, kept)
      if (this.#kept.size > KEPT_TURNS) this.#kept.delete(this.#kept.keys().next().value!)
      return kept.messages
    })
  }
}
