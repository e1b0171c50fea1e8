/*
 * One entry of the run journal: each model response and tool result,
 * written before the run acts on it (docs/design.md §8.2). Keys are unique per run,
 * so writing the same entry twice fails loudly instead of forking the
 * journal. Reading and appending live in src/runtime/journal.ts.
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'
import { jsonColumn } from '../json_column.ts'

export class JournalRow extends BaseModel {
  static table = 'agent_run_journal'

  @column({ isPrimary: true })
  declare id: number

  @column()
  declare runId: string

  @column()
  declare sequence: number

  /** Unique per run, e.g. `step:3:response` */
  @column()
  declare key: string

  /** What was saved: `model-response`, `tool-result`, … */
  @column()
  declare kind: string

  @jsonColumn()
  declare payload: unknown

  @column.dateTime({ autoCreate: true })
  declare createdAt: DateTime
}
