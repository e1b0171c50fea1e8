/*
 * Conversations in the database (docs/design.md §12): starting a turn, and
 * reading the turns before one. A turn starts with one conditional write
 * on the conversation's row: its head moves to the new run only from the
 * version read (`turns`) and only while the head run has finished, so two
 * messages sent at once, or one sent while the last turn still runs or
 * waits on a row, start nothing (E_TURN_LIVE, 409); the unique
 * (conversation, turn) of agent_runs backs it.
 */

import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import { E_NOT_FOUND, E_TURN_LIVE } from '../errors.ts'
import { AgentConversation } from '../persistence/models/agent_conversation.ts'
import { AgentRun, FINISHED_RUN_STATUSES, isFinished } from '../persistence/models/agent_run.ts'
import { transaction } from '../persistence/transaction.ts'
import { affectedRows, preparedColumns } from '../persistence/prepared_columns.ts'
import type { JournalEntry } from './journal.ts'
import type { Turn } from './journal_messages.ts'
import { readJournals } from './transcripts.ts'

/** A person's message to a conversation (`agents.converse`) */
export type ChatMessage = {
  /** The agent of a new conversation; an existing one keeps its own */
  agent: string
  /** Who sends it: the conversation's owner, who answers what its turns ask */
  owner: string
  text: string
}

export type TurnStart = ChatMessage & {
  conversationId: string
  /**
   * Columns the caller adds to the run of the conversation's agent (its
   * definition's digest); throws for an agent that is not defined
   */
  describe: (agent: string) => Promise<Partial<Pick<AgentRun, 'definitionDigest'>>>
}

/**
 * The conversation of `id` if `owner` owns it; null when there is none. Another person's reads
 * as none, so a chat id tells a stranger nothing (404).
 */
export async function ownConversation(id: string, owner: string) {
  const conversation = await AgentConversation.find(id)
  if (conversation && conversation.ownerId !== owner) {
    throw new E_NOT_FOUND([`No conversation ${id}`])
  }
  return conversation
}

/**
 * Starts the next turn of a conversation (creating the conversation on its
 * first message): the queued run, whose input is the message. Throws
 * E_TURN_LIVE while the head run has not finished, and E_NOT_FOUND for
 * another person's conversation. The caller schedules the run.
 *
 * @example
 * const { run } = await startTurn({ conversationId, agent: 'helper', owner: 'user:1', text: 'Hi' })
 */
export async function startTurn(start: TurnStart) {
  const { conversationId: id, owner } = start
  let conversation = await ownConversation(id, owner)
  if (!conversation) {
    try {
      conversation = await AgentConversation.create({
        id,
        agent: start.agent,
        ownerId: owner,
        headRunId: null,
        turns: 0,
      })
    } catch (error) {
      // Two first messages at once: the other created it, and this one meets its head below
      conversation = await ownConversation(id, owner)
      if (!conversation) throw error
    }
  }
  const read = conversation
  const refuse = async () => {
    const now = await AgentConversation.find(id)
    return new E_TURN_LIVE([id, now?.headRunId ?? read.headRunId ?? ''])
  }
  if (read.headRunId) {
    const head = await AgentRun.query().where('id', read.headRunId).select('status').first()
    if (head && !isFinished(head.status)) throw await refuse()
  }

  const run = new AgentRun()
  run.merge({
    ...(await start.describe(read.agent)),
    // Its id goes on the conversation's row before the run is saved
    id: randomUUID(),
    agent: read.agent,
    status: 'queued',
    input: start.text,
    ownerId: owner,
    parentRunId: null,
    conversationId: id,
    conversationTurn: read.turns + 1,
  })
  const moved = await transaction(AgentConversation, async (trx) => {
    // The head moves only from the version read, and only from a finished run
    const updated = await trx
      .from(AgentConversation.table)
      .where('id', id)
      .where('turns', read.turns)
      .whereNotExists((head) =>
        head
          .from(AgentRun.table)
          .whereRaw(`${AgentRun.table}.id = ${AgentConversation.table}.head_run_id`)
          .whereNotIn('status', FINISHED_RUN_STATUSES)
      )
      .update(
        preparedColumns(read, {
          headRunId: run.id,
          turns: read.turns + 1,
          updatedAt: DateTime.now(),
        })
      )
    if (affectedRows(updated) !== 1) return false
    run.useTransaction(trx)
    await run.save()
    return true
  })
  if (!moved) throw await refuse()
  return { conversation: read, run }
}

/**
 * The turns of a conversation in order, with their journals: every turn,
 * or those before turn `before`.
 */
export async function readTurns(conversationId: string, before?: number): Promise<TurnRecord[]> {
  const query = AgentRun.query()
    .where('conversation_id', conversationId)
    .orderBy('conversation_turn', 'asc')
  if (before !== undefined) query.where('conversation_turn', '<', before)
  const runs = await query
  const journals = await readJournals(runs.map((run) => run.id))
  return runs.map((run) => ({ run, turn: turnOf(run, journals.get(run.id) ?? []) }))
}

export type TurnRecord = { run: AgentRun; turn: Turn }

function turnOf(run: AgentRun, journal: JournalEntry[]): Turn {
  return { runId: run.id, input: run.input, journal }
}
