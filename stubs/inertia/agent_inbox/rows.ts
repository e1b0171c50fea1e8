/*
 * The rows the page lists, without React so Node can test it: where a row's
 * reply goes, a run's short id, and how rows the person just settled keep
 * their place among the pending ones. The app receives this file in
 * inertia/agent_inbox/.
 */

import type { RowCard, RunGroup } from 'adonis-agent-inbox/types'

/**
 * The reply endpoint of a row, next to the inbox page's own URL (the routes
 * share a prefix, `/inbox` by default).
 *
 * @example
 * replyUrl('/inbox?tab=all', 'a1') // '/inbox/rows/a1/reply'
 */
export function replyUrl(inboxUrl: string, rowId: string): string {
  const path = new URL(inboxUrl, 'http://inbox.invalid').pathname.replace(/\/+$/, '')
  return `${path}/rows/${encodeURIComponent(rowId)}/reply`
}

/**
 * A row's own URL (its detail, JSON), next to the inbox page's.
 *
 * @example
 * rowUrl('/inbox', 'a1') // '/inbox/rows/a1'
 */
export function rowUrl(inboxUrl: string, rowId: string): string {
  return replyUrl(inboxUrl, rowId).replace(/\/reply$/, '')
}

/**
 * The first characters of an id, enough to tell runs apart.
 */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id
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
