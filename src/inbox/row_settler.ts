/*
 * Settling a tool-call row: the one path every reply takes, whatever the
 * channel (web, terminal, API, expiry). It validates the reply against the
 * row's kind and request, computes the outcome with the pure question model,
 * then writes it with a conditional update on a still-pending, unexpired row,
 * so that of N concurrent replies exactly one wins (docs/design.md §7.2). The losers
 * learn who won and when. Rows nobody answered in time are settled by their
 * expiry rule through ./expiry.ts, one row or a batch at a time.
 */

import { DateTime } from 'luxon'
import {
  AlreadySettledException,
  E_CANCELLED,
  E_EXPIRED,
  E_STALE_VIEW,
  E_NOT_FOUND,
  InvalidReplyException,
} from '../errors.ts'
import { checkAnswers, normalizeReply, parseReply } from '../questions/reply.ts'
import { settleReply } from '../questions/settle.ts'
import type { DecisionReply, Outcome, QuestionLimits, Reply } from '../questions/types.ts'
import { isRowId, ToolCall } from '../persistence/models/tool_call.ts'
import { waitOf } from './wait.ts'
import { findRow } from './rows.ts'
import type { DecisionSigner } from './decision_signature.ts'
import debug from '../debug.ts'
import { expireRow, sweepDue, type ExpiryBatch, type ExpiryOptions } from './expiry.ts'
import type { GrantChoice } from '../governance/grant_rules.ts'
import type { GrantScope } from '../persistence/models/grant.ts'
import {
  actorOf,
  checkedView,
  settledChanges,
  settlementEntries,
  type SettlingActor,
} from './settled_changes.ts'
import { buildGrant } from './grants.ts'
import { writeSettlement } from './settlement_write.ts'
import { castVote, quorumOf } from './votes.ts'
import { checkEdit, type EditedInputValidator } from './edited_input.ts'
import type { Tally } from '../governance/quorum.ts'
import { noteSettled } from '../telemetry/settled.ts'

/**
 * Who settles a row and through what.
 */
export type SettleOptions = SettlingActor & {
  /**
   * The digest of the row as the person was shown it (`viewDigest`, the
   * cards' `digest`): a reply made on another version is refused with
   * E_STALE_VIEW (docs/design.md §11.4). Channels that show rows to people
   * send it; trusted server code may leave it out.
   */
  view?: string
  /** Refuse a reply that names no view (the HTTP routes do) */
  requireView?: boolean
  /** Approve and remember: one of the grant scopes the tool offers */
  grant?: GrantScope
}

export type RowSettlerOptions = {
  limits?: Partial<QuestionLimits>
  /** Signs approvals over what they let run; the provider passes the app's message verifier */
  signer?: DecisionSigner
  validateEditedInput?: EditedInputValidator
  /**
   * Refuses a reply to a row whose run cannot go on, by throwing before
   * anything is written: the runtime's, for a run of an agent the running
   * deploy no longer defines (it ends the run, closing its rows, and throws
   * E_UNKNOWN_AGENT). Rows read by `findRow` carry their run's agent.
   */
  checkRun?: (row: ToolCall) => Promise<void>
  /**
   * Refuses an approval the running deploy cannot carry out, by throwing
   * before it is written (the runtime's: a removed tool, a policy that now
   * denies it, args its current schema refuses; src/runtime/approval_check.ts)
   */
  checkApproval?: (row: ToolCall, reply: DecisionReply) => Promise<void>
  /** The clock; tests move it to expire rows */
  now?: () => DateTime
  /**
   * Called with what expiring a row a late reply found past its time wrote
   * (the row, and its run when its expiry rule cancelled it): the runtime
   * resumes the run here, as after a sweep, so the run never waits on a row
   * that is no longer pending.
   */
  onExpired?: (batch: ExpiryBatch) => void | Promise<void>
}

/**
 * Settles pending rows. Stateless apart from its options: one instance
 * serves the whole app.
 *
 * @example
 * const settler = new RowSettler()
 * await settler.settle(rowId, { answers: { db: ['pg'] } }, { by: 'user:1', via: 'web' })
 */
export class RowSettler {
  #options: RowSettlerOptions

  constructor(options: RowSettlerOptions = {}) {
    this.#options = options
  }

