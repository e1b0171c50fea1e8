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
import { AgentRun } from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { nextSequence, preparedRows, readRows } from '../persistence/prepared_columns.ts'
import { preparedRead } from '../persistence/prepared_reads.ts'
import { writeCheckpoint } from './checkpoint_write.ts'
import { Conversation } from './journal_messages.ts'
import { resultKey, type JournalEntry, type JournalPayloads, type ToolOutput } from './journal.ts'
import type { Lease } from './lease.ts'

/**
 * One entry to append, under a key unique in the run.
 */
export type NewEntry = {
  [K in keyof JournalPayloads]: { key: string; kind: K; payload: JournalPayloads[K] }
}[keyof JournalPayloads]

/**
 * The prepared columns of rows the same checkpoint writes, numbered from
 * `firstSequence`. They are written, not kept: rows a checkpoint records
 * with their outcome are never acted on again in this drive.
 */
export type RowBuilder = (firstSequence: number) => Record<string, unknown>[]

/*
 * The reads of every drive, prepared on the driver and compiled once
 * (../persistence/prepared_reads.ts).
 */
const journalOfRun = preparedRead(1, (client, runId) =>
  client
    .knexQuery()
    .from(JournalRow.table)
    .where('run_id', runId)
    .orderBy('sequence', 'asc')
    .select('kind', 'payload')
)
/** A run's row, by its key (MySQL reads it before it takes the lease) */
const runById = preparedRead(1, (client, runId) =>
  client.knexQuery().from(AgentRun.table).where('id', runId)
)
const rowsOfRun = preparedRead(1, (client, runId) =>
  client.knexQuery().from(ToolCall.table).where('run_id', runId).orderBy('sequence', 'asc')
)
const rowsOfAttempt = preparedRead(2, (client, runId, attempt) =>
  client
    .knexQuery()
    .from(ToolCall.table)
    .where('run_id', runId)
    .where('attempt', attempt)
    .orderBy('sequence', 'asc')
)

async function readJournal(runId: string): Promise<JournalEntry[]> {
  const client = JournalRow.$adapter.modelConstructorClient(JournalRow)
  const saved = await journalOfRun(client, [runId])
  return saved.map(
    (entry) =>
      ({
        kind: entry.kind,
        payload: typeof entry.payload === 'string' ? JSON.parse(entry.payload) : entry.payload,
      }) as JournalEntry
  )
}

/** The run's rows in sequence, of one attempt or of all */
async function readToolCalls(runId: string, attempt?: number): Promise<ToolCall[]> {
  const client = ToolCall.$adapter.modelConstructorClient(ToolCall)
  const rows =
    attempt === undefined
      ? await rowsOfRun(client, [runId])
      : await rowsOfAttempt(client, [runId, attempt])
  return readRows(ToolCall, rows)
}

