/*
 * When a periodic pass (the sweep) last ran: one row per
 * pass, upserted by each run of it (src/health/heartbeat.ts).
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'

export class AgentHeartbeat extends BaseModel {
  static table = 'agent_heartbeats'
  static selfAssignPrimaryKey = true

  /** The pass: `sweep` */
  @column({ isPrimary: true })
  declare name: string

  /** The process that ran it last (its lease owner: host, pid and a nonce) */
  @column()
  declare owner: string

  @column.dateTime()
  declare beatAt: DateTime
}
