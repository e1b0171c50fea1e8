/*
 * Settled outcome -> MCP `ElicitResult`: how the elicitation's inbox row was
 * settled (answers, a skip, a decision, an expiry, a cancellation) turned
 * into the accept, decline or cancel the server receives, with the content
 * typed back per schema.
 *
 * Pure: imports the question model only. Every value is re-checked by
 * `checkValue`, every default taken from `effectiveDefaults`. Accept is sent
 * only for a person's confirmed answers that satisfy `required`; a skip or
 * reject declines, an expiry or cancellation cancels (see
 * `elicitationResultFromOutcome` for why).
 */

import type { Question, QuestionOutcome, QuestionSet } from '../questions/types.ts'
import { effectiveDefaults } from '../questions/defaults.ts'
import { checkValue } from '../questions/values.ts'
import { parseRequest, type Field } from './to_questions.ts'
import type {
  ElicitationContentValue,
  ElicitationDecision,
  ElicitationRequest,
  ElicitationResult,
} from './types.ts'

/**
 * The valid picks of a multi-select, cut to `maxItems` (the first ones
 * win, as a single choice keeps its first value), or `undefined` when
 * fewer than `minItems` remain.
 */
function pickedValues(field: Field, values: string[]): string[] | undefined {
  const valid = [...new Set(values)].filter((value) => checkValue(field.question, value) === null)
  const picked = field.maxItems === undefined ? valid : valid.slice(0, field.maxItems)
  return picked.length < (field.minItems ?? 0) ? undefined : picked
}

/**
 * The typed content value of one field, or `undefined` when nothing valid
 * was given. Values are re-checked against the question's rules, so a value
 * that slipped past settling is dropped here rather than sent.
 */
function contentValue(field: Field, values: string[]): ElicitationContentValue | undefined {
  if (field.kind === 'multi') {
    const picked = pickedValues(field, values)
    if (picked === undefined) return undefined
    // An empty optional multi-select says nothing: omit it like any unset field.
    return picked.length > 0 || field.required ? picked : undefined
  }

  const value = values.find((candidate) => checkValue(field.question, candidate) === null)
  if (value === undefined) return undefined
  if (field.kind === 'boolean') return value === 'true'
  if (field.kind === 'number') return Number(value)
  return value
}

/**
 * The field a question of the package's own set types its values as: the
 * same typing an elicitation's answers get back, for a question set an
 * outside agent asked (`ask_human`, src/mcp_server/).
 */
function fieldOf(question: Question): Field {
  const type = question.input?.type
  const kind = question.multiple
    ? 'multi'
    : type === 'boolean'
      ? 'boolean'
      : type === 'number' || type === 'integer'
        ? 'number'
        : question.options
          ? 'single'
          : 'string'
  return { key: question.id, required: false, kind, question }
}

/**
 * A settled question set's answers typed per question: numbers and
 * integers as numbers, booleans as booleans, multiple choices as arrays,
 * the rest as strings; a question with no valid value is left out.
 *
 * @example
 * typedAnswers(set, { replicas: ['2'], db: ['pg'] }) // { replicas: 2, db: 'pg' }
 */
export function typedAnswers(
  set: QuestionSet,
  answers: Record<string, string[]>
): Record<string, ElicitationContentValue> {
  const typed: Record<string, ElicitationContentValue> = {}
  for (const question of set.questions) {
    const values = Object.hasOwn(answers, question.id) ? answers[question.id] : []
    const value = contentValue(fieldOf(question), Array.isArray(values) ? values : [])
    if (value !== undefined) typed[question.id] = value
  }
  return typed
}

/**
 * Types answers back into the content of an accept, or declines when a
 * required property has no valid value.
 */
function acceptOrDecline(fields: Field[], answers: Record<string, string[]>): ElicitationResult {
  const content: Record<string, ElicitationContentValue> = {}
  for (const field of fields) {
    const values = Object.hasOwn(answers, field.key) ? answers[field.key] : undefined
    const value = contentValue(field, Array.isArray(values) ? values : [])
    if (value !== undefined) content[field.key] = value
    else if (field.required) return { action: 'decline' }
  }
  return { action: 'accept', content }
}

/**
 * Turns how the elicitation's inbox row was settled into the `ElicitResult`
 * the MCP server receives.
 *
 * - `null` (the wait was cancelled, the run aborted) -> `cancel`.
 * - Expired, whatever the row's expiry rule did -> `cancel`: nobody made a
 *   choice, which is MCP's "dismissed without an explicit choice", and the
 *   server may ask again. Sending defaults would claim a person submitted them.
 * - Skipped -> `decline`. In the question model a skip means "proceed on
 *   defaults", but a Reject sent to a question set is settled as a skip too
 *   (docs/design.md §6.2), so the outcome cannot tell them apart; MCP's accept says
 *   the person submitted the data, so sending one for a refusal would hand
 *   over data the person withheld. The server keeps its own defaults, so
 *   nothing it proposed is lost; only our first-option pre-picks are, and
 *   those were never the person's choice.
 * - A decision: rejected -> `decline`; approved -> `accept` with every
 *   default (for an approval-style wait, such as a request with no property).
 * - Answers (including an approval of the set, settled as all defaults) ->
 *   `accept` with `content` typed per schema: numbers and integers as
 *   numbers, booleans as booleans, multi-selects as string arrays (cut to
 *   `maxItems`), strings as-is. Optional properties without a valid value
 *   are omitted; keys outside the schema never appear.
 * - When a required property ends with no valid value -> `decline`: an
 *   accept would break the server's schema, and values are never invented.
 *
 * @example
 * const set = questionSetFromElicitation(request)
 * const outcome = settleQuestionSet(set, { answers }, { answeredBy: 'u1', answeredVia: 'web' })
 * elicitationResultFromOutcome(request, outcome)
 * // { action: 'accept', content: { name: 'Monalisa Octocat', email: 'octocat@github.com', age: 30 } }
 */
export function elicitationResultFromOutcome(
  request: ElicitationRequest,
  outcome: QuestionOutcome | ElicitationDecision | null
): ElicitationResult {
  if (outcome === null || outcome.expired === true) return { action: 'cancel' }

  const { fields } = parseRequest(request)
  if (outcome.kind === 'decision') {
    if (!outcome.approved) return { action: 'decline' }
    const defaults = Object.fromEntries(
      fields.map((field) => [field.key, effectiveDefaults(field.question)])
    )
    return acceptOrDecline(fields, defaults)
  }
  if (outcome.skipped) return { action: 'decline' }
  return acceptOrDecline(fields, outcome.answers)
}
