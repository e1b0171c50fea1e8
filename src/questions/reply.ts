/*
 * Replies: what a person sends back, read in three steps. `parseReply`
 * checks the shape with Vine (422 on bad input), `normalizeReply` fits a
 * reply to the wait it answers (docs/design.md §6.2, §6.3), and `checkAnswers` holds
 * human answers to the question set strictly, so a form gets field errors
 * instead of silently dropped values. Settling itself is lenient and lives
 * in `settle.ts`; both read values through `values.ts`, so they agree.
 */

import vine, { errors as vineErrors, SimpleMessagesProvider } from '@vinejs/vine'
import { InvalidReplyException, ReplyMismatchException } from '../errors.ts'
import type {
  AnswersReply,
  DecisionReply,
  Question,
  QuestionIssue,
  QuestionLimits,
  QuestionSet,
  Reply,
  WaitKind,
} from './types.ts'
import { checkValue, inputTypeOf, isSingleChoice, resolveLimits } from './values.ts'
import { vineIssues } from './vine_issues.ts'

/**
 * Our own wording for Vine's rules, so issues read like the rest of the
 * package (`answers.db: must be a string or a list of strings`).
 */
const messages = new SimpleMessagesProvider({
  required: 'is required',
  object: 'must be an object',
  record: 'must be an object keyed by question id',
  array: 'must be a list of strings',
  string: 'must be a string',
  boolean: 'must be true or false',
  unionOfTypes: 'must be a string or a list of strings',
  maxLength: 'must be at most {{ max }} characters',
})

/**
 * The most a reply may weigh, as UTF-8 JSON: it is stored on the row as
 * sent, so a valid reply cannot carry megabytes along.
 */
export const MAX_REPLY_BYTES = 64 * 1024

/**
 * The fields of each kind of reply; anything else is refused by name
 * rather than stored unread.
 */
const ANSWERS_FIELDS = ['answers', 'skip']
const DECISION_FIELDS = ['approved', 'reason', 'editedInput']

// Booleans are JSON booleans: "on", "1", 1 or "true" approve nothing
const answersValidator = vine.create({
  answers: vine.record(vine.unionOfTypes([vine.string(), vine.array(vine.string())])).optional(),
  skip: vine.boolean({ strict: true }).optional(),
})

/**
 * The reason length is a rule of the reply, so the validator is built per
 * limit and cached: apps configure one limit, tests a few.
 */
const decisionValidators = new Map<number, ReturnType<typeof buildDecisionValidator>>()

function buildDecisionValidator(maxReasonLength: number) {
  return vine.create({
    approved: vine.boolean({ strict: true }),
    reason: vine.string().maxLength(maxReasonLength).optional(),
    editedInput: vine.any().optional(),
  })
}

function decisionValidator(maxReasonLength: number) {
  let validator = decisionValidators.get(maxReasonLength)
  if (!validator) {
    validator = buildDecisionValidator(maxReasonLength)
    decisionValidators.set(maxReasonLength, validator)
  }
  return validator
}

function isPresent(record: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(record, key) && record[key] !== undefined
}

/**
 * What is wrong with a reply before its fields are read: too heavy to
 * store, fields no reply has (the first ten, by name), or edited args that
 * are not an object (`null` would otherwise approve the args as shown).
 */
function envelopeIssues(record: Record<string, unknown>, decision: boolean): QuestionIssue[] {
  let bytes: number
  try {
    bytes = new TextEncoder().encode(JSON.stringify(record)).length
  } catch {
    // A cycle, a BigInt, or nesting deep enough to overflow the stack
    const message = 'must be plain JSON, not nested thousands of levels deep'
    return [{ path: 'reply', message, rule: 'json' }]
  }
  if (bytes > MAX_REPLY_BYTES) {
    const size = Math.ceil(bytes / 1024)
    const message = `is ${size} KB; a reply may be at most 64 KB`
    return [{ path: 'reply', message, rule: 'maxSize', meta: { size, max: 64 } }]
  }

  const fields = decision ? DECISION_FIELDS : ANSWERS_FIELDS
  const issues: QuestionIssue[] = Object.keys(record)
    .filter((key) => record[key] !== undefined && !fields.includes(key))
    .slice(0, 10)
    .map((key) => ({
      path: key,
      rule: 'unknownField',
      message: decision
        ? 'is not a field of a decision: send approved, and reason or editedInput'
        : 'is not a field of a reply: send { answers, skip } or { approved, reason, editedInput }',
    }))
  const edited = record.editedInput
  if (
    decision &&
    Object.hasOwn(record, 'editedInput') &&
    (edited === null || typeof edited !== 'object' || Array.isArray(edited))
  ) {
    issues.push({
      path: 'editedInput',
      rule: 'object',
      message: "must be an object of the tool's arguments; leave it out to approve them as shown",
    })
  }
  return issues
}

