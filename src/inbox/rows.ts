/*
 * Writing a run's tool-call rows. Every row, waiting or not, is written
 * here: next in its run's sequence, with the run's owner copied on so the
 * inbox finds "rows this person may settle" by index. A question of the
 * model's spends the run's ask budget in the same transaction, so a
 * crash cannot leave a row without its spent budget or the reverse.
 *
 * The driver that holds a run's lease knows the run's next sequence and
 * passes it (no `max()` query), and may write a whole step's rows in its
 * own transaction with one multi-row insert; the unique (run, sequence)
 * key stays the guard against two writers.
 */

import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { AgentRun, isFinished, type RunStatus } from '../persistence/models/agent_run.ts'
import { isRowId, ToolCall } from '../persistence/models/tool_call.ts'
import {
  nextSequence,
  preparedColumns,
  preparedRows,
  readRows,
} from '../persistence/prepared_columns.ts'
import { preparedRead } from '../persistence/prepared_reads.ts'
import { transaction } from '../persistence/transaction.ts'
import { E_ABORTED } from '../errors.ts'
import debug from '../debug.ts'
import { questionSetFingerprint } from '../questions/memory.ts'
import { hashArgs } from './args_hash.ts'
import type { WaitRequest } from './wait.ts'
import type { QuorumSpec } from '../governance/quorum.ts'

/**
 * The run a row belongs to: an agent run of the runtime, or none, for a
 * wait opened from outside the runtime (an MCP elicitation, say), which
 * only names the person who may answer it.
 */
export type RowHolder =
  | { id: string; ownerId: string | null; attempt: number; status?: RunStatus }
  | { id: null; ownerId: string | null }

export type InsertOptions = {
  /** Spend one of the run's ask budget in the same transaction */
  spendsBudget?: boolean
  /** The row's sequence, when the caller holds the run and knows it */
  sequence?: number
  /** More writes that belong with the row (its audit entry, its approvers), in its transaction */
  also?: (trx: TransactionClientContract, row: ToolCall) => Promise<void>
}

/**
 * What every new row of the holder's current attempt starts with.
 */
function newRow(holder: RowHolder, sequence: number, now: DateTime): Partial<ToolCall> {
  return {
    id: randomUUID(),
    runId: holder.id,
    attempt: holder.id === null ? 1 : holder.attempt,
    ownerId: holder.ownerId,
    sequence,
    onExpiry: 'defaults',
    ladderStep: 0,
    createdAt: now,
    updatedAt: now,
  }
}

/** The column `findRow` reads its run's agent into */
const RUN_AGENT = 'run_agent'

/**
 * One row by id, or null (for anything but a row id, without a query):
 * the read every settle and reply route starts with, so it skips Lucid's
 * model query and runs prepared on the driver, compiled once
 * (../persistence/prepared_reads.ts). It carries its run's agent
 * (`runAgentOf`), read by key in the same statement, so a settle can tell
 * a run this deploy cannot continue without a read of its own.
 */
export async function findRow(rowId: string): Promise<ToolCall | null> {
  if (!isRowId(rowId)) return null
  const client = ToolCall.$adapter.modelConstructorClient(ToolCall)
  const [row] = readRows(ToolCall, await rowById(client, [rowId]))
  return row ?? null
}

/** `findRow`'s statement, prepared (../persistence/prepared_reads.ts) */
const rowById = preparedRead(1, (client, rowId) => {
  const rows = ToolCall.table
  const runs = AgentRun.table
  /*
   * A scalar subquery, not a join: SQLite ran the join five times slower
   * (50 against 10 µs). No LIMIT: the id is the key, and a bound LIMIT made
   * SQLite's read of this statement five times slower again (64 against 12 µs).
   */
  const agent = client
    .knexQuery()
    .from(runs)
    .select(`${runs}.agent`)
    .whereRaw('?? = ??', [`${runs}.id`, `${rows}.run_id`])
  return client
    .knexQuery()
    .from(rows)
    .where(`${rows}.id`, rowId)
    .select(`${rows}.*`, { [RUN_AGENT]: agent })
})

/**
 * The agent of a row's run, as `findRow` read it: null for a row with no
 * run, undefined when the row was read otherwise.
 */
export function runAgentOf(row: ToolCall): string | null | undefined {
  return row.$extras[RUN_AGENT] as string | null | undefined
}

/**
 * The agent of a row's run: as `findRow` read it, else one read. Null for
 * a row with no run (or a run that is gone).
 */
export async function rowAgent(row: ToolCall): Promise<string | null> {
  if (!row.runId) return null
  const known = runAgentOf(row)
  if (known !== undefined) return known
  const run = await AgentRun.query().where('id', row.runId).select('agent').first()
  return run?.agent ?? null
}

/**
 * The agents of runs by id, read by primary key a thousand at a time:
 * for rows read without their run's (a batch the sweep expired, a sample
 * of decisions).
 */
export async function agentsOfRuns(runIds: Iterable<string>): Promise<Map<string, string>> {
  const ids = [...new Set(runIds)]
  const agents = new Map<string, string>()
  for (let offset = 0; offset < ids.length; offset += 1000) {
    const chunk = ids.slice(offset, offset + 1000)
    for (const run of await AgentRun.query().whereIn('id', chunk).select('id', 'agent')) {
      agents.set(run.id, run.agent)
    }
  }
  return agents
}

