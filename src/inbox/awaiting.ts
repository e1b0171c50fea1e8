/*
 * Waiting in memory for one row to be settled, for openers that hold
 * something open while a person answers (an MCP server's elicitation
 * request, which lives in the connection, not in the database). A row
 * settled in this process wakes its waiter at once; one settled by another
 * process (a second web server, a sweep from cron) is found by reading the
 * row back every `interval`. And `withdrawRow`: the opener gives up a row
 * nobody will read (the request was cancelled, the connection closed), so a
 * late reply gets E_CANCELLED instead of a settlement nobody hears.
 */

import { DateTime } from 'luxon'
import { isRowId, ToolCall } from '../persistence/models/tool_call.ts'
import { affectedRows, preparedColumns, readRows } from '../persistence/prepared_columns.ts'
import debug from '../debug.ts'

export type AwaitOptions = {
  /** Stops waiting (resolves with the row as it is, pending) */
  signal?: AbortSignal
  /** How often the row is read back, for settles in other processes; default 500 ms */
  interval?: number
}

async function readRow(rowId: string): Promise<ToolCall | null> {
  if (!isRowId(rowId)) return null
  const [row] = readRows(ToolCall, await ToolCall.query().where('id', rowId).limit(1).pojo())
  return row ?? null
}

/**
 * The rows this process awaits in memory right now (whichever inbox), by
 * row id with their run. A driver holding an MCP elicitation open is not
 * idle, it waits on a person: the testing kit's `drive` stops there.
 * Listeners hear each wait start, and each time it reads its row again.
 */
class HeldRows {
  #rows = new Map<string, { runId: string | null; holders: number }>()
  #listeners = new Set<() => void>()

  hold(rowId: string, runId: string | null) {
    const held = this.#rows.get(rowId) ?? { runId, holders: 0 }
    held.holders++
    this.#rows.set(rowId, held)
  }

  release(rowId: string) {
    const held = this.#rows.get(rowId)
    if (held && --held.holders === 0) this.#rows.delete(rowId)
  }

  announce() {
    for (const listener of this.#listeners) listener()
  }

  /** The ids of this run's rows awaited in memory */
  ofRun(runId: string): string[] {
    return [...this.#rows].filter(([, held]) => held.runId === runId).map(([rowId]) => rowId)
  }

  /** Calls `listener` whenever a wait starts or reads its row again; returns the unsubscribe */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}

export const heldRows = new HeldRows()

/**
 * The waiters of rows, by row id, woken by this process's settles.
 */
export class RowWaiters {
  #waiters = new Map<string, Set<() => void>>()

  /**
   * Rows this process settled (or expired): their waiters read them now.
   */
  wake(rows: { id: string }[]) {
    for (const row of rows) for (const wake of this.#waiters.get(row.id) ?? []) wake()
  }

  /**
   * Resolves with the row once it is no longer pending, or as it is when
   * `signal` aborts; null when there is no such row.
   */
  async settled(rowId: string, options: AwaitOptions = {}): Promise<ToolCall | null> {
    const interval = options.interval ?? 500
    let held = false
    try {
      for (;;) {
        const row = await readRow(rowId)
        if (!row || row.status !== 'pending' || options.signal?.aborted) return row
        if (!held) heldRows.hold(rowId, row.runId)
        held = true
        heldRows.announce()
        await this.#pause(rowId, interval, options.signal)
      }
    } finally {
      if (held) heldRows.release(rowId)
    }
  }

  /**
   * Until this row is woken, `interval` passes or `signal` aborts.
   */
  #pause(rowId: string, interval: number, signal?: AbortSignal) {
    return new Promise<void>((resolve) => {
      const waiters = this.#waiters.get(rowId) ?? new Set()
      this.#waiters.set(rowId, waiters)
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        waiters.delete(done)
        if (waiters.size === 0) this.#waiters.delete(rowId)
        resolve()
      }
      const timer = setTimeout(done, interval)
      signal?.addEventListener('abort', done, { once: true })
      waiters.add(done)
    })
  }
}

/**
 * Moves a still-pending row to `cancelled`: its opener will not read an
 * answer. Returns the row as withdrawn, or null when it was settled first
 * (or does not exist).
 */
export async function withdrawRow(rowId: string): Promise<ToolCall | null> {
  if (!isRowId(rowId)) return null
  const now = DateTime.now()
  const changed = await ToolCall.query()
    .where('id', rowId)
    .where('status', 'pending')
    .update(preparedColumns(new ToolCall(), { status: 'cancelled', updatedAt: now }))
  if (affectedRows(changed) !== 1) return null
  debug('row %s withdrawn by its opener', rowId)
  return readRow(rowId)
}

/**
 * Withdraws the pending rows of a run (null: run-less waits) held open by
 * `heldBy`, a driver or process that died mid-call: the request they
 * answer died with it (an MCP server's elicitation, its connection gone).
 * Rows in `except` are still held. Returns the rows withdrawn.
 */
export async function withdrawHeldRows(
  runId: string | null,
  heldBy: string,
  except: string[] = []
): Promise<ToolCall[]> {
  const query = ToolCall.query().where('status', 'pending').where('claimed_by', heldBy)
  if (runId === null) query.whereNull('run_id')
  else query.where('run_id', runId)
  if (except.length > 0) query.whereNotIn('id', except)
  const held = await query.select('id')
  const withdrawn: ToolCall[] = []
  for (const row of held) {
    const done = await withdrawRow(row.id)
    if (done) withdrawn.push(done)
  }
  return withdrawn
}
