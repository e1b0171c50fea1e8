/*
 * One execution of a named agent on an input, owned by the person who may
 * answer it. A waiting run is only this row and its tool-call rows: no
 * process holds it (docs/design.md §8.3).
 */

import { randomUUID } from 'node:crypto'
import { type DateTime } from 'luxon'
import { BaseModel, beforeCreate, column } from '@adonisjs/lucid/orm'
import { jsonColumn } from '../json_column.ts'

export type RunStatus = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'

/** Statuses a run never leaves */
export const FINISHED_RUN_STATUSES = [
  'completed',
  'failed',
  'cancelled',
] as const satisfies RunStatus[]

/**
 * Whether a run with this status has ended for good.
 */
export function isFinished(status: RunStatus | string): boolean {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status)
}

export class AgentRun extends BaseModel {
  static table = 'agent_runs'
  static selfAssignPrimaryKey = true

  @column({ isPrimary: true })
  declare id: string

  @column()
  declare agent: string

  @column()
  declare status: RunStatus

  @column()
  declare ownerId: string | null

  @column()
  declare parentRunId: string | null

  @jsonColumn()
  declare input: unknown

  @jsonColumn()
  declare result: unknown

  @column()
  declare errorCode: string | null

  @column()
  declare error: string | null

  /**
   * The last drive that failed with an error (a lost connection past its
   * retries, a bug): what and when, until the run's next checkpoint or
   * status change clears it. Also in the app's log.
   */
  @column()
  declare lastError: string | null

  @column.dateTime()
  declare lastErrorAt: DateTime | null

  /** Ask calls made so far, against the question budget; intake does not count */
  @column()
  declare askCount: number

  /** Entries in the run's journal, set by every checkpoint (docs/design.md §8.2) */
  @column()
  declare journalLength: number

  /** Starts at 1; `agents.retry` replays the run from its input as attempt + 1 */
  @column()
  declare attempt: number

  @column()
  declare leaseOwner: string | null

  @column.dateTime()
  declare leaseExpiresAt: DateTime | null

  @column.dateTime({ autoCreate: true })
  declare createdAt: DateTime

  @column.dateTime({ autoCreate: true, autoUpdate: true })
  declare updatedAt: DateTime

  @column.dateTime()
  declare finishedAt: DateTime | null

  /** The fingerprint of its agent's definition it was started under (runtime/definitions.ts) */
  @column()
  declare definitionDigest: string | null

  /**
   * The conversation this run is a turn of, and which turn (docs/design.md
   * §12); null for a run started on its own, and on tables whose
   * migrations are behind
   */
  @column()
  declare conversationId: string | null

  @column()
  declare conversationTurn: number | null

  @beforeCreate()
  static assignId(run: AgentRun) {
    run.id ??= randomUUID()
    run.status ??= 'queued'
    run.askCount ??= 0
    run.journalLength ??= 0
    run.attempt ??= 1
  }
}
