/*
 * Every error the package raises, with a stable `E_...` code and a message
 * that says what to do. Simple ones come from `createError`. Those the
 * HTTP routes raise are classes that render themselves, as
 * `@adonisjs/bouncer`'s do: the app's exception handler calls their
 * `handle(error, ctx)`, which answers `{ errors: [{ message, code, field?,
 * rule?, meta? }] }` (negotiated, translated through `@adonisjs/i18n` when
 * the app has it), or flashes the errors and redirects back for a form post
 * from the page. So statuses and bodies live here, once
 * (docs/reference/errors.md). Pure modules import this file: at runtime it
 * depends on nothing but `@adonisjs/core/exceptions`.
 */

import { createError, Exception } from '@adonisjs/core/exceptions'
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

/**
 * A question set with no question in it, given to `assertQuestionSet` (app
 * code building a set, such as an intake). A model's empty ask gets a tool
 * error instead.
 */
export const E_EMPTY_QUESTION_SET = createError(
  'A question set needs at least one question. Add the questions, or ask nothing',
  'E_EMPTY_QUESTION_SET',
  400
)

/**
 * A wait was opened on a run that has ended (cancelled, failed or
 * completed): nobody would ever read its answer.
 */
export const E_ABORTED = createError<[string]>(
  'Run "%s" has ended, so the wait was not opened: nobody would read its answer. Start a new run instead',
  'E_ABORTED',
  409
)

/**
 * A question was asked where nobody can answer (no owner and no channel,
 * no TTY). The ask tool is normally absent then; this guards direct calls.
 */
export const E_NO_ANSWERER = createError(
  'Nobody can answer this question: the run has no owner with an inbox and no terminal is attached. Choose the most reasonable option and state the assumption',
  'E_NO_ANSWERER',
  400
)

/** A child run tried to ask; its questions belong in its result for the parent */
export const E_DELEGATED_CALLER = createError(
  'A child run cannot ask a person. Return the open questions in your result so the parent run can ask them',
  'E_DELEGATED_CALLER',
  400
)

/**
 * A question's `intent` does not hold together (docs/design.md §3.4), raised by
 * `assertQuestionSet` when the intents are the set's only problem. The
 * message names each path and the fix.
 */
export const E_BAD_INTENT = createError<[string]>('%s', 'E_BAD_INTENT', 400)

/** The app registered a tool under the built-in ask tool's name, checked at boot */
export const E_RESERVED_TOOL_NAME = createError<[string, string]>(
  'The tool name "%s" is reserved for the built-in ask tool. Rename the tool of agent "%s"',
  'E_RESERVED_TOOL_NAME',
  500
)

/**
 * A question set written by a model failed validation. Each issue names the
 * path and the fix; the runtime sends them back to the model as a tool error.
 */
export class InvalidQuestionSetException extends Exception {
  static status = 422
  static code = 'E_INVALID_QUESTION_SET'

  constructor(public issues: QuestionIssue[]) {
    super(
      `The question set is invalid: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`
    )
  }
}

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

  fieldErrors(): FieldError[] {
    const field = this.expected === 'decision' ? 'approved' : 'answers'
    return [{ field, message: this.message, rule: 'mismatch', meta: { expected: this.expected } }]
  }
}

/**
 * A reply that failed Vine validation: `errors` carries the field errors.
 */
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

/**
 * Another reply settled the row first (docs/design.md §7.2).
 */
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

/**
 * The row expired before the reply arrived; its onExpiry rule settled it.
 */
export const E_EXPIRED = rowError(
  410,
  'E_EXPIRED',
  (rowId) =>
    `Row ${rowId} has expired and was settled by its expiry rule. The reply was not applied`
)

/**
 * The row was cancelled (its run was cancelled) before the reply arrived.
 */
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

/**
 * A page cursor that no inbox listing gave out.
 */
export const E_INVALID_CURSOR = class extends HttpFacingException {
  static status = 400
  static code = 'E_INVALID_CURSOR'
  static message =
    'The cursor is not one the inbox gave out. Use the "next" value of the previous page, or leave it out for the first page'
}

/** A listing's query string that does not hold: `errors` names each parameter and what it takes */
export const InvalidQueryException = fieldsError('E_INVALID_QUERY', 'The query string is invalid')

/**
 * The person may not see or settle this row (or is not signed in).
 */
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

/**
 * An MCP server sent an elicitation the inbox cannot ask: a URL-mode request,
 * a property outside form mode's flat primitive subset (nested object, array
 * of objects, unknown type or format), or a schema that does not hold
 * together. The first argument names the property (or `requestedSchema`).
 */
export const E_UNSUPPORTED_ELICITATION = createError<[string, string]>(
  'Cannot ask the MCP elicitation: %s %s. Form elicitation allows flat string, number, integer, boolean and enum properties only; answer the server with a decline or an invalid-params error',
  'E_UNSUPPORTED_ELICITATION',
  422
)

/** `webhookNotifier` given an empty or blank secret (an unset env variable), at config time */
export const E_EMPTY_WEBHOOK_SECRET = createError<[string]>(
  'The webhook notifier for %s has an empty secret, so anyone could sign its deliveries. Set a long random secret shared with the receiver (INBOX_WEBHOOK_SECRET in .env)',
  'E_EMPTY_WEBHOOK_SECRET',
  500
)

/** `agents.retry` on a run that has not failed: a finished run keeps its result, a live one is driven */
export const E_NOT_RETRYABLE = createError<[string, string]>(
  'Run %s is %s, and only a failed run can be retried. Wait for a running or waiting run to finish, or start a new run',
  'E_NOT_RETRYABLE',
  409
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

/**
 * Why a run failed: the code recorded on `agent_runs.error_code` (with the
 * message in `error`). A run failure is a row state, not a thrown error, so
 * these are plain codes rather than exception classes.
 */
export const RUN_FAILURES = {
  /** The run names an agent this deploy does not define (renamed or removed): its pending rows are closed */
  unknownAgent: 'E_UNKNOWN_AGENT',
  /** The run reached its agent's `maxSteps` model calls without a final answer */
  maxSteps: 'E_MAX_STEPS',
  /** The model provider failed and retrying will not help */
  provider: 'E_PROVIDER',
  /** The model provider failed in a way worth retrying (`agents.retry`) */
  providerRetryable: 'E_PROVIDER_RETRYABLE',
  /** The agent's configured intake is not a valid question set */
  invalidIntake: 'E_INVALID_INTAKE',
  /** One of the agent's MCP servers could not be reached or listed its tools badly */
  mcp: 'E_MCP_SERVER',
} as const

/** One of the codes in `RUN_FAILURES` */
export type RunFailureCode = (typeof RUN_FAILURES)[keyof typeof RUN_FAILURES]
