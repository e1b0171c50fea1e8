/*
 * A chat with an agent: a series of runs sharing a transcript, one turn
 * per message a person sends (docs/design.md §12). The row holds who owns
 * it, which agent answers, and its head run, the turn the next message
 * follows; `turns` counts the turns started and is the version a new turn
 * moves the head from (../../chat/conversations.ts).
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'

export class AgentConversation extends BaseModel {
  static table = 'agent_conversations'
  static selfAssignPrimaryKey = true

  /** Chosen by the client (a chat's id) */
  @column({ isPrimary: true })
  declare id: string

  @column()
  declare agent: string

  @column()
  declare ownerId: string

  /** The latest turn's run; null before the first message */
  @column()
  declare headRunId: string | null

  @column()
  declare turns: number

  @column.dateTime({ autoCreate: true })
  declare createdAt: DateTime

  @column.dateTime({ autoCreate: true, autoUpdate: true })
  declare updatedAt: DateTime
}
