/*
 * Answer memory (docs/design.md §4.5): a retried run that asks a question it already
 * asked, with the same words, gets the earlier answer without asking the
 * person again. A question set is known by a fingerprint of its words; the
 * runtime keeps earlier outcomes next to their fingerprints and asks here.
 */

import { createHash } from 'node:crypto'
import type { Question, QuestionOutcome, QuestionSet } from './types.ts'

/**
 * Bumped whenever the canonical form changes, so old fingerprints stop
 * matching instead of matching the wrong thing.
 */
const FINGERPRINT_VERSION = 'agent-inbox.question-set.v1'

function sortKeys(value: unknown): unknown {
  // As JSON.stringify reads it, so a value and the JSON stored of it agree (a Date is its ISO text)
  if (hasToJSON(value)) return sortKeys(value.toJSON())
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, item]) => [key, sortKeys(item)])
    )
  }
  return value
}

function hasToJSON(value: unknown): value is { toJSON(): unknown } {
  return typeof (value as { toJSON?: unknown } | null)?.toJSON === 'function'
}

/**
 * JSON with object keys sorted at every depth and undefined members left
 * out, so two equal values always give the same text whatever their key
 * order.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value ?? null))
}

/**
 * Prose compares by its words: a retried model that adds a trailing space or
 * wraps a line differently still asks the same thing.
 */
function words(text: string | undefined): string | undefined {
  return text === undefined ? undefined : text.trim().replace(/\s+/gu, ' ')
}

function canonicalQuestion(question: Question) {
  return {
    id: question.id,
    prompt: words(question.prompt),
    header: words(question.header),
    description: words(question.description),
    options: question.options?.map((option) => ({
      value: option.value,
      label: words(option.label),
      description: words(option.description),
    })),
    input: question.input,
    multiple: question.multiple === true,
    allowFreeText: question.allowFreeText === true,
    intent: question.intent,
    detail: words(question.detail),
  }
}

/**
 * The sha256 (hex) of a canonical form of a question set's words: the
 * preamble and, per question in order, its id, prompt, header, description,
 * options (value, label, description), input rules, `multiple`,
 * `allowFreeText`, intent and detail. Key order and runs of whitespace in
 * prose do not count.
 *
 * Defaults are left out on purpose: they are the model's pre-pick, not
 * words the person read as the question. A retried model may pre-pick
 * differently while asking the same thing, and the person's earlier answer
 * still answers it. Option hotkeys are left out too (they are keyboard
 * shortcuts of the inbox, not words).
 *
 * @example
 * questionSetFingerprint({ questions: [{ id: 'db', prompt: 'Which database?', defaults: ['pg'], options }] })
 */
export function questionSetFingerprint(set: QuestionSet): string {
  const canonical = canonicalJson({
    version: FINGERPRINT_VERSION,
    preamble: words(set.preamble),
    questions: set.questions.map(canonicalQuestion),
  })
  return createHash('sha256').update(canonical).digest('hex')
}

/**
 * The earlier outcome of the same question set, or `null` when this set
 * was not asked before. The outcome comes back as it was settled, with its
 * `answeredVia` and `text`, so the model reads the same answer again. When
 * several outcomes match, the latest (last in the list) wins. A copy is
 * returned, so callers may change it freely.
 *
 * @example
 * const earlier = recallOutcome(set, await memory.outcomesOf(runId))
 * if (earlier) return earlier.text
 */
export function recallOutcome(
  set: QuestionSet,
  remembered: Array<{ fingerprint: string; outcome: QuestionOutcome }>
): QuestionOutcome | null {
  const fingerprint = questionSetFingerprint(set)
  for (let index = remembered.length - 1; index >= 0; index--) {
    if (remembered[index].fingerprint === fingerprint) {
      return structuredClone(remembered[index].outcome)
    }
  }
  return null
}
