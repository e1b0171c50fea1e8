/*
 * The inbox owns the whole life of a pending row: `open` creates it (the
 * runtime's driver does, and so can anything else that needs a person: an
 * MCP elicitation, a policy, a reminder), `list` finds rows, `settle`
 * applies a reply, `expire`/`sweepExpired` settle the rows nobody answered.
 * Every channel (the page, the terminal, the JSON API) goes through here,
 * so every settlement takes the same path and leaves the same audit.
 *
 * It knows nothing of HTTP or of the runtime: who may see a row is the HTTP
 * layer's business (it narrows `list`), and resuming a run after a settle
 * is the runtime's (it listens through `onSettled`/`onExpired`).
 */

import { DateTime } from 'luxon'
import type { EventSink } from '../events.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { InvalidReplyException } from '../errors.ts'
import { sharedReplyIssues } from '../questions/reply.ts'
import { decidedRecords, openedRecords, type DecidedCall } from './row_records.ts'
import { listRows, type InboxPage, type InboxQuery } from './list.ts'
import {
  builtColumns,
  findRow,
  insertRow,
  recordedAttributes,
  waitAttributes,
  type ExecutedCall,
  type RecordedCall,
  type RowHolder,
} from './rows.ts'
import { RowSettler, type RowSettlerOptions, type SettleOptions } from './row_settler.ts'
import type { OpenOptions, WaitRequest } from './wait.ts'
import type { ExpiryOptions } from './expiry.ts'
import { AutoAnswerer, type AutoAnswerRule } from './auto_answer.ts'
import { RowWaiters, withdrawHeldRows, withdrawRow, type AwaitOptions } from './awaiting.ts'
import { runLadders, type LadderOptions } from './ladder_steps.ts'
import { resolveLadder } from '../governance/ladder.ts'
import { recordOpened } from '../telemetry/metrics.ts'

export type InboxOptions = RowSettlerOptions & {
  /**
   * Called with the rows a settle call won, once committed (one row, or
   * several from `settleEach`): the runtime resumes their runs here, each
   * run once.
   */
  onSettled?: (rows: ToolCall[]) => void | Promise<void>
  /** Receives `agents:row:created` for every row opened pending */
  events?: EventSink
  /** Write notices to the outbox (src/notify/) with rows opened and ladder steps */
  notify?: boolean
}

/**
 * What became of one row of `settleEach`: the row as settled, or the error
 * its reply met (the errors `settle` raises).
 */
export type SettleResult = { rowId: string; row: ToolCall } | { rowId: string; error: unknown }

/**
 * How a sweep goes: its batch size, and what to do after each batch.
 */
export type SweepOptions = Omit<ExpiryOptions, 'now' | 'limits'> & { now?: DateTime }

export type { OpenOptions } from './wait.ts'
export type { ExecutedCall, RecordedCall } from './rows.ts'

/**
 * @example
 * const row = await inbox.open(run, { kind: 'ask', set, toolCallId: 'call_1' })
 * const { rows, next } = await inbox.list({ status: 'pending', ownerId: 'user:1' })
 * await inbox.settle(row.id, { answers: {}, skip: true }, { by: 'user:1', via: 'api' })
 */
export class Inbox {
  #settler: RowSettler
  #now: () => DateTime
  #onSettled?: InboxOptions['onSettled']
  #events?: EventSink
  #waiters = new RowWaiters()
  #autoAnswerer?: AutoAnswerer
  #notify: boolean

