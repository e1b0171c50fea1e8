/*
 * One entry of the notification outbox (`agent_notifications`,
 * docs/design.md §7.7): a person to tell about a row, and why. Written in
 * the transaction of what it tells of, sent after by the sweep (one
 * message, or one digest per person and interval); src/notify/outbox.ts
 * reads and writes it.
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'

/**
 * Why a person is told: a row waits for them, a ladder reminded them or
 * gave them the row, or took it from them.
 */
export type NoticeReason = 'created' | 'reminded' | 'reassigned' | 'released'

export class Notification extends BaseModel {
  static table = 'agent_notifications'

  @column({ isPrimary: true })
  declare id: number

  @column()
  declare personId: string

  @column()
  declare rowId: string

  @column()
  declare reason: NoticeReason

  @column.dateTime()
  declare dueAt: DateTime

  @column({ consume: (value: unknown) => Boolean(value) })
  declare held: boolean

  @column.dateTime()
  declare sentAt: DateTime | null

  @column()
  declare attempts: number

  @column()
  declare lastError: string | null

  @column.dateTime()
  declare createdAt: DateTime
}
