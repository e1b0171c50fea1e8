/*
 * Writing the notification outbox (`agent_notifications`, docs/design.md
 * §7.7) in the transaction of what it tells of: a row opened, a ladder's
 * step. So a row is never opened, reminded or handed on without the
 * notice that it was, and a sweeper that lost a step wrote no notice
 * either. Sending is src/notify/'s.
 */

import { DateTime } from 'luxon'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { Notification, type NoticeReason } from '../persistence/models/notification.ts'
import { preparedRows } from '../persistence/prepared_columns.ts'

/** A person to tell about a row, and why */
export type Notice = { personId: string; reason: NoticeReason }

/**
 * Appends notices of a row, due now, each person once per reason.
 */
export async function appendNotices(
  client: QueryClientContract,
  rowId: string,
  notices: Notice[],
  now: DateTime = DateTime.now()
): Promise<void> {
  const unique = new Map(notices.map((notice) => [`${notice.reason}\n${notice.personId}`, notice]))
  if (unique.size === 0) return
  const rows = preparedRows(
    Notification,
    [...unique.values()].map((notice) => ({
      personId: notice.personId,
      rowId,
      reason: notice.reason,
      dueAt: now,
      held: false,
      sentAt: null,
      attempts: 0,
      createdAt: now,
    }))
  )
  await client.insertQuery().table(Notification.table).multiInsert(rows)
}