  #now() {
    return this.#options.now?.() ?? DateTime.now()
  }

  /**
   * Settles a pending row with a person's reply and returns the settled
   * row. Give the row itself when the caller just read it (to authorize
   * it, say): the conditional update is the check that it is still
   * pending, so nothing is read twice. Throws E_NOT_FOUND, E_EXPIRED,
   * E_CANCELLED, E_UNKNOWN_AGENT (410, from `checkRun`), the refusals of
   * `checkApproval` (E_TOOL_REMOVED, E_DENIED_BY_POLICY, E_ARGS_OUTDATED…),
   * AlreadySettledException (409), InvalidReplyException (422) or
   * ReplyMismatchException (422).
   */
  async settle(
    rowOrId: string | ToolCall,
    rawReply: unknown,
    options: SettleOptions
  ): Promise<ToolCall> {
    const row = typeof rowOrId !== 'string' ? rowOrId : await findRow(rowOrId)
    if (!row) {
      const named = typeof rowOrId === 'string' && isRowId(rowOrId) ? rowOrId : 'with that id'
      throw new E_NOT_FOUND([`No tool-call row ${named}`])
    }
    if (row.status !== 'pending') throw this.#settledError(row)
    if (row.expiresAt && row.expiresAt <= this.#now()) {
      // A late reply: settle the row by its expiry rule first, so it never hangs
      await this.#expireLate(row)
      throw this.#settledError(await ToolCall.findOrFail(row.id))
    }

    if (row.runId) await this.#options.checkRun?.(row)

    const wait = waitOf(row)
    const reply = normalizeReply(await parseReply(rawReply, this.#options.limits), wait.kind)
    // Made on what the row shows now, or refused (after the reply's own shape is checked)
    const digest = checkedView(row, options.view, options.requireView)
    const ctx = { answeredBy: options.by, answeredVia: options.via, limits: this.#options.limits }
    if ('approved' in reply && reply.approved) await this.#options.checkApproval?.(row, reply)
    // A policy's rejection of a waiting row (src/runtime/approval_check.ts) settles it, not a vote
    const voting = quorumOf(row) && options.via !== 'policy'
    if ('approved' in reply && voting) return this.#vote(row, rawReply, reply, options)

    let outcome: Outcome
    if ('answers' in reply) {
      const issues = checkAnswers(wait.kind === 'question' ? wait.set : { questions: [] }, reply)
      if (issues.length > 0) throw new InvalidReplyException(issues)
      outcome = settleReply(wait, reply, ctx)
    } else {
      const edit = await checkEdit(row, reply, this.#options.validateEditedInput)
      outcome = settleReply(wait, edit.reply, ctx)
      if (edit.under && outcome.kind === 'decision' && outcome.editedInput !== undefined) {
        outcome.editedUnder = edit.under
      }
    }

    const now = this.#now()
    const changes = settledChanges(row, rawReply, outcome, options, now, this.#options.signer)
    const grant = this.#grant(row, outcome, options, now)
    const entries = settlementEntries(row, changes, digest, options, grant)
    if (await writeSettlement(row, now, changes, entries, grant)) {
      debug('row %s settled %s by %s via %s', row.id, changes.status, options.by, options.via)
      // The update is what was written: no need to read it back
      await noteSettled([row.merge({ ...changes, updatedAt: now })], { waits: false })
      return row
    }

    /*
     * Lost: someone else settled it, or it expired between the read and
     * the write. An expired row still pending is settled by its expiry rule now,
     * so a late reply never leaves it hanging.
     */
    const fresh = await ToolCall.findOrFail(row.id)
    // A ladder step ran since the read (docs/design.md §7.7): decide on the row as it is now
    const unexpired = !fresh.expiresAt || fresh.expiresAt > now
    if (fresh.status === 'pending' && unexpired) throw new E_STALE_VIEW([row.id])
    if (fresh.status === 'pending') {
      await this.#expireLate(fresh)
      throw new E_EXPIRED([row.id])
    }
    throw this.#settledError(fresh)
  }

  /**
   * Reads a reply strictly, as `settle` does (E_INVALID_REPLY otherwise),
   * for a caller that checks it once before settling several rows with it.
   */
  parse(rawReply: unknown): Promise<Reply> {
    return parseReply(rawReply, this.#options.limits)
  }

  /**
   * Settles a pending row by its `onExpiry` rule, with `answeredVia:
   * 'expiry'`. Returns false when the row was no longer pending (someone
   * answered first). For the `cancel` rule its run, unless finished, is
   * cancelled in the same transaction (docs/design.md §7.3).
   */
  async expire(row: ToolCall): Promise<boolean> {
    const batch = await this.expireRow(row)
    return batch.expired.length === 1
  }

  /**
   * `expire`, telling what was written: the row as settled, and the run
   * cancelled with it, if any.
   */
  expireRow(row: ToolCall, onWrite?: ExpiryOptions['onWrite']): Promise<ExpiryBatch> {
    return expireRow(row, { now: this.#now(), limits: this.#options.limits, onWrite })
  }

  /**
   * Settles every row due now by its expiry rule, in set-based batches (see
   * src/inbox/expiry.ts). Returns the rows this call settled.
   */
  expireDue(options: Omit<ExpiryOptions, 'limits' | 'now'> & { now?: DateTime } = {}) {
    return sweepDue({ ...options, now: options.now ?? this.#now(), limits: this.#options.limits })
  }

  /**
   * Expires a row a late reply found past its time and, when this call
   * settled it, hands what it wrote on to `onExpired`.
   */
  async #expireLate(row: ToolCall) {
    const batch = await this.expireRow(row)
    if (batch.expired.length > 0) await this.#options.onExpired?.(batch)
  }

  /**
   * The grant an approval asks to remember, built for the settle to write,
   * or null. E_INVALID_REPLY when the tool does not offer that scope (an
   * irreversible tool offers none), or the reply is not an approval by a
   * person.
   */
  #grant(row: ToolCall, outcome: Outcome, options: SettleOptions, now: DateTime) {
    if (options.grant === undefined) return null
    // The choices the row was opened with, as its card showed them (none for an irreversible tool)
    const offered = (row.request?.grants ?? []) as GrantChoice[]
    const choice = offered.find((item) => item.scope === options.grant)
    const refuse = (message: string) =>
      new InvalidReplyException([{ path: 'grant', rule: 'grant', message }])
    if (!choice) throw refuse(`tool "${row.toolName}" offers no "${options.grant}" grant`)
    if (outcome.kind !== 'decision' || !outcome.approved || outcome.editedInput !== undefined) {
      throw refuse('only an approval of the args as shown can be remembered')
    }
    if (!options.by) throw refuse('a grant belongs to a person: sign in')
    return buildGrant(row, choice, options.by, now)
  }

  /**
   * A vote on a row that needs a quorum (./votes.ts): the row is settled
   * when the count decides, with the deciding voter as `answered_by` and
   * the count in the text the model reads. Returns the row, still pending
   * when the vote did not decide.
   */
  async #vote(
    row: ToolCall,
    rawReply: unknown,
    reply: DecisionReply,
    options: SettleOptions
  ): Promise<ToolCall> {
    if (!options.by) throw new E_NOT_FOUND([`No person to vote on row ${row.id}`])
    if (options.grant !== undefined) {
      throw new InvalidReplyException([
        { path: 'grant', message: 'a call that needs several approvers cannot be remembered' },
      ])
    }
    const now = this.#now()
    const decide = (counted: Tally & { state: 'approved' | 'rejected' }) => {
      const decision: DecisionReply =
        counted.state === 'approved'
          ? { approved: true }
          : { approved: false, reason: reply.reason }
      const outcome = settleReply(waitOf(row), decision, {
        answeredBy: options.by,
        answeredVia: options.via,
        limits: this.#options.limits,
      })
      return settledChanges(row, rawReply, outcome, options, now, this.#options.signer)
    }
    const result = await castVote(
      row,
      reply,
      { ...actorOf(options), actor: options.by },
      now,
      decide
    )
    if (result.state === 'lost') {
      if (result.row.status === 'pending') {
        await this.#expireLate(result.row)
        throw new E_EXPIRED([row.id])
      }
      throw this.#settledError(result.row)
    }
    if (result.state === 'open') {
      debug(
        'row %s: vote by %s (%d of %d)',
        row.id,
        options.by,
        result.tally.approvals,
        result.tally.needed
      )
      return row
    }
    debug('row %s settled %s by quorum', row.id, result.changes.status)
    await noteSettled([row.merge({ ...result.changes, updatedAt: now })])
    return row
  }

  #settledError(row: ToolCall) {
    if (row.status === 'expired') return new E_EXPIRED([row.id])
    if (row.status === 'cancelled') return new E_CANCELLED([row.id])
    return new AlreadySettledException(
      row.id,
      row.answeredBy,
      row.answeredVia,
      row.settledAt ? row.settledAt.toJSDate() : null
    )
  }
}
