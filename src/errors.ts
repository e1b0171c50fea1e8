/*
 * Every error the package raises, with a stable `E_...` code and a message
 * that says what to do. Those raised to the app's own code come from
 * ./app_errors.ts, re-exported here. Those the
 * HTTP routes raise are classes that render themselves, as
 * `@adonisjs/bouncer`'s do: the app's exception handler calls their
 * `handle(error, ctx)`, which answers `{ errors: [{ message, code, field?,
 * rule?, meta? }] }` (negotiated, translated through `@adonisjs/i18n` when
 * the app has it), or flashes the errors and redirects back for a form post
 * from the page. So statuses and bodies live here, once
 * (docs/reference/errors.md). Pure modules import this file: at runtime it
 * depends on nothing but `@adonisjs/core/exceptions`.
 */

import type { QuestionIssue } from './questions/types.ts'
import {
  fieldsError,
  HttpFacingException,
  rowError,
  type FieldError,
} from './http_facing_exception.ts'

export { HttpFacingException } from './http_facing_exception.ts'
export type { ErrorEntry, ErrorReport, ErrorResponseBody } from './http_facing_exception.ts'
export type { FieldError, Translator } from './http_facing_exception.ts'
export * from './app_errors.ts'

/**
 * A reply of the wrong shape for the wait: answers sent to an approval
 * (docs/design.md §6.3). It is never read as a rejection.
 */
export class ReplyMismatchException extends HttpFacingException {
  static status = 422
  static code = 'E_REPLY_MISMATCH'

  constructor(
    public expected: 'answers' | 'decision',
    message?: string
  ) {
    super(
      message ??
        (expected === 'decision'
          ? 'This row waits for an approval: send { approved: true } or { approved: false, reason }, not answers'
          : 'This row waits for answers: send { answers: { [questionId]: string[] } }, or a skip')
    )
  }

  messageKey(): string {
    return `${this.code}.${this.expected}`
  }

  fieldErrors(): FieldError[] {
    const field = this.expected === 'decision' ? 'approved' : 'answers'
    return [{ field, message: this.message, rule: 'mismatch', meta: { expected: this.expected } }]
  }
}

/** A reply that failed Vine validation: `errors` carries the field errors. */
export class InvalidReplyException extends HttpFacingException {
  static status = 422
  static code = 'E_INVALID_REPLY'

  constructor(public errors: QuestionIssue[]) {
    super(
      `The reply is invalid: ${errors.map((error) => `${error.path}: ${error.message}`).join('; ')}`
    )
  }

  fieldErrors(): FieldError[] {
    // A check that names no rule (an app's own validator) reports `invalid`
    return this.errors.map(({ path, message, rule = 'invalid', meta }) => ({
      field: path,
      message,
      rule,
      ...(meta === undefined ? {} : { meta }),
    }))
  }
}

/** Another reply settled the row first (docs/design.md §7.2). */
export class AlreadySettledException extends HttpFacingException {
  static status = 409
  static code = 'E_ALREADY_SETTLED'

  constructor(
    public rowId: string,
    public settledBy: string | null,
    public settledVia: string | null,
    public settledAt: Date | null
  ) {
    super(
      `Row ${rowId} was already settled${settledBy ? ` by ${settledBy}` : ''}${
        settledVia ? ` via ${settledVia}` : ''
      }${settledAt ? ` at ${settledAt.toISOString()}` : ''}. Reload to see the outcome`
    )
  }

  messageData() {
    return {
      rowId: this.rowId,
      settledBy: this.settledBy ?? '',
      settledVia: this.settledVia ?? '',
      settledAt: this.settledAt?.toISOString() ?? '',
    }
  }

  meta() {
    return {
      settledBy: this.settledBy,
      settledVia: this.settledVia,
      settledAt: this.settledAt?.toISOString() ?? null,
    }
  }
}

