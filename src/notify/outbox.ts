/*
 * Sending the notification outbox (docs/design.md §7.7). Notices are
 * written with what they tell of (../inbox/notices.ts); here a batch of
 * due ones is one transaction that locks them a person at a time, people
 * and notices in a fixed order (`FOR UPDATE`, the write lock on SQLite:
 * with `SKIP LOCKED` two dispatchers split one person's digest into two
 * mails), holds those of people who want a digest or
 * are in their quiet hours until then, and claims the rest (`sent_at`):
 * two dispatchers never claim one notice, so nobody gets a mail twice
 * from two processes. Delivery follows the commit; a notifier that fails
 * gives its notices back (`sent_at` cleared, due again after a backoff),
 * up to a few attempts. A process killed between the claim and the send
 * loses those notices: a notice is at most once, the row stays in the
 * inbox whatever happens to its mail.
 */

import type { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { Notification } from '../persistence/models/notification.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { batchTransaction, hasRowLocks } from '../persistence/batch_transaction.ts'
import { preparedColumns, readRows } from '../persistence/prepared_columns.ts'
import { ladderNote } from '../governance/ladder.ts'
import type { Notifier, NotifierContext, Recipient, ReplyLink, RowNotice } from './notifier.ts'
import { heldUntil, quietUntil, type Preferences } from './schedule.ts'
import debug from '../debug.ts'
import { recordFailedDeliveries } from '../telemetry/metrics.ts'
import { deliverySpan } from '../telemetry/inbox_spans.ts'

export type OutboxOptions = {
  now: DateTime
  notifiers: Notifier[]
  preferences: (personId: string) => Preferences | null | Promise<Preferences | null>
  /** The signed reply links of a row for a person (the HTTP side makes them) */
  links: (row: ToolCall, personId: string) => ReplyLink[]
  context: NotifierContext
  /** Deliveries a notice gets before it is given up; default 5 */
  attempts?: number
}

type Claim = { person: Recipient; prefs: Preferences; entries: Notification[]; digest: boolean }

/**
 * Sends every notice due at `now`; returns how many were delivered.
 */
export async function dispatchDue(options: OutboxOptions): Promise<number> {
  let sent = 0
  for (;;) {
    const due = preparedColumns(new Notification(), { dueAt: options.now }).due_at
    const people = await Notification.query()
      .whereNull('sent_at')
      .where('due_at', '<=', due as any)
      .distinct('person_id')
      .limit(100)
      .pojo<{ person_id: string }>()
    if (people.length === 0) return sent
    const prefs = new Map<string, Preferences | null>()
    for (const { person_id: id } of people) prefs.set(id, await options.preferences(id))
    const claims = await batchTransaction(Notification, (trx) => claim(trx, prefs, options.now))
    for (const item of claims) {
      const attributes = {
        'agent_inbox.notices': item.entries.length,
        'agent_inbox.digest': String(item.digest),
      }
      sent += await deliverySpan('notification', attributes, () => deliver(item, options))
    }
    if (people.length < 100) return sent
  }
}

/**
 * Locks the due notices of these people, a person at a time; holds, claims or drops them.
 */
async function claim(
  trx: TransactionClientContract,
  prefs: Map<string, Preferences | null>,
  now: DateTime
): Promise<Claim[]> {
  const at = (when: DateTime) => preparedColumns(new Notification(), { dueAt: when }).due_at
  /*
   * A person's due notices all at once, or after the dispatcher that holds
   * them committed (then they are sent, and no longer due): a digest is
   * one mail. Both dispatchers lock in the same order, so neither waits on
   * the other while holding what the other waits for.
   */
  const entries: Notification[] = []
  for (const personId of [...prefs.keys()].sort()) {
    const query = trx
      .from(Notification.table)
      .select('*')
      .whereNull('sent_at')
      .where('due_at', '<=', at(now) as any)
      .where('person_id', personId)
      .orderBy('id')
    if (hasRowLocks(trx)) query.forUpdate()
    entries.push(...readRows(Notification, await query))
  }
  const claims: Claim[] = []
  for (const [personId, pref] of prefs) {
    const mine = entries.filter((entry) => entry.personId === personId)
    if (mine.length === 0) continue
    const ids = (list: Notification[]) => list.map((entry) => entry.id)
    const sentAt = preparedColumns(new Notification(), { sentAt: now }).sent_at
    if (!pref) {
      // Nobody to tell (the hook knows no such person): the notices are done with
      await trx
        .from(Notification.table)
        .whereIn('id', ids(mine))
        .update({ sent_at: sentAt, last_error: 'no preferences' })
      continue
    }
    const quiet = quietUntil(now, pref.quietHours)
    const fresh = mine.filter((entry) => !entry.held)
    const digest = Boolean(pref.digest && pref.digest > 0)
    if (quiet || (digest && fresh.length > 0)) {
      const waiting = await trx
        .from(Notification.table)
        .whereNull('sent_at')
        .where('person_id', personId)
        .where('held', true)
        .where('due_at', '>', at(now) as any)
        .min('due_at as due')
        .first()
      const held = waiting?.due ? readRows(Notification, [{ due_at: waiting.due }])[0].dueAt : null
      const until = heldUntil(now, pref, held)
      const holding = quiet ? mine : fresh
      await trx
        .from(Notification.table)
        .whereIn('id', ids(holding))
        .update({ held: true, due_at: at(until) })
      if (quiet || mine.length === fresh.length) continue
    }
    const sending = mine.filter((entry) => entry.held || !digest)
    await trx.from(Notification.table).whereIn('id', ids(sending)).update({ sent_at: sentAt })
    const person = {
      id: personId,
      email: pref.email ?? null,
      name: pref.name ?? null,
      locale: pref.locale ?? null,
    }
    claims.push({ person, prefs: pref, entries: sending, digest })
  }
  return claims
}

/**
 * Delivers a claim through the person's notifiers: a digest, or a message
 * per row still pending. Gives the notices back when a notifier fails.
 */
async function deliver(item: Claim, options: OutboxOptions): Promise<number> {
  const rowIds = [...new Set(item.entries.map((entry) => entry.rowId))]
  const rows = readRows(ToolCall, await ToolCall.query().whereIn('id', rowIds).pojo())
  const byId = new Map(rows.map((row) => [row.id, row]))
  const notices: RowNotice[] = item.entries.flatMap((entry) => {
    const row = byId.get(entry.rowId)
    // A row settled before its notice went out needs nobody any more
    if (!row || row.status !== 'pending') return []
    const links = entry.reason === 'released' ? [] : options.links(row, item.person.id)
    return [{ id: entry.id, row, reason: entry.reason, links, note: ladderNote(row, options.now) }]
  })
  if (notices.length === 0) return 0
  const named = item.prefs.notifiers
  const notifiers = options.notifiers.filter((notifier) => !named || named.includes(notifier.name))
  try {
    for (const notifier of notifiers) {
      const personal = (notice: RowNotice) => ({
        ...notice,
        links: notifier.render?.(notice, item.person) ?? notice.links,
      })
      if (item.digest && notifier.digest) {
        await notifier.digest(notices.map(personal), item.person, options.context)
      } else {
        for (const notice of notices)
          await notifier.notify(personal(notice), item.person, options.context)
      }
    }
    debug('notified %s of %d rows', item.person.id, notices.length)
    return notices.length
  } catch (error) {
    debug('notifying %s failed %O', item.person.id, error)
    recordFailedDeliveries('notifications', item.entries.length)
    await giveBack(item.entries, options, error)
    return 0
  }
}

/** Failed notices are due again after a backoff (1, 2, 4, … minutes), until attempts run out */
async function giveBack(entries: Notification[], options: OutboxOptions, error: unknown) {
  const limit = options.attempts ?? 5
  for (const entry of entries) {
    const attempts = entry.attempts + 1
    const retry = attempts < limit
    // A service that said when to come back (Slack's 429 Retry-After, in seconds) is not asked sooner
    const after = Number((error as { retryAfter?: unknown })?.retryAfter) || 0
    const due = options.now.plus({ seconds: Math.max(60 * 2 ** (attempts - 1), after) })
    await Notification.query()
      .where('id', entry.id)
      .update(
        preparedColumns(new Notification(), {
          attempts,
          lastError: String((error as Error)?.message ?? error).slice(0, 1000),
          ...(retry ? { sentAt: null, dueAt: due } : {}),
        })
      )
  }
}
