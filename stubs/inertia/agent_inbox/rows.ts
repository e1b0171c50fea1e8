/*
 * The rows the inbox page lists, without a framework so Node can test it
 * and both pages share it: how rows the person just settled keep their
 * place among the pending ones, and what a bulk decision may do with the
 * cards selected. The app receives this file in inertia/agent_inbox/.
 */

import type { AnswersReply, DecisionReply, RowCard, RunGroup } from 'adonis-agent-inbox/types'
import { t } from './words'

/** What the page gives every pending row's card, on both pages */
export type CardState = {
  card: RowCard
  /** The server's errors for the card's last reply, by field */
  errors: Record<string, string[]>
  /** This card's reply is on its way */
  busy: boolean
  /** Some reply is on its way */
  locked: boolean
  /** Whether the card is selected for a bulk decision */
  selected: boolean
}

/**
 * How a settled row is remembered by the page once it leaves the pending
 * list, so its card can say who settled it.
 */
export type SettledNote = {
  card: RowCard
  run: RunGroup['run']
  by: string | null
  via: string | null
  at: string | null
}

/**
 * The note a settled card the server sent carries, or null for a pending one.
 */
export function settledFromCard(card: RowCard, run: RunGroup['run']): SettledNote | null {
  if (card.status === 'pending' || !card.settled) return null
  return { card, run, by: card.settled.by, via: card.settled.via, at: card.settled.at }
}

/**
 * A card as the page lists it: pending, or settled (from a note, or a
 * non-pending card the server sent).
 */
export type ListedCard = { card: RowCard; settled: SettledNote | null }

/**
 * What tells a group apart: its run, or for a wait opened outside any run
 * (an MCP question), its one row.
 */
export function groupKey(run: RunGroup['run'], firstCardId: string): string {
  return run ? run.id : `row:${firstCardId}`
}

function createdAt(item: ListedCard): string {
  return item.card.createdAt ?? ''
}

/**
 * The groups to show: the pending ones as sent, with rows the person just
 * settled kept in their place (oldest first) so their card can say who
 * settled it. A row that is pending again is shown as pending.
 */
export function listGroups(
  groups: RunGroup[],
  notes: SettledNote[]
): { run: RunGroup['run']; rows: ListedCard[] }[] {
  const pending = new Set(groups.flatMap((group) => group.rows.map((card) => card.id)))
  const listed = groups.map((group) => ({
    run: group.run,
    rows: group.rows.map((card): ListedCard => ({ card, settled: null })),
  }))
  for (const note of notes) {
    if (pending.has(note.card.id)) continue
    const key = groupKey(note.run, note.card.id)
    let group = listed.find((item) => groupKey(item.run, item.rows[0]?.card.id ?? '') === key)
    if (!group) {
      group = { run: note.run, rows: [] }
      const at = listed.findIndex((item) => createdAt(item.rows[0]) > (note.card.createdAt ?? ''))
      listed.splice(at === -1 ? listed.length : at, 0, group)
    }
    const item: ListedCard = { card: note.card, settled: note }
    const at = group.rows.findIndex((row) => createdAt(row) > createdAt(item))
    group.rows.splice(at === -1 ? group.rows.length : at, 0, item)
  }
  return listed
}

/**
 * What a bulk decision sends for the selected cards: approvals are approved
 * or rejected (one reason for all), question sets confirmed on their
 * defaults or skipped; a mix is approved (a question set takes its
 * defaults) or rejected (a question set is skipped), as the server reads a
 * decision sent to a question set.
 *
 * @example
 * bulkActions([approval, approval]).accept // { label: 'Approve 2', reply: { approved: true } }
 */
export function bulkActions(cards: RowCard[]): {
  accept: { label: string; reply: AnswersReply | DecisionReply }
  refuse: { label: string; reply: AnswersReply | DecisionReply; reason: boolean }
} {
  const questions = cards.length > 0 && cards.every((card) => card.questionSet)
  const count = cards.length
  return questions
    ? {
        accept: { label: t('page.card.bulk_confirm', { count }), reply: { answers: {} } },
        refuse: {
          label: t('page.card.bulk_skip', { count }),
          reply: { answers: {}, skip: true },
          reason: false,
        },
      }
    : {
        accept: { label: t('page.card.bulk_approve', { count }), reply: { approved: true } },
        refuse: {
          label: t('page.card.bulk_reject', { count }),
          reply: { approved: false },
          reason: true,
        },
      }
}
