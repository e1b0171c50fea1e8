/*
 * What a driver keeps of a run while it holds the run's lease: the run
 * row, its journal and this attempt's rows, read once when the lease is
 * taken and then appended to as the driver writes. Nothing is read back per
 * step: the sequences of new journal entries and rows come from here, and
 * the unique keys on (run, sequence) remain the guard against a second
 * writer. A checkpoint is one transaction: the lease's fence, then every
 * entry (and row) the step produced, with multi-row inserts.
 */

import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import {
  affectedRows,
  nextSequence,
  preparedColumns,
  readRows,
} from '../persistence/prepared_columns.ts'
import { transaction } from '../persistence/transaction.ts'
import type { JournalEntry, JournalPayloads } from './journal.ts'
import type { Lease } from './lease.ts'

/**
 * One entry to append, under a key unique in the run.
 */
export type NewEntry = {
  [K in keyof JournalPayloads]: { key: string; kind: K; payload: JournalPayloads[K] }
}[keyof JournalPayloads]

/**
 * Rows the same checkpoint writes, numbered from `firstSequence`.
 */
export type RowWriter = (
  client: TransactionClientContract,
  firstSequence: number
) => Promise<ToolCall[]>

export class RunMemory {
  readonly run: AgentRun
  readonly journal: JournalEntry[]
  readonly rows: ToolCall[]
  #nextRow: number
  #lease: Lease
  /** Called inside a checkpoint's transaction, before it commits (crash tests) */
  #beforeCommit?: () => void | Promise<void>

  private constructor(
    run: AgentRun,
    journal: JournalEntry[],
    rows: ToolCall[],
    nextRow: number,
    lease: Lease,
    beforeCommit?: () => void | Promise<void>
  ) {
    this.run = run
    this.journal = journal
    this.rows = rows
    this.#nextRow = nextRow
    this.#lease = lease
    this.#beforeCommit = beforeCommit
  }

  /**
   * Reads what the run needs: the run, its journal (parsed once) and the
   * rows of its current attempt. Three queries, once per drive; a fourth
   * for the next row sequence of a retried run.
   */
  static async load(runId: string, lease: Lease, beforeCommit?: () => void | Promise<void>) {
    const run = await AgentRun.findOrFail(runId)
    const saved = await JournalRow.query()
      .where('run_id', runId)
      .orderBy('sequence', 'asc')
      .select('kind', 'payload')
      .pojo<{ kind: string; payload: unknown }>()
    const journal = saved.map(
      (entry) =>
        ({
          kind: entry.kind,
          payload: typeof entry.payload === 'string' ? JSON.parse(entry.payload) : entry.payload,
        }) as JournalEntry
    )
    const rows = readRows(
      ToolCall,
      await ToolCall.query()
        .where('run_id', runId)
        .where('attempt', run.attempt)
        .orderBy('sequence', 'asc')
        .pojo<Record<string, unknown>>()
    )
    const nextRow =
      run.attempt === 1 ? (rows.at(-1)?.sequence ?? 0) + 1 : await nextSequence(ToolCall, runId)
    return new RunMemory(run, journal, rows, nextRow, lease, beforeCommit)
  }

  /**
   * The sequence of the next row of the run.
   */
  takeRowSequence(): number {
    return this.#nextRow++
  }

  /**
   * Appends `entries` to the journal, and writes the rows `writeRows` makes,
   * in one transaction behind the lease's fence. Returns false, having
   * written nothing, when this driver may no longer write: the run was
   * cancelled or finished, or its lease was taken by another driver.
   *
   * `fenced: false` is for the audit of a run that ended under the driver's
   * feet (a cancel while its reads ran): what ran is still written down,
   * and nobody will drive the run again.
   */
  async checkpoint(entries: NewEntry[], writeRows?: RowWriter, fenced = true): Promise<boolean> {
    const first = this.journal.length + 1
    const now = DateTime.now()
    const probe = new JournalRow()
    let written: ToolCall[] = []
    const firstRow = this.#nextRow
    const committed = await transaction(AgentRun, async (trx) => {
      const length = {
        journal_length: first - 1 + entries.length,
        // A checkpoint is progress: a drive error noted on the run is over
        ...(this.run.lastError !== null ? { last_error: null, last_error_at: null } : {}),
      }
      if (fenced) {
        if (!(await this.#lease.fence(trx, this.run.id, length))) return false
      } else {
        // Still this driver's run (a cancel leaves the lease owner): a run another driver finished is not
        const own = trx.from(AgentRun.table).where('id', this.run.id)
        if (affectedRows(await own.where('lease_owner', this.#lease.owner).update(length)) !== 1) {
          return false
        }
      }
      await trx
        .insertQuery()
        .table(JournalRow.table)
        .multiInsert(
          entries.map((entry, index) =>
            preparedColumns(probe, {
              runId: this.run.id,
              sequence: first + index,
              key: entry.key,
              kind: entry.kind,
              payload: entry.payload,
              createdAt: now,
            })
          )
        )
      if (writeRows) written = await writeRows(trx, firstRow)
      await this.#beforeCommit?.()
      return true
    })
    if (!committed) return false
    this.#nextRow = firstRow + written.length
    this.rows.push(...written)
    this.journal.push(...entries.map(({ kind, payload }) => ({ kind, payload }) as JournalEntry))
    Object.assign(this.run, {
      journalLength: this.journal.length,
      lastError: null,
      lastErrorAt: null,
    })
    return true
  }
}