async function validate<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof vineErrors.E_VALIDATION_ERROR) {
      throw new InvalidReplyException(vineIssues(error.messages))
    }
    /* c8 ignore next 2 -- Vine only throws validation errors for plain data */
    throw error
  }
}

/**
 * Checks the shape of a reply and returns it typed. A reply is either
 * answers `{ answers: { [questionId]: string[] }, skip? }` (answers may be
 * left out when skipping) or a decision `{ approved, reason?, editedInput? }`,
 * never both. It is read strictly, since it is stored as sent: `approved`
 * and `skip` are JSON booleans, other fields are refused by name,
 * `editedInput` is an object, and the whole weighs at most MAX_REPLY_BYTES.
 * An answer sent as a single string becomes a one-value list. Values are
 * not judged here; see `checkAnswers`.
 *
 * Throws `InvalidReplyException` (422) with paths such as `answers.db`,
 * `approved`, `reason`, the name of an unknown field, or `reply`.
 *
 * @example
 * await parseReply({ answers: { db: 'pg' } }) // { answers: { db: ['pg'] } }
 * await parseReply({ approved: false, reason: 'Not on Friday' })
 */
export async function parseReply(input: unknown, limits?: Partial<QuestionLimits>): Promise<Reply> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidReplyException([
      {
        path: 'reply',
        rule: 'object',
        message: 'must be an object: { answers: { [questionId]: string[] } } or { approved }',
      },
    ])
  }

  const record = input as Record<string, unknown>
  const decision = isPresent(record, 'approved')
  if (decision && (isPresent(record, 'answers') || isPresent(record, 'skip'))) {
    const message = 'send either answers (or a skip) or a decision, not both'
    throw new InvalidReplyException([{ path: 'approved', rule: 'exclusive', message }])
  }
  const issues = envelopeIssues(record, decision)
  if (issues.length > 0) throw new InvalidReplyException(issues)

  if (decision) {
    const { maxFreeTextLength } = resolveLimits(limits)
    const checked = await validate(() =>
      decisionValidator(maxFreeTextLength).validate(record, { messagesProvider: messages })
    )
    const reply: DecisionReply = { approved: checked.approved }
    if (checked.reason !== undefined) reply.reason = checked.reason
    if (checked.editedInput !== undefined) reply.editedInput = checked.editedInput
    return reply
  }

  const parsed = await validate(() =>
    answersValidator.validate(record, { messagesProvider: messages })
  )
  if (parsed.answers === undefined && parsed.skip !== true) {
    const message = 'is required: send answers, { skip: true } or a decision'
    throw new InvalidReplyException([{ path: 'answers', rule: 'required', message }])
  }

  const answers = Object.fromEntries(
    Object.entries(parsed.answers ?? {}).map(([id, value]) => [
      id,
      typeof value === 'string' ? [value] : [...value],
    ])
  )
  const reply: AnswersReply = { answers }
  if (parsed.skip !== undefined) reply.skip = parsed.skip
  return reply
}

/**
 * A field path as a reply's errors name it: dotted, list indexes as
 * segments (`answers.amount.0`, `editedInput.items.0`), as Vine gives them
 * and the page reads them. A path in the bracket form the model reads
 * (`items[0]`, `(root)` for the input itself) is turned into it, so edited
 * args and answers name their fields alike.
 *
 * @example
 * replyFieldPath('editedInput.items[0]') // 'editedInput.items.0'
 * replyFieldPath('editedInput.(root)') // 'editedInput'
 */
export function replyFieldPath(path: string): string {
  return path.replace(/\.?\(root\)$/u, '').replace(/\[(\d+)\]/gu, '.$1')
}

