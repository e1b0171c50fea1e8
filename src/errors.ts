/*
 * Every error the package raises, with a stable `E_...` code and a
 * message that says what to do. Simple ones come from `createError`; those
 * that carry data for an HTTP answer (who settled a row, which fields failed)
 * are classes. Pure modules may import this file: it depends on nothing but
 * `@adonisjs/core/exceptions`.
 */

import { createError, Exception } from '@adonisjs/core/exceptions'
import type { QuestionIssue } from './questions/types.ts'

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

/**
 * A child run tried to ask; its questions belong in its result for the parent.
 */
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

/**
 * The app registered a tool under the built-in ask tool's name, checked at boot.
 */
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
export class ReplyMismatchException extends Exception {
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
}

/**
 * A reply that failed Vine validation: `errors` carries the field errors.
 */
export class InvalidReplyException extends Exception {
  static status = 422
  static code = 'E_INVALID_REPLY'

  constructor(public errors: QuestionIssue[]) {
    super(
      `The reply is invalid: ${errors.map((error) => `${error.path}: ${error.message}`).join('; ')}`
    )
  }
}

/**
 * Another reply settled the row first (docs/design.md §7.2).
 */
export class AlreadySettledException extends Exception {
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
}

/**
 * The row expired before the reply arrived; its onExpiry policy settled it.
 */
export const E_EXPIRED = createError<[string]>(
  'Row %s has expired and was settled by its expiry policy. The reply was not applied',
  'E_EXPIRED',
  410
)

/**
 * The row was cancelled (its run was cancelled) before the reply arrived.
 */
export const E_CANCELLED = createError<[string]>(
  'Row %s was cancelled with its run. The reply was not applied',
  'E_CANCELLED',
  410
)

/**
 * No such row (or run).
 */
export const E_NOT_FOUND = createError<[string]>('%s', 'E_NOT_FOUND', 404)

/**
 * A page cursor that no inbox listing gave out.
 */
export const E_INVALID_CURSOR = createError(
  'The cursor is not one the inbox gave out. Use the "next" value of the previous page, or leave it out for the first page',
  'E_INVALID_CURSOR',
  400
)

/**
 * The person may not see or settle this row.
 */
export const E_FORBIDDEN = createError(
  'You may not settle this row. Ask its owner, or an admin allowed by the inbox authorization hook',
  'E_FORBIDDEN',
  403
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

/**
 * `agents.retry` on a run that has not failed: only a failed run is replayed
 * (a finished run keeps its result, a live one is still being driven).
 */
export const E_NOT_RETRYABLE = createError<[string, string]>(
  'Run %s is %s, and only a failed run can be retried. Wait for a running or waiting run to finish, or start a new run',
  'E_NOT_RETRYABLE',
  409
)

/**
 * Why a run failed: the code recorded on `agent_runs.error_code` (with the
 * message in `error`). A run failure is a row state, not a thrown error, so
 * these are plain codes rather than exception classes.
 */
export const RUN_FAILURES = {
  /** The run names an agent no longer registered */
  unknownAgent: 'E_UNKNOWN_AGENT',
  /** The run reached its agent's `maxSteps` model calls without a final answer */
  maxSteps: 'E_MAX_STEPS',
  /** The model provider failed and retrying will not help */
  provider: 'E_PROVIDER',
  /** The model provider failed in a way worth retrying (`agents.retry`) */
  providerRetryable: 'E_PROVIDER_RETRYABLE',
  /** The agent's configured intake is not a valid question set */
  invalidIntake: 'E_INVALID_INTAKE',
} as const

/**
 * One of the codes in `RUN_FAILURES`.
 */
export type RunFailureCode = (typeof RUN_FAILURES)[keyof typeof RUN_FAILURES]
