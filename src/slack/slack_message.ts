/*
 * A row's message in one Slack conversation (`agent_slack_messages`):
 * written when the row is posted, so a retried notice never posts it
 * twice, and read when the row settles, to update the message.
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'

export class SlackMessage extends BaseModel {
  static table = 'agent_slack_messages'

  @column({ isPrimary: true })
  declare id: number

  @column()
  declare rowId: string

  /** Where the app asked it posted: a channel id, or a user id for their DM */
  @column()
  declare channel: string

  @column()
  declare ts: string | null

  /** The conversation Slack posted it in, which chat.update names */
  @column()
  declare conversation: string | null

  /** The language it was posted in, which its settled update speaks (null: English) */
  @column()
  declare locale: string | null

  @column.dateTime()
  declare createdAt: DateTime

  @column.dateTime()
  declare settledAt: DateTime | null
}