/**
 * A row of the holder's current attempt, built in memory with its id and
 * timestamps, not yet written (see `insertBuilt`).
 */
export function buildRow(
  holder: RowHolder,
  sequence: number,
  attributes: Partial<ToolCall>
): ToolCall {
  const row = new ToolCall()
  row.merge({ ...newRow(holder, sequence, DateTime.now()), ...attributes })
  return row
}

/**
 * The prepared columns of new rows of the holder's current attempt, for a
 * multi-row insert the caller makes: no model instance per row (the
 * driver's hot path, src/runtime/checkpoint_write.ts).
 */
export function builtColumns(
  holder: RowHolder,
  rows: (Partial<ToolCall> & { sequence: number })[]
): Record<string, unknown>[] {
  const now = DateTime.now()
  return preparedRows(
    ToolCall,
    rows.map((attributes) => ({ ...newRow(holder, attributes.sequence, now), ...attributes }))
  )
}

/**
 * Writes rows built by `buildRow` with one multi-row insert, in the
 * caller's transaction.
 */
export async function insertBuilt(rows: ToolCall[], client: TransactionClientContract) {
  if (rows.length === 0) return
  await client
    .insertQuery()
    .table(ToolCall.table)
    .multiInsert(rows.map((row) => preparedColumns(row, row.$attributes)))
  // Written: later updates of these instances (an execution claim) are updates
  for (const row of rows) row.$isPersisted = true
}

/**
 * Inserts a row of the holder's current attempt, next in sequence. With
 * `spendsBudget`, the run's `ask_count` goes up by one in the same
 * transaction. A run known to be finished gets E_ABORTED: nobody would
 * ever read the row's answer.
 */
export async function insertRow(
  holder: RowHolder,
  attributes: Partial<ToolCall>,
  options: InsertOptions = {}
): Promise<ToolCall> {
  if (holder.id === null) {
    const row = buildRow(holder, 1, attributes)
    await transaction(ToolCall, async (trx) => {
      await insertBuilt([row], trx)
      await options.also?.(trx, row)
    })
    debug('external row %s (%s, %s)', row.id, row.kind, row.status)
    return row
  }

  const runId = holder.id
  if (holder.status && isFinished(holder.status)) throw new E_ABORTED([runId])
  const row = await transaction(AgentRun, async (trx) => {
    const sequence = options.sequence ?? (await nextSequence(ToolCall, runId, trx))
    const built = buildRow(holder, sequence, attributes)
    await insertBuilt([built], trx)
    if (options.spendsBudget) {
      await trx.from(AgentRun.table).where('id', runId).increment('ask_count', 1)
    }
    await options.also?.(trx, built)
    return built
  })
  debug('run %s: row %s (%s, %s)', runId, row.id, row.kind, row.status)
  return row
}

/**
 * A tool call that needs nobody: written for the run record, and so that
 * executing it once can be claimed on the row.
 */
export type RecordedCall = {
  kind: 'read' | 'action'
  toolName: string
  toolCallId: string | null
  args: unknown
  summary: string
  /** The digest of the tool's input schema the args were validated with (current_tool.ts) */
  schema?: string
}

/**
 * A call that already ran, recorded with its outcome in the caller's
 * transaction: a read tool whose whole step commits at once needs no claim
 * on its row (docs/design.md §8.2).
 */
export type ExecutedCall = RecordedCall & {
  execution: 'succeeded' | 'failed'
  result: unknown
}

/** The schema digest a call carries, as its row's `request` keeps it */
function schemaOf(call: { schema?: string }) {
  return call.schema === undefined ? {} : { schema: call.schema }
}

/**
 * The columns of a row that waits for nobody.
 */
export function recordedAttributes(call: RecordedCall): Partial<ToolCall> {
  return {
    kind: call.kind,
    toolName: call.toolName,
    toolCallId: call.toolCallId,
    status: 'auto',
    request: { args: call.args, summary: call.summary, ...schemaOf(call) },
    argsHash: hashArgs(call.args),
  }
}

/**
 * The columns of a row that waits: what it asks (a question set and its
 * fingerprint, or the args to approve, their hash and a link to open).
 */
export function waitAttributes(wait: WaitRequest, quorum?: QuorumSpec): Partial<ToolCall> {
  const named = {
    kind: wait.kind,
    toolName: wait.toolName ?? wait.kind,
    toolCallId: wait.toolCallId ?? null,
  }
  if ('set' in wait) {
    return { ...named, request: wait.set, fingerprint: questionSetFingerprint(wait.set) }
  }
  const link = wait.link === undefined ? {} : { link: wait.link }
  const request = {
    args: wait.args,
    summary: wait.summary,
    ...schemaOf(wait),
    ...link,
    ...(quorum ? { approval: quorum } : {}),
    ...(!quorum && wait.grants?.length ? { grants: wait.grants } : {}),
  }
  return { ...named, request, argsHash: hashArgs(wait.args) }
}