/**
 * Fits a reply to the wait it answers:
 *  - a decision sent to a question set: approve accepts all defaults
 *    (`{ answers: {}, skip: false }`), reject skips (`{ answers: {}, skip: true }`);
 *  - answers sent to an approval are refused with `ReplyMismatchException`,
 *    never read as a rejection;
 *  - a reply matching its wait is returned as is.
 *
 * @example
 * normalizeReply({ approved: true }, 'question') // { answers: {}, skip: false }
 * normalizeReply({ answers: {} }, 'approval') // throws ReplyMismatchException
 */
export function normalizeReply(reply: Reply, wait: WaitKind): Reply {
  if ('answers' in reply) {
    if (wait === 'approval') throw new ReplyMismatchException('decision')
    return reply
  }
  if (wait === 'question') {
    return { answers: {}, skip: !reply.approved }
  }
  return reply
}

/**
 * A value a form sends for an untouched field. It means "no answer" rather
 * than a wrong one, so it is neither an issue nor a dropped value.
 */
export function isBlankValue(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === ''
}

/**
 * Whether a value is the person's own words rather than a pick or a typed
 * value: a value that is not an option on a question allowing free text, or
 * any value of a plain text question. Free text is clamped when settled and
 * quoted as untrusted in the text the model reads.
 */
export function isFreeTextValue(question: Question, value: string): boolean {
  const options = question.options ?? []
  if (options.length > 0) return !options.some((option) => option.value === value)
  return inputTypeOf(question) === 'text'
}

/**
 * Holds human answers to the set strictly, for an HTTP 422 with field
 * errors: an unknown question id (`answers.<id>`), a value the question does
 * not take (`answers.<id>.<index>`, the message from `checkValue`), several
 * values for a single-choice question, and a required typed question left
 * without an answer and without a default. Blank values count as no answer.
 * A skip ignores the answers, so it yields no issue. Long free text is not
 * an issue: settling clamps it with a visible mark.
 *
 * The limits are accepted for symmetry with settling; no limit refuses an
 * answer today.
 *
 * @example
 * checkAnswers(set, { answers: { db: ['mongo'] } })
 * // [{ path: 'answers.db.0', rule: 'value', message: 'is not one of the options (pg, sqlite)' }]
 */
export function checkAnswers(
  set: QuestionSet,
  reply: AnswersReply,
  _limits?: Partial<QuestionLimits>
): QuestionIssue[] {
  if (reply.skip === true) return []

  const issues: QuestionIssue[] = []
  const refuse = (path: string, rule: string, message: string) =>
    issues.push({ path: `answers.${path}`, rule, message })
  const known = new Set(set.questions.map((question) => question.id))
  for (const id of Object.keys(reply.answers)) {
    if (!known.has(id)) refuse(id, 'unknownQuestion', 'is not a question of this set')
  }

  for (const question of set.questions) {
    const sent = Object.hasOwn(reply.answers, question.id) ? reply.answers[question.id] : []
    const given: string[] = []
    sent.forEach((value, index) => {
      if (isBlankValue(value)) return
      const problem = checkValue(question, value)
      if (problem) refuse(`${question.id}.${index}`, 'value', problem)
      if (!given.includes(value)) given.push(value)
    })

    if (isSingleChoice(question) && given.length > 1) {
      refuse(question.id, 'singleChoice', 'takes one value only')
    }
    const hasDefault = question.defaults.some((value) => checkValue(question, value) === null)
    if (question.input?.required && given.length === 0 && !hasDefault) {
      refuse(question.id, 'required', 'is required')
    }
  }
  return issues
}

/**
 * Why a reply cannot be sent to several rows at once (a bulk decision):
 * edited args belong to one approval, and answers to one question set. A
 * shared reply approves, rejects (one reason for all), confirms every
 * default (`{ answers: {} }`) or skips.
 *
 * @example
 * sharedReplyIssues({ approved: true, editedInput: {} }) // [{ path: 'editedInput', … }]
 * sharedReplyIssues({ answers: {} }) // []
 */
export function sharedReplyIssues(reply: Reply): QuestionIssue[] {
  if ('approved' in reply) {
    if (reply.editedInput === undefined) return []
    const message = 'edited args belong to one approval: edit its card'
    return [{ path: 'editedInput', rule: 'oneRow', message }]
  }
  if (Object.keys(reply.answers).length === 0) return []
  const message = 'answers belong to one question set: send {} to confirm every default, or skip'
  return [{ path: 'answers', rule: 'oneRow', message }]
}