/** The row expired before the reply arrived; its onExpiry rule settled it. */
export const E_EXPIRED = rowError(
  410,
  'E_EXPIRED',
  (rowId) =>
    `Row ${rowId} has expired and was settled by its expiry rule. The reply was not applied`
)

/** The row was cancelled (its run was cancelled) before the reply arrived. */
export const E_CANCELLED = rowError(
  410,
  'E_CANCELLED',
  (rowId) => `Row ${rowId} was cancelled with its run. The reply was not applied`
)

/** A reply to a row of a run whose agent the app no longer defines: the run was ended, its rows closed */
export const E_UNKNOWN_AGENT = rowError(
  410,
  'E_UNKNOWN_AGENT',
  (rowId) =>
    `Row ${rowId} belongs to a run of an agent this version of the app no longer defines (renamed or removed), so the run cannot continue: it was ended and its rows closed. The reply was not applied`
)

/** An approval of a row whose tool this version of the app no longer defines: it can only be rejected */
export const E_TOOL_REMOVED = rowError(
  409,
  'E_TOOL_REMOVED',
  (rowId) =>
    `Row ${rowId} asks to run a tool this version of the app no longer defines (removed after the call was made), so it cannot be approved. Reject it: the agent reads your reason`
)

/**
 * An approval, without an edit, of args asked under an earlier input schema
 * of the tool that its current one refuses: `errors` names each field
 * (`editedInput.<path>`). Approve with args edited to the current schema.
 */
export const ArgsOutdatedException = fieldsError(
  'E_ARGS_OUTDATED',
  "The args were asked under an earlier input schema of the tool and no longer fit it. Approve with args edited to the tool's current schema, or reject"
)

/**
 * An approval the tool's policy (or the app's) now denies: the row was
 * rejected by the policy with its reason, which the agent reads.
 */
export class DeniedByPolicyException extends HttpFacingException {
  static status = 409
  static code = 'E_DENIED_BY_POLICY'

  constructor(
    public rowId: string,
    public reason: string
  ) {
    super(
      `Denied by policy: ${reason}. Row ${rowId} was rejected by the policy, and the agent was told why`
    )
  }

  messageData() {
    return { rowId: this.rowId, reason: this.reason }
  }
}

/** An approval whose policy threw: nothing applied until the policy can decide it */
export const E_POLICY_FAILED = rowError(
  503,
  'E_POLICY_FAILED',
  (rowId) =>
    `The policy that governs row ${rowId} could not be checked (it failed), so the approval was not applied. Try again later, reject the row, or ask an operator to fix the policy`
)

/**
 * No such row (or run, or agent); the message says which.
 *
 * @example
 * throw new E_NOT_FOUND([`No row ${id}`])
 */
export const E_NOT_FOUND = class extends HttpFacingException {
  static status = 404
  static code = 'E_NOT_FOUND'

  constructor([message]: [message: string], options?: ErrorOptions) {
    super(message, options)
  }
}

/**
 * A bulk decision failed on a row for a reason of the server's own (it is
 * logged); its result for that row says so, the other rows are settled.
 */
export const E_SETTLE_FAILED = class extends HttpFacingException {
  static status = 500
  static code = 'E_SETTLE_FAILED'
  static message = 'Not settled: try again'
}

/** A page cursor that no inbox listing gave out. */
export const E_INVALID_CURSOR = class extends HttpFacingException {
  static status = 400
  static code = 'E_INVALID_CURSOR'
  static message =
    'The cursor is not one the inbox gave out. Use the "next" value of the previous page, or leave it out for the first page'
}

/** A listing's query string that does not hold: `errors` names each parameter and what it takes */
export const InvalidQueryException = fieldsError('E_INVALID_QUERY', 'The query string is invalid')

/** The person may not see or settle this row (or is not signed in). */
export const E_FORBIDDEN = class extends HttpFacingException {
  static status = 403
  static code = 'E_FORBIDDEN'
  static message =
    'You may not settle this row. Ask its owner, or an admin allowed by the inbox authorization hook'
}

