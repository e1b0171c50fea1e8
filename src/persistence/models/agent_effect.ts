/*
 * The outbox: one external call a transactional action asked for with
 * `ctx.after(name, data)`. It is inserted in the action's own transaction,
 * so it exists exactly when the action's writes do, and is delivered after
 * the commit, again with the same idempotency key until it is done
 * (src/runtime/effects/outbox.ts, docs/design.md §5.5).
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'
import { jsonColumn } from '../json_column.ts'

/**
 * `pending` until a delivery returned (`done`) or every attempt failed
 * (`failed`).
 */
export type EffectStatus = 'pending' | 'done' | 'failed'

export class AgentEffect extends BaseModel {
  static table = 'agent_effects'
  static selfAssignPrimaryKey = true

  @column({ isPrimary: true })
  declare id: string

  @column()
  declare runId: string

  /** The tool-call row of the action that asked for it */
  @column()
  declare rowId: string

  /** Its place among the action's effects, from 0, in the order they were asked for */
  @column()
  declare position: number

  @column()
  declare toolName: string

  /** The name of the effect in the tool's `effects` */
  @column()
  declare name: string

  /** The data the handler passed, as JSON */
  @jsonColumn()
  declare payload: unknown

  @column()
  declare idempotencyKey: string

  @column()
  declare status: EffectStatus

  /** Deliveries started, the one in flight included */
  @column()
  declare attempts: number

  /** The lease owner that delivers it now (or last did) */
  @column()
  declare claimedBy: string | null

  /** Nobody else delivers it before then: the claim, or the wait before a retry */
  @column.dateTime()
  declare availableAt: DateTime

  @column()
  declare lastError: string | null

  @column.dateTime()
  declare createdAt: DateTime

  @column.dateTime()
  declare updatedAt: DateTime

  @column.dateTime()
  declare doneAt: DateTime | null
}
