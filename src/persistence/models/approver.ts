/*
 * A person asked to vote on a row that needs a quorum (docs/design.md
 * §11.3): one record per person and row, written when the row is opened,
 * holding their vote once cast. The listing of "rows waiting for my vote"
 * reads it by person.
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'

export class Approver extends BaseModel {
  static table = 'agent_approvers'

  @column({ isPrimary: true })
  declare rowId: string

  @column()
  declare personId: string

  /** The stage the person votes in, from 0 */
  @column()
  declare stage: number

  @column()
  declare vote: 'approve' | 'reject' | null

  @column()
  declare reason: string | null

  @column.dateTime()
  declare votedAt: DateTime | null
}