/** A reply on another view of the row than its own now (docs/design.md §11.4): nothing applied */
export const E_STALE_VIEW = rowError(
  409,
  'E_STALE_VIEW',
  (rowId) =>
    `The reply was made on another version of row ${rowId} than the one it has now, so nothing was applied. Reload the row and decide on what it shows`
)

/** A vote from outside the approvers, or (`[rowId, true]`) before the voter's stage opened */
export const E_NOT_AN_APPROVER = rowError(403, 'E_NOT_AN_APPROVER', (rowId, notYet) =>
  notYet
    ? `Your stage of the approval of row ${rowId} has not opened yet: the earlier stage must approve first`
    : `You are not among the approvers of row ${rowId}, so your vote was not counted. Ask one of its approvers`
)

/** The run's owner voted on an approval that excludes the requester */
export const E_REQUESTER_EXCLUDED = rowError(
  403,
  'E_REQUESTER_EXCLUDED',
  (rowId) =>
    `Row ${rowId} was requested by you, and its approval excludes the requester: another approver must decide`
)

/** The approver already voted on this row; a vote is cast once */
export const E_ALREADY_VOTED = rowError(
  409,
  'E_ALREADY_VOTED',
  (rowId) => `You already voted on row ${rowId}; a vote is cast once`
)

/** A Transmit request whose stream id or channel does not hold (missing, not a string, too long) */
export const InvalidStreamRequestException = fieldsError(
  'E_INVALID_STREAM_REQUEST',
  'The live stream request is invalid'
)

/** A live stream another person opened: only they may use its id while it is open */
export const E_NOT_YOUR_STREAM = class extends HttpFacingException {
  static status = 403
  static code = 'E_NOT_YOUR_STREAM'
  static message =
    'This live stream was opened by someone else. Open a stream of your own (a new uid) and subscribe it'
}

/** The operator's console refused someone the app's console ability does not allow */
export const E_NOT_AN_OPERATOR = class extends HttpFacingException {
  static status = 403
  static code = 'E_NOT_AN_OPERATOR'
  static message =
    'You may not use the operator console. Ask an admin for the app’s console ability (viewAgentConsole, or the console.authorize hook)'
}

/**
 * A console action the run's status does not allow: Retry takes a failed
 * run (`[runId, status, 'retry']`), Cancel one that has not finished.
 */
export const E_RUN_NOT_ACTIONABLE = class extends HttpFacingException {
  static status = 409
  static code = 'E_RUN_NOT_ACTIONABLE'
  readonly data: { runId: string; status: string; action: string }

  constructor(
    [runId, status, action]: [string, string, 'retry' | 'cancel'],
    options?: ErrorOptions
  ) {
    super(
      action === 'retry'
        ? `Run ${runId} is ${status}, and only a failed run can be retried`
        : `Run ${runId} is ${status}, and a finished run cannot be cancelled`,
      options
    )
    this.data = { runId, status, action }
  }

  messageData() {
    return this.data
  }

  messageKey(): string {
    return `${this.code}.${this.data.action}`
  }

  meta() {
    return { status: this.data.status }
  }
}

/** A chat message while the last turn is live (running, queued, waiting on a row): nothing started */
export const E_TURN_LIVE = class extends HttpFacingException {
  static status = 409
  static code = 'E_TURN_LIVE'
  readonly headRunId: string

  constructor([conversationId, headRunId]: [string, string], options?: ErrorOptions) {
    super(
      `Conversation ${conversationId} is still answering the last message (run ${headRunId}). Wait for it to finish, or answer what it asks, then send again`,
      options
    )
    this.headRunId = headRunId
  }

  messageData() {
    return this.meta()
  }

  meta() {
    return { headRunId: this.headRunId }
  }
}

/** A chat message of the wrong shape (no text, too long, an unknown agent): nothing started */
export const InvalidMessageException = fieldsError(
  'E_INVALID_MESSAGE',
  'The chat message is invalid'
)
