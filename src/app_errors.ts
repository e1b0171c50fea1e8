/*
 * The errors the package raises to the app's own code, not to an HTTP
 * client: a question set or a config that does not hold, a wait nobody
 * can answer, a retry of a run that has not failed, and the codes a
 * failed run records. Part of the errors module: src/errors.ts re-exports
 * all of it, so `errors.E_ABORTED` is where it always was. Like it, this
 * depends on nothing at runtime but `@adonisjs/core/exceptions`.
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

/** `agents.converse` on tables without the package's conversations migration */
export const E_NO_CONVERSATIONS = createError(
  'The agent_conversations table is missing, so a chat cannot start. Publish the package’s new migrations and run them: node ace agents:migrations && node ace migration:run',
  'E_NO_CONVERSATIONS',
  500
)

/** `agents.retry` on a run that has not failed: a finished run keeps its result, a live one is driven */
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
