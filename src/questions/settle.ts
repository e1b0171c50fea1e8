/*
 * Settling (docs/design.md §6): turns a reply into the outcome a run receives. Pure
 * and deterministic, and lenient on purpose: whatever channel a reply came
 * through (a strict HTTP check may already have run, a terminal or an
 * expiry may not), nothing here throws on a value. What is not valid is
 * dropped and recorded, never guessed; what is missing takes its default.
 */

import type {
  AnswersReply,
  DecisionOutcome,
  DecisionReply,
  Outcome,
  Question,
  QuestionLimits,
  QuestionOutcome,
  QuestionSet,
  Reply,
  ResolvedQuestion,
  AnsweredVia,
} from './types.ts'
import { describeDecision, describeOutcome } from './model_text.ts'
import { canonicalJson } from './memory.ts'
import { splitDefaults } from './defaults.ts'
import { isBlankValue, isFreeTextValue, normalizeReply } from './reply.ts'
import { checkValue, isSingleChoice, resolveLimits } from './values.ts'

/**
 * Who settles, through what, and under which limits. `expired` settles on
 * defaults whatever the reply says.
 */
export type SettleContext = {
  answeredBy: string | null
  answeredVia: AnsweredVia
  expired?: boolean
  limits?: Partial<QuestionLimits>
}

/**
 * The wait a reply answers. `args` (optional) are the args shown for
 * approval: given them, an edit equal to them is not reported to the model
 * as a change.
 */
export type Wait =
  { kind: 'question'; set: QuestionSet } | { kind: 'approval'; toolName?: string; args?: unknown }

/**
 * What happens to a wait nobody answered in time (docs/design.md §6.6).
 */
export type ExpiryRule = 'defaults' | 'reject' | 'cancel'

/**
 * Appended to clamped free text, so the model and the run record see the
 * cut.
 */
export const TRUNCATION_MARK = '… [truncated]'

/**
 * Said when an approval expires.
 */
export const EXPIRED_REASON = 'Nobody approved in time'

/**
 * Cuts text to `max` characters plus the visible mark, without splitting a
 * surrogate pair.
 */
function clamp(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false }
  let cut = text.slice(0, max)
  const last = cut.charCodeAt(cut.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1)
  return { text: `${cut}${TRUNCATION_MARK}`, truncated: true }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)]
}

function sentValues(reply: AnswersReply, id: string): string[] {
  if (!Object.hasOwn(reply.answers, id)) return []
  const sent: unknown = reply.answers[id]
  const list = Array.isArray(sent) ? sent : [sent]
  return unique(list.filter((value): value is string => !isBlankValue(value)))
}

function resolveQuestion(
  question: Question,
  sent: string[],
  limits: QuestionLimits
): ResolvedQuestion {
  const dropped: string[] = []
  const kept: string[] = []
  for (const value of sent) {
    if (checkValue(question, value) !== null) dropped.push(value)
    else if (kept.length === 0 || !isSingleChoice(question)) kept.push(value)
    else dropped.push(value)
  }

  if (kept.length === 0) {
    const defaults = splitDefaults(question)
    return {
      id: question.id,
      values: defaults.values,
      source: 'defaulted',
      dropped: [...dropped, ...defaults.dropped],
    }
  }

  const freeText: string[] = []
  let truncated = false
  const values = kept.map((value) => {
    if (!isFreeTextValue(question, value)) return value
    const clamped = clamp(value, limits.maxFreeTextLength)
    truncated ||= clamped.truncated
    freeText.push(clamped.text)
    return clamped.text
  })

  const resolved: ResolvedQuestion = { id: question.id, values, source: 'answered', dropped }
  if (freeText.length > 0) resolved.freeText = freeText.join('\n')
  if (truncated) resolved.truncated = true
  return resolved
}

/**
 * Settles a question set (docs/design.md §6.1, §6.2). Unanswered questions (no entry,
 * or nothing valid left after dropping) take their defaults and are listed
 * in `defaulted`; values not on offer or failing a typed rule are dropped
 * and recorded; a single-choice question keeps its first valid value.
 * The defaults taken are those that hold (`splitDefaults`, the rule every
 * channel shares); the others are recorded as dropped. `skip` or
 * `ctx.expired` take all defaults. Free text is clamped to `maxFreeTextLength` with
 * `TRUNCATION_MARK` appended.
 *
 * @example
 * settleQuestionSet(set, { answers: { db: ['mongo'] } }, { answeredBy: 'u1', answeredVia: 'web' })
 * // db takes its default, 'mongo' is in questions[0].dropped
 */
