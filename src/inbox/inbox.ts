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
import { isRowId, ToolCall } from '../persistence/models/tool_call.ts'
import { InvalidReplyException } from '../errors.ts'
import { questionSetFingerprint } from '../questions/memory.ts'
import { sharedReplyIssues } from '../questions/reply.ts'
import type { ExpiryPolicy } from '../questions/settle.ts'
import type { QuestionOutcome } from '../questions/types.ts'
import type { QuorumSpec } from '../governance/quorum.ts'
import { decidedRecords, openedRecords, type DecidedCall } from './row_records.ts'
import { hashArgs } from './args_hash.ts'
import { readRows } from '../persistence/prepared_columns.ts'
import { listRows, type InboxPage, type InboxQuery } from './list.ts'
import { builtColumns, insertRow, type RowHolder } from './rows.ts'
import { RowSettler, type RowSettlerOptions, type SettleOptions } from './row_settler.ts'
import type { WaitRequest } from './wait.ts'
import type { ExpiryOptions } from './expiry.ts'

export type InboxOptions = RowSettlerOptions & {
  /**
   * Called with the rows a settle call won, once committed (one row, or
   * several from `settleEach`): the runtime resumes their runs here, each
   * run once.
   */
  onSettled?: (rows: ToolCall[]) => void | Promise<void>
  /** Receives `agents:row:created` for every row opened pending */
  events?: EventSink
}

export type OpenOptions = {
  /** When nobody answered by then, the row is settled by `onExpiry`; null: never */
  expiresAt?: DateTime | null
  /** What expiry does: take the defaults (default), reject, or cancel the run */
  onExpiry?: ExpiryPolicy
  /** A question of the model's: spends one of the run's ask budget with the row */
  spendsBudget?: boolean
  /**
   * The same questions were answered earlier in this run (answer memory):
   * the row is written already answered with this outcome, via `memory`,
   * and waits for nobody.
   */
  recalled?: QuestionOutcome
  /** The row's sequence, when the caller holds the run and knows it */
  sequence?: number
  /**
   * An approval that needs a quorum (docs/design.md §11.3): stored with the
   * row, each approver a record of `agent_approvers`, in its transaction
   */
  quorum?: QuorumSpec
  /** What decided to open it (a policy's rule), for its audit entry */
  decidedBy?: Record<string, unknown>
}

/**
 * What became of one row of `settleEach`: the row as settled, or the error
 * its reply met (the errors `settle` raises).
 */
export type SettleResult = { rowId: string; row: ToolCall } | { rowId: string; error: unknown }

/**
 * How a sweep goes: its batch size, and what to do after each batch.
 */
export type SweepOptions = Omit<ExpiryOptions, 'now' | 'limits'>

/**
 * A tool call that needs nobody: written for the audit trail, and so that
 * executing it once can be claimed on the row.
 */
export type RecordedCall = {
  kind: 'read' | 'action'
  toolName: string
  toolCallId: string | null
  args: unknown
  summary: string
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

  constructor(options: InboxOptions = {}) {
    this.#settler = new RowSettler(options)
    this.#now = options.now ?? (() => DateTime.now())
    this.#onSettled = options.onSettled
    this.#events = options.events
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
        kind: wait.kind,
        toolName: wait.toolName ?? wait.kind,
        toolCallId: wait.toolCallId ?? null,
        ...('set' in wait
          ? { request: wait.set, fingerprint: questionSetFingerprint(wait.set) }
          : {
              request: {
                args: wait.args,
                summary: wait.summary,
                ...(quorum ? { approval: quorum } : {}),
                ...(!quorum && wait.grants?.length ? { grants: wait.grants } : {}),
              },
              argsHash: hashArgs(wait.args),
            }),
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
              expiresAt: options.expiresAt ?? null,
              onExpiry: options.onExpiry ?? 'defaults',
            }),
      },
      {
        spendsBudget: options.spendsBudget === true && !recalled,
        sequence: options.sequence,
        also: recalled ? undefined : openedRecords(quorum, options.decidedBy),
      }
    )
    if (row.status === 'pending') await this.#events?.emit('agents:row:created', { row })
    return row
  }

  /**
   * Records a tool call that runs without a person (status `auto`).
   */
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

  /**
   * One page of pending or settled rows. See `InboxQuery`.
   */
  list(query: InboxQuery): Promise<InboxPage> {
    return listRows(query)
  }

  /**
   * Pending rows owned by a person, oldest first: the first page of
   * `list({ status: 'pending', ownerId })`.
   */
  async pending(ownerId: string, options: { limit?: number } = {}): Promise<ToolCall[]> {
    const page = await this.list({ status: 'pending', ownerId, limit: options.limit })
    return page.rows
  }

  /**
   * One row by id, or null.
   */
  async find(rowId: string): Promise<ToolCall | null> {
    if (!isRowId(rowId)) return null
    const [row] = readRows(ToolCall, await ToolCall.query().where('id', rowId).limit(1).pojo())
    return row ?? null
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
   * Settles one pending row by its expiry policy, now (for the `cancel`
   * policy, cancelling its run in the same transaction). Returns the
   * settled row, or null when it was no longer pending (someone answered
   * first).
   */
  async expire(row: ToolCall): Promise<ToolCall | null> {
    const batch = await this.#settler.expireRow(row)
    return batch.expired[0] ?? null
  }

  /**
   * Settles every pending row whose expiry has passed, by its policy, in
   * set-based batches (500 rows, or runs of the `cancel` policy, a
   * transaction): rows a person answered meanwhile are left alone, and two
   * sweepers at once share the rows instead of racing for them
   * (src/inbox/expiry.ts). `onBatch` hears what each batch wrote once it
   * committed. Returns the rows this call settled.
   *
   * @example
   * await inbox.sweepExpired({ onBatch: ({ expired }) => notify(expired) })
   */
  sweepExpired(options: SweepOptions = {}): Promise<ToolCall[]> {
    return this.#settler.expireDue(options)
  }
}

/**
 * The columns of a row that waits for nobody.
 */
function recordedAttributes(call: RecordedCall): Partial<ToolCall> {
  return {
    kind: call.kind,
    toolName: call.toolName,
    toolCallId: call.toolCallId,
    status: 'auto',
    request: { args: call.args, summary: call.summary },
    argsHash: hashArgs(call.args),
  }
}
