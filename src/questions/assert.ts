/*
 * The throwing form of validation, for app code that builds question sets
 * (an intake, an MCP elicitation, a question the app asks itself), where a
 * bad set is a programming error rather than something to send back to a
 * model: `assertQuestionSet` runs `validateQuestionSet` and turns its issues
 * into the coded errors of errors.ts.
 */

import { E_BAD_INTENT, E_EMPTY_QUESTION_SET, InvalidQuestionSetException } from '../errors.ts'
import type { QuestionIssue, QuestionLimits, QuestionSet } from './types.ts'
import { validateQuestionSet } from './validate.ts'

/**
 * Whether an issue is about a question's `intent` (its shape, or a plan
 * review without its approve option or plan).
 */
function isIntentIssue(issue: QuestionIssue): boolean {
  return /^questions\[\d+\]\.intent(\.|$)/.test(issue.path)
}

/**
 * Like `validateQuestionSet`, but returns the set or throws: for app code
 * that builds question sets (an intake, an MCP elicitation, a question the
 * app asks itself), where a bad set is a programming error rather than
 * something to send back to a model.
 *
 * - `E_EMPTY_QUESTION_SET` when `questions` is an empty array;
 * - `E_BAD_INTENT` when every problem is with a question's `intent` (a plan
 *   review whose `approve` is not one of its option labels, or without the
 *   plan in `detail`);
 * - `InvalidQuestionSetException`, carrying every issue, otherwise.
 *
 * @example
 * const set = await assertQuestionSet(intakeConfig, config.limits)
 */
export async function assertQuestionSet(
  input: unknown,
  limits?: Partial<QuestionLimits>
): Promise<QuestionSet> {
  const questions = (input as { questions?: unknown } | null)?.questions
  if (Array.isArray(questions) && questions.length === 0) throw new E_EMPTY_QUESTION_SET()

  const result = await validateQuestionSet(input, limits)
  if (result.ok) return result.value
  if (result.issues.every(isIntentIssue)) {
    throw new E_BAD_INTENT([
      result.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '),
    ])
  }
  throw new InvalidQuestionSetException(result.issues)
}
