/*
 * A remembered approval (docs/design.md §11.2): a person allowed a tool for
 * a run, for their own runs, or for their runs with some of the args, until
 * it expires or is revoked. Never written for an irreversible tool.
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'
import { jsonColumn } from '../json_column.ts'

/** What a grant covers: one run, a person's runs, or a person's runs with some args */
export type GrantScope = 'run' | 'person' | 'args'

export class Grant extends BaseModel {
  static table = 'agent_grants'
  static selfAssignPrimaryKey = true

  @column({ isPrimary: true })
  declare id: string

  /** Whose grant: the person who approved with it */
  @column()
  declare personId: string

  @column()
  declare scope: GrantScope

  @column()
  declare toolName: string

  /** The run a `run` grant covers */
  @column()
  declare runId: string | null

  /** The args an `args` grant covers: each key must hold this value */
  @jsonColumn()
  declare predicate: Record<string, unknown> | null

  /** The approval it was given with */
  @column()
  declare rowId: string | null

  @column.dateTime()
  declare createdAt: DateTime

  @column.dateTime()
  declare expiresAt: DateTime | null

  @column.dateTime()
  declare revokedAt: DateTime | null

  @column()
  declare revokedBy: string | null
}
