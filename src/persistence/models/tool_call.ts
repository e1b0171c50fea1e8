/*
 * Every tool call of a run is a row: its record, and the wait. Rows
 * that need a person (`action`, `ask`, `intake`) start `pending` and are
 * settled once, by a conditional update (see src/inbox/row_settler.ts).
 */

import { randomUUID } from 'node:crypto'
import { type DateTime } from 'luxon'
import { BaseModel, beforeCreate, column } from '@adonisjs/lucid/orm'
import { jsonColumn } from '../json_column.ts'
import type { AnsweredVia, Outcome, Reply } from '../../questions/types.ts'
import type { ExpiryRule } from '../../questions/settle.ts'
import type { LadderState } from '../../governance/ladder.ts'

/**
 * `read` runs at once, `action` waits for a yes/no, `ask` is the model's
 * question set, `intake` the configured form asked before the first model call.
 */
export type ToolCallKind = 'read' | 'action' | 'ask' | 'intake'

/**
 * `pending` until settled; then one of the settled states. `auto` marks a
 * row that never waited (a read tool).
 */
export type ToolCallStatus =
  'pending' | 'answered' | 'approved' | 'rejected' | 'expired' | 'cancelled' | 'auto'

/**
 * Where executing the tool got to; lets a restart tell "never ran" from
 * "ran" from "was running when the process died"; `refused` marks an approval
 * whose signature did not verify, never run. `tool-removed` and
 * `invalid-args` mark a call the running deploy did not run: its tool is no
 * longer defined, or its args no longer fit the tool's input schema
 * (src/runtime/calls/current_tool.ts); the result says why.
 */
export type ToolExecution =
  'running' | 'succeeded' | 'failed' | 'interrupted' | 'refused' | 'tool-removed' | 'invalid-args'

export class ToolCall extends BaseModel {
  static table = 'agent_tool_calls'
  static selfAssignPrimaryKey = true

  @column({ isPrimary: true })
  declare id: string

  /** Null for a wait opened from outside the runtime (an MCP elicitation) */
  @column()
  declare runId: string | null

  /** Position of the row in its run, from 1 */
  @column()
  declare sequence: number

  /** The run's attempt that made this call (see AgentRun.attempt) */
  @column()
  declare attempt: number

  /** The id the model gave the call, to answer it in the conversation */
  @column()
  declare toolCallId: string | null

  @column()
  declare toolName: string

  @column()
  declare kind: ToolCallKind

  @column()
  declare status: ToolCallStatus

  /** Copied from the run so the inbox finds "rows this person may settle" by index */
  @column()
  declare ownerId: string | null

  /** The question set (ask, intake) or `{ args, summary }` (read, action) */
  @jsonColumn()
  declare request: any

  /** sha256 of the args shown for approval; execution checks it (docs/design.md §6.5) */
  @column()
  declare argsHash: string | null

  /** Fingerprint of a question set's words, for answer memory (docs/design.md §4.5) */
  @column()
  declare fingerprint: string | null

  /** The raw reply as the person sent it */
  @jsonColumn()
  declare reply: Reply | null

  @jsonColumn()
  declare outcome: Outcome | null

  @column()
  declare execution: ToolExecution | null

  /** The lease owner whose driver claimed the execution */
  @column()
  declare claimedBy: string | null

  /**
   * The handler ran in one transaction with the row's mark: its writes and
   * the result commit together or not at all (docs/design.md §5.4)
   */
  @column({ consume: (value: unknown) => Boolean(value) })
  declare transactional: boolean

  /** The key the handler was given, the same on every start of this call */
  @column()
  declare idempotencyKey: string | null

  /** How many times the handler started; more than one: a transaction rolled back, and it ran again */
  @column()
  declare executionAttempts: number

  /** When the handler first started */
  @column.dateTime()
  declare startedAt: DateTime | null

  /** When its result (or its interruption) was written */
  @column.dateTime()
  declare executedAt: DateTime | null

  /** An approval's signature over the row, tool and args it lets run */
  @column()
  declare decisionSignature: string | null

  @jsonColumn()
  declare result: unknown

  @column()
  declare answeredBy: string | null

  @column()
  declare answeredVia: AnsweredVia | null

  @column.dateTime()
  declare settledAt: DateTime | null

  @column.dateTime()
  declare expiresAt: DateTime | null

  @column()
  declare onExpiry: ExpiryRule

  /** The escalation ladder's steps before expiry (docs/design.md §7.7), with when each ran */
  @jsonColumn()
  declare ladder: LadderState | null

  /** How many of the ladder's steps ran: each runs once, by a conditional update on it */
  @column()
  declare ladderStep: number

  /** When the ladder's next step is due; null when none is left */
  @column.dateTime()
  declare ladderDueAt: DateTime | null

  /** The fingerprint of its agent's definition it was asked under (runtime/definitions.ts) */
  @column()
  declare definitionDigest: string | null

  /** The W3C traceparent of the drive that opened the row, when traced (src/telemetry/) */
  @column()
  declare openedTrace: string | null

  /** The W3C traceparent of the settle, when traced (src/telemetry/) */
  @column()
  declare settledTrace: string | null

  @column.dateTime({ autoCreate: true })
  declare createdAt: DateTime

  @column.dateTime({ autoCreate: true, autoUpdate: true })
  declare updatedAt: DateTime

  @beforeCreate()
  static assignId(row: ToolCall) {
    row.id ??= randomUUID()
    row.onExpiry ??= 'defaults'
    row.attempt ??= 1
    row.ladderStep ??= 0
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u

/**
 * Whether a value can be a row id: rows get UUIDs (`assignId`), so anything
 * else names no row and is answered as such without reaching SQL, where a
 * NUL byte or a megabyte of text is an error rather than "no such row".
 * Only the lowercase form `randomUUID` writes is a row id: MySQL's default
 * collation would find a row by its id in capitals where SQLite and
 * PostgreSQL do not, and a row has one id on every database.
 *
 * @example
 * isRowId('0b0e3c9e-3f5e-4b4e-9a57-2f1d8e0c6d11') // true
 * isRowId('%00') // false
 */
export function isRowId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value)
}