export class RunMemory {
  readonly run: AgentRun
  readonly journal: JournalEntry[]
  readonly rows: ToolCall[]
  /** The journal as model messages, kept up to date with it */
  readonly conversation: Conversation
  #nextRow: number
  /** Entries in `journal` not written yet: they go with the next checkpoint */
  #staged: NewEntry[] = []
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
    this.conversation = new Conversation(journal)
    this.#nextRow = nextRow
    this.#lease = lease
    this.#beforeCommit = beforeCommit
  }

  /**
   * Takes the run's lease and reads what the driver needs: the run, its
   * journal (parsed once) and the rows of its current attempt; false when
   * the lease is refused. Where the lease's update returns the run
   * (PostgreSQL, SQLite), two reads follow it (none for a run with nothing
   * journaled yet), and one more for the next row sequence of a retried
   * run. MySQL returns nothing from an update, so the run is read first and
   * the lease taken only if the run is still as read (its journal's length
   * and attempt), while its journal and every attempt's rows are read
   * alongside on other connections of the pool: two round trips' wait
   * where one after another would be four. A checkpoint by another driver
   * meanwhile changes the length and the lease is refused; then the lease
   * is taken as elsewhere and everything read after it. `beforeCommit`
   * (a crash test's) runs inside each checkpoint's transaction: without
   * one, checkpoints may share a COMMIT (../persistence/sqlite_writes.ts).
   */
  static async take(
    runId: string,
    lease: Lease,
    beforeCommit?: () => void | Promise<void>
  ): Promise<RunMemory | false> {
    const client = AgentRun.$adapter.modelConstructorClient(AgentRun)
    if (client.dialect.name !== 'mysql') {
      const acquired = await lease.acquire(runId)
      if (!acquired) return false
      const run = acquired.run!
      // A run with nothing journaled has no rows in this attempt either: the driver writes both
      const fresh = run.journalLength === 0
      const journal = fresh ? [] : await readJournal(runId)
      const rows = fresh ? [] : await readToolCalls(runId, run.attempt)
      const nextRow =
        run.attempt === 1 ? (rows.at(-1)?.sequence ?? 0) + 1 : await nextSequence(ToolCall, runId)
      return new RunMemory(run, journal, rows, nextRow, lease, beforeCommit)
    }
    const [read] = readRows(AgentRun, await runById(client, [runId]))
    if (!read) return false
    const fresh = read.journalLength === 0
    const [acquired, journal, everyRow] = await Promise.all([
      lease.acquire(runId, read),
      fresh ? [] : readJournal(runId),
      // A retried run's earlier attempts hold rows: the next sequence comes after theirs
      fresh && read.attempt === 1 ? [] : readToolCalls(runId),
    ])
    if (acquired) return RunMemory.#ofAttempt(read, journal, everyRow, lease, beforeCommit)
    if (!(await lease.acquire(runId))) return false
    const [run, ...rest] = await Promise.all([
      AgentRun.findOrFail(runId),
      readJournal(runId),
      readToolCalls(runId),
    ])
    return RunMemory.#ofAttempt(run, ...rest, lease, beforeCommit)
  }

  /** From every attempt's rows: the current attempt's, and the next sequence */
  static #ofAttempt(
    run: AgentRun,
    journal: JournalEntry[],
    everyRow: ToolCall[],
    lease: Lease,
    beforeCommit?: () => void | Promise<void>
  ) {
    const rows = everyRow.filter((row) => row.attempt === run.attempt)
    const nextRow = (everyRow.at(-1)?.sequence ?? 0) + 1
    return new RunMemory(run, journal, rows, nextRow, lease, beforeCommit)
  }

  /**
   * The sequence of the next row of the run.
   */
  takeRowSequence(): number {
    return this.#nextRow++
  }

  /**
   * Adds an entry to the journal in memory, to be written with the next
   * checkpoint: for an entry the run can derive again from its row (the
   * input), which needs no commit of its own.
   */
  stage(entry: NewEntry): void {
    this.#staged.push(entry)
    this.#remember(entry)
  }

  /**
   * Adds the result of a call of `step`. Its row holds what it says (an answer, a
   * decision, what the tool returned), so it is staged, journaled with the
   * next checkpoint (the model's next response), not by a commit of its
   * own: killed before then, the next driver derives it again from the row
   * without running anything twice (docs/design.md §8.2). But a handler that
   * ran (`handlerRan`) may have outlived the lease: then it is written at
   * once, and false (nothing written) says the fence refused it.
   */
  async result(
    step: number,
    call: { toolCallId: string; toolName: string },
    output: ToolOutput,
    handlerRan: boolean
  ): Promise<boolean> {
    const entry: NewEntry = {
      key: resultKey(step, call.toolCallId),
      kind: 'tool-result',
      payload: { step, toolCallId: call.toolCallId, toolName: call.toolName, output },
    }
    if (handlerRan) return this.checkpoint([entry])
    this.stage(entry)
    return true
  }

  /**
   * Appends `entries` (after any staged ones) to the journal, and writes the rows `rows` builds,
   * all or nothing behind the lease's fence (checkpoint_write.ts). Returns false, having
   * written nothing, when this driver may no longer write: the run was
   * cancelled or finished, or its lease was taken by another driver.
   *
   * `fenced: false` is for the audit of a run that ended under the driver's
   * feet (a cancel while its reads ran): what ran is still written down,
   * and nobody will drive the run again.
   */
  async checkpoint(entries: NewEntry[], rows?: RowBuilder, fenced = true): Promise<boolean> {
    const written = [...this.#staged, ...entries]
    const first = this.journal.length - this.#staged.length + 1
    const now = DateTime.now()
    const calls = rows ? rows(this.#nextRow) : []
    const length = {
      journal_length: first - 1 + written.length,
      // A checkpoint is progress: a drive error noted on the run is over
      ...(this.run.lastError !== null ? { last_error: null, last_error_at: null } : {}),
    }
    // A checkpoint must change the row (MySQL counts changed rows): its length does, or the lease
    const due = written.length > 0 ? this.run.leaseExpiresAt : null
    const extended = fenced ? this.#lease.extension(now, due) : null
    const committed = await writeCheckpoint({
      runId: this.run.id,
      owner: this.#lease.owner,
      running: fenced,
      run: extended ? { ...length, ...extended.columns } : length,
      journal: preparedRows(
        JournalRow,
        written.map((entry, index) => ({
          runId: this.run.id,
          sequence: first + index,
          key: entry.key,
          kind: entry.kind,
          payload: entry.payload,
          createdAt: now,
        }))
      ),
      calls,
      beforeCommit: this.#beforeCommit,
    })
    if (!committed) return false
    this.#nextRow += calls.length
    this.#staged = []
    for (const entry of entries) this.#remember(entry)
    Object.assign(this.run, {
      journalLength: this.journal.length,
      lastError: null,
      lastErrorAt: null,
      ...(extended && { leaseExpiresAt: extended.expiresAt, updatedAt: now }),
    })
    return true
  }

  #remember({ kind, payload }: NewEntry) {
    const entry = { kind, payload } as JournalEntry
    this.journal.push(entry)
    this.conversation.add(entry)
  }
}