  constructor(options: InboxOptions = {}) {
    // Rows this process settles or expires wake their waiters (awaiting.ts)
    this.#settler = new RowSettler({
      ...options,
      onExpired: async (batch) => {
        this.#waiters.wake(batch.expired)
        await options.onExpired?.(batch)
      },
    })
    this.#now = options.now ?? (() => DateTime.now())
    this.#onSettled = async (rows) => {
      this.#waiters.wake(rows)
      await options.onSettled?.(rows)
    }
    this.#events = options.events
    this.#notify = options.notify === true
  }

  /**
   * For tests: rows opened from now on are settled by `rule` (auto_answer.ts)
   * via `test`. Returns the errors replies met, and `stop()`.
   * @example inbox.autoAnswer({ answers: 'defaults', approve: ['deploy'] })
   */
  autoAnswer(rule: AutoAnswerRule) {
    const answerer = new AutoAnswerer(rule, (rowId, reply, by) =>
      this.settle(rowId, reply, { by, via: 'test' })
    )
    this.#autoAnswerer = answerer
    return {
      errors: answerer.errors,
      stop: () => {
        if (this.#autoAnswerer === answerer) this.#autoAnswerer = undefined
      },
    }
  }

  /** Resolves once the auto-answers started so far are settled; true if any were */
  settling(): Promise<boolean> {
    return this.#autoAnswerer?.settling() ?? Promise.resolve(false)
  }

  /** The row once settled here or elsewhere, or as it is when `signal` aborts (awaiting.ts) */
  settled(rowId: string, options?: AwaitOptions): Promise<ToolCall | null> {
    return this.#waiters.settled(rowId, options)
  }

  /**
   * The opener gives up a pending row nobody will read: `cancelled`, so late
   * replies get E_CANCELLED. Returns null when it was settled first.
   */
  async withdraw(rowId: string): Promise<ToolCall | null> {
    const row = await withdrawRow(rowId)
    if (row) await this.#withdrawn([row])
    return row
  }

  /**
   * Withdraws the pending rows of a run (null: run-less waits) that a dead
   * driver or process held open (`heldBy`), but those in `except`: nobody
   * holds their requests any more.
   */
  async withdrawHeld(runId: string | null, heldBy: string, except: string[] = []) {
    const rows = await withdrawHeldRows(runId, heldBy, except)
    await this.#withdrawn(rows)
    return rows
  }

  async #withdrawn(rows: ToolCall[]) {
    this.#waiters.wake(rows)
    for (const row of rows) await this.#events?.emit('agents:row:settled', { row })
  }

  /**
   * Opens a wait: a row that stays pending until a person (or its expiry)
   * settles it. `holder` is the run it belongs to, or `{ id: null,
   * ownerId }` for a wait from outside the runtime. Emits
   * `agents:row:created` once the row is committed. Raises E_ABORTED when
   * the run is known to have ended.
   */
  async open(holder: RowHolder, wait: WaitRequest, options: OpenOptions = {}): Promise<ToolCall> {
    const recalled = 'set' in wait ? options.recalled : undefined
    const quorum = 'set' in wait ? undefined : options.quorum
    const row = await insertRow(
      holder,
      {
        ...waitAttributes(wait, quorum),
        ...(options.definitionDigest !== undefined && {
          definitionDigest: options.definitionDigest,
        }),
        ...(options.openedTrace !== undefined && { openedTrace: options.openedTrace }),
        ...(recalled
          ? {
              status: 'answered',
              outcome: recalled,
              answeredBy: recalled.answeredBy,
              answeredVia: 'memory',
              settledAt: this.#now(),
            }
          : {
              status: 'pending',
              claimedBy: options.heldBy ?? null,
              expiresAt: options.expiresAt ?? null,
              onExpiry: options.onExpiry ?? 'defaults',
              ...resolveLadder(options.ladder, this.#now()),
            }),
      },
      {
        spendsBudget: options.spendsBudget === true && !recalled,
        sequence: options.sequence,
        also: recalled ? undefined : openedRecords(quorum, options, this.#notify),
      }
    )
    if (row.status === 'pending') {
      recordOpened(row, holder)
      await this.#events?.emit('agents:row:created', { row })
      this.#autoAnswerer?.opened(row)
    }
    return row
  }

  /** Records a tool call that runs without a person (status `auto`) */
  record(
    holder: RowHolder,
    call: RecordedCall,
    options: { sequence?: number; decided?: DecidedCall } = {}
  ): Promise<ToolCall> {
    const decided = options.decided
    if (!decided) return insertRow(holder, recordedAttributes(call), options)
    return insertRow(
      holder,
      {
        ...recordedAttributes(call),
        status: decided.status,
        outcome: decided.outcome,
        answeredVia: decided.answeredVia,
        settledAt: this.#now(),
      },
      {
        sequence: options.sequence,
        also: decidedRecords(decided),
      }
    )
  }

  /**
   * The prepared columns of calls that already ran, numbered from
   * `firstSequence`, for the caller to write in its own transaction (the
   * driver's checkpoint writes them with the step that ran them).
   */
  executedRows(
    holder: RowHolder & { id: string },
    calls: ExecutedCall[],
    firstSequence: number
  ): Record<string, unknown>[] {
    return builtColumns(
      holder,
      calls.map((call, index) => ({
        sequence: firstSequence + index,
        ...recordedAttributes(call),
        execution: call.execution,
        result: call.result,
      }))
    )
  }

  /** One page of pending or settled rows. See `InboxQuery` */
  list(query: InboxQuery): Promise<InboxPage> {
    return listRows(query)
  }

  /** A person's pending rows, oldest first: `list({ status: 'pending', ownerId })`'s first page */
  async pending(ownerId: string, options: { limit?: number } = {}): Promise<ToolCall[]> {
    const page = await this.list({ status: 'pending', ownerId, limit: options.limit })
    return page.rows
  }

  /** One row by id, or null */
  find(rowId: string): Promise<ToolCall | null> {
    return findRow(rowId)
  }

  /**
   * Settles a pending row with a reply. See `RowSettler.settle` for the
   * errors it raises.
   */
  async settle(
    rowOrId: string | ToolCall,
    reply: unknown,
    options: SettleOptions
  ): Promise<ToolCall> {
    const row = await this.#settler.settle(rowOrId, reply, options)
    // A vote that did not decide its quorum leaves the row pending: nothing to resume
    if (row.status !== 'pending') await this.#onSettled?.([row])
    return row
  }

  /**
   * Settles several rows with the same reply (approve these, reject these
   * with one reason, confirm these on their defaults), each by its own
   * conditional update: a row someone else settled first, or that the
   * reply does not fit, is reported and the others go on. Returns a
   * result per row, in order; `onSettled` hears the rows won at once, so
   * each run resumes once however many of its rows were settled. A reply
   * that does not hold, or names answers or edited args (which belong to
   * one row), is refused before any row is touched: E_INVALID_REPLY.
   *
   * @example
   * const results = await inbox.settleEach([a.id, b.id], { approved: true }, { by: '1', via: 'web' })
   */
  async settleEach(
    rows: (string | ToolCall)[],
    reply: unknown,
    options: SettleOptions & { views?: Record<string, string> }
  ): Promise<SettleResult[]> {
    const { views, ...shared } = options
    // One reply for all: it must hold, and hold for any row, before any row is touched
    const issues = sharedReplyIssues(await this.#settler.parse(reply))
    if (issues.length > 0) throw new InvalidReplyException(issues)
    const results: SettleResult[] = []
    for (const rowOrId of rows) {
      const rowId = typeof rowOrId === 'string' ? rowOrId : rowOrId.id
      try {
        const view = views?.[rowId] ?? shared.view
        results.push({
          rowId,
          row: await this.#settler.settle(rowOrId, reply, { ...shared, view }),
        })
      } catch (error) {
        results.push({ rowId, error })
      }
    }
    const won = results.flatMap((result) =>
      'row' in result && result.row.status !== 'pending' ? [result.row] : []
    )
    if (won.length > 0) await this.#onSettled?.(won)
    return results
  }

  /**
   * Settles one pending row by its expiry rule, now (for the `cancel`
   * rule, cancelling its run in the same transaction). Returns the
   * settled row, or null when it was no longer pending (someone answered
   * first).
   */
  async expire(row: ToolCall): Promise<ToolCall | null> {
    const batch = await this.#settler.expireRow(row)
    return batch.expired[0] ?? null
  }

  /**
   * Settles every pending row whose expiry has passed, by its expiry rule, in
   * set-based batches (src/inbox/expiry.ts): rows a person answered
   * meanwhile are left alone, two sweepers share the rows. `onBatch` hears
   * what each batch wrote once it committed. Returns the rows it settled.
   *
   * @example
   * await inbox.sweepExpired({ onBatch: ({ expired }) => notify(expired) })
   */
  sweepExpired(options: SweepOptions = {}): Promise<ToolCall[]> {
    return this.#settler.expireDue(options)
  }

  /** Runs the ladder steps due (at `now`, by default the inbox's clock): ./ladder_steps.ts */
  runLadders(options: Omit<LadderOptions, 'notify' | 'now'> & { now?: DateTime } = {}) {
    return runLadders({ ...options, now: options.now ?? this.#now(), notify: this.#notify })
  }
}