export function settleQuestionSet(
  set: QuestionSet,
  reply: AnswersReply,
  ctx: SettleContext
): QuestionOutcome {
  const limits = resolveLimits(ctx.limits)
  const expired = ctx.expired === true
  const skipped = reply.skip === true
  const ignoreAnswers = skipped || expired

  const questions = set.questions.map((question) =>
    resolveQuestion(question, ignoreAnswers ? [] : sentValues(reply, question.id), limits)
  )
  const outcome: Omit<QuestionOutcome, 'text'> = {
    kind: 'answers',
    answers: Object.fromEntries(questions.map((item) => [item.id, item.values])),
    questions,
    defaulted: questions.filter((item) => item.source === 'defaulted').map((item) => item.id),
    skipped,
    expired,
    answeredBy: ctx.answeredBy,
    answeredVia: ctx.answeredVia,
  }
  return { ...outcome, text: describeOutcome(set, outcome) }
}

/**
 * Settles an approval (docs/design.md §6.5). An expired wait is never approved. A
 * reason is clamped like free text and reaches the model; edited args are
 * kept on an approval only, and must already be re-validated against the
 * tool's schema by the caller. `argsChanged` defaults to "edited args were
 * sent".
 *
 * @example
 * settleDecision({ approved: false, reason: 'Not on Friday' }, { answeredBy: 'u1', answeredVia: 'web', toolName: 'deploy' })
 */
export function settleDecision(
  reply: DecisionReply,
  ctx: SettleContext & { toolName?: string; argsChanged?: boolean }
): DecisionOutcome {
  const limits = resolveLimits(ctx.limits)
  const expired = ctx.expired === true
  const approved = reply.approved === true && !expired

  const outcome: Omit<DecisionOutcome, 'text'> = {
    kind: 'decision',
    approved,
    expired,
    answeredBy: ctx.answeredBy,
    answeredVia: ctx.answeredVia,
  }
  if (expired) {
    outcome.reason = EXPIRED_REASON
  } else if (typeof reply.reason === 'string' && reply.reason.trim() !== '') {
    outcome.reason = clamp(reply.reason, limits.maxFreeTextLength).text
  }
  const edited = approved && reply.editedInput !== undefined
  if (edited) outcome.editedInput = reply.editedInput

  const argsChanged = edited && (ctx.argsChanged ?? true)
  return { ...outcome, text: describeDecision(outcome, ctx.toolName, argsChanged) }
}

function argsChangedFor(wait: Wait, reply: DecisionReply): boolean {
  if (reply.editedInput === undefined) return false
  if (wait.kind !== 'approval' || wait.args === undefined) return true
  return canonicalJson(wait.args) !== canonicalJson(reply.editedInput)
}

/**
 * Settles any reply against its wait: `normalizeReply` (so approve/reject
 * of a question set means defaults/skip, and answers to an approval throw
 * `ReplyMismatchException`), then the matching settle function.
 *
 * @example
 * settleReply({ kind: 'question', set }, { approved: true }, ctx) // all defaults
 */
export function settleReply(wait: Wait, reply: Reply, ctx: SettleContext): Outcome {
  const normalized = normalizeReply(reply, wait.kind)
  if (wait.kind === 'question') {
    return settleQuestionSet(wait.set, normalized as AnswersReply, ctx)
  }
  const decision = normalized as DecisionReply
  return settleDecision(decision, {
    ...ctx,
    toolName: wait.toolName,
    argsChanged: argsChangedFor(wait, decision),
  })
}

/**
 * Settles a wait nobody answered in time, by its expiry rule:
 *  - question set, `defaults`: all defaults, `expired`; the model is told
 *    nobody answered;
 *  - question set, `reject` or `cancel`: the same defaults, `expired` and
 *    `skipped` (cancelling the run is the caller's job);
 *  - approval, any expiry rule: not approved, `expired`, reason
 *    `EXPIRED_REASON`. A risky action is never approved by a clock.
 *
 * @example
 * settleExpired({ kind: 'approval', toolName: 'deploy' }, 'defaults', { answeredBy: null, answeredVia: 'expiry' })
 * // { approved: false, expired: true, reason: 'Nobody approved in time', ... }
 */
export function settleExpired(
  wait: Wait,
  rule: ExpiryRule,
  ctx: Omit<SettleContext, 'expired'>
): Outcome {
  if (wait.kind === 'approval') {
    return settleDecision(
      { approved: false },
      { ...ctx, expired: true, toolName: wait.toolName, argsChanged: false }
    )
  }
  return settleQuestionSet(
    wait.set,
    { answers: {}, skip: rule !== 'defaults' },
    { ...ctx, expired: true }
  )
}
