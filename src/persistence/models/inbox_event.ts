/*
 * One entry of the append-only audit log (`agent_inbox_events`): what
 * happened to a row or a grant, who did it, through what, from where, and
 * the digest of what they decided on. The package only ever inserts here;
 * `agents:prune` deletes the entries of the runs it prunes, nothing else
 * (docs/design.md §11.5). Writing and reading live in src/inbox/audit_log.ts.
 */

import { type DateTime } from 'luxon'
import { BaseModel, column } from '@adonisjs/lucid/orm'
import { jsonColumn } from '../json_column.ts'

/**
 * What an entry records.
 */
export type InboxEventType =
  | 'created'
  | 'viewed'
  | 'voted'
  | 'settled'
  | 'expired'
  | 'executed'
  | 'interrupted'
  | 'not-run'
  | 'granted'
  | 'revoked'
  | 'policy-decided'
  | 'reminded'
  | 'reassigned'
  | 'retried'
  | 'cancelled'

export class InboxEvent extends BaseModel {
  static table = 'agent_inbox_events'

  @column({ isPrimary: true })
  declare id: number

  @column()
  declare runId: string | null

  @column()
  declare rowId: string | null

  @column()
  declare type: InboxEventType

  /** Who: a person's id, or null for the package itself (expiry, a policy) */
  @column()
  declare actor: string | null

  /** Through what: web, api, terminal, expiry, policy, grant, runtime, … */
  @column()
  declare channel: string | null

  @column()
  declare requestId: string | null

  @column()
  declare ip: string | null

  /** The digest of what was decided on (docs/design.md §11.4) */
  @column()
  declare digest: string | null

  /** What else the entry tells: the vote, the rule, the grant, the reason */
  @jsonColumn()
  declare data: Record<string, unknown> | null

  @column.dateTime()
  declare createdAt: DateTime
}
