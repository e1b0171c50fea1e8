/*
 * The rules one answer value must pass, per input type. Answers travel as
 * strings, so every rule here reads a string. Used both when checking the
 * defaults a model pre-picked and when settling what a person sent, so the
 * two can never disagree on what a valid value is.
 */

import { MAX_PATTERN_VALUE_LENGTH, matchesPattern } from './pattern.ts'
import type { InputType, Question, QuestionLimits } from './types.ts'

/**
 * The limits used when the app configures none (docs/design.md §3.3).
 */
export const DEFAULT_LIMITS: Readonly<QuestionLimits> = Object.freeze({
  maxQuestions: 4,
  minOptions: 2,
  maxOptions: 6,
  maxPromptLength: 400,
  maxFreeTextLength: 2000,
  askBudget: 3,
})

/**
 * Merges app-configured limits over the defaults.
 */
export function resolveLimits(limits?: Partial<QuestionLimits>): QuestionLimits {
  return { ...DEFAULT_LIMITS, ...limits }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/
const INTEGER = /^[+-]?\d+$/
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * The input type a question asks for: its `input.type`, else `select` when
 * it has options, else free `text`.
 */
export function inputTypeOf(question: Pick<Question, 'input' | 'options'>): InputType {
  if (question.input) return question.input.type
  return question.options && question.options.length > 0 ? 'select' : 'text'
}

function isCalendarDate(year: string, month: string, day: string): boolean {
  const y = Number(year)
  const m = Number(month)
  const d = Number(day)
  if (m < 1 || m > 12 || d < 1) return false
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate()
  return d <= daysInMonth
}

function checkBounds(
  value: number,
  min: number | string | undefined,
  max: number | string | undefined,
  what: string
): string | null {
  if (typeof min === 'number' && value < min) return `${what} must be at least ${min}`
  if (typeof max === 'number' && value > max) return `${what} must be at most ${max}`
  return null
}

/**
 * Whether a value is an absolute http: or https: URL. Other schemes
 * (`javascript:`, `data:`, `file:`) are refused: a URL answer is shown as a
 * link and handed to the run's tools, and neither should run or read it.
 */
function isWebUrl(value: string): boolean {
  if (!URL.canParse(value)) return false
  const { protocol } = new URL(value)
  return protocol === 'http:' || protocol === 'https:'
}

/**
 * A value against a pattern, in linear time (pattern.ts). A value longer
 * than MAX_PATTERN_VALUE_LENGTH fails, so no value costs more than that to
 * match. A pattern the matcher cannot run (only a row stored before
 * patterns were checked can hold one) is no rule at all: the question stays
 * answerable, and the model gets a value it did not constrain.
 */
function checkPattern(pattern: string, value: string): string | null {
  if (value.length > MAX_PATTERN_VALUE_LENGTH) {
    return `is too long to check against the pattern ${pattern} (at most ${MAX_PATTERN_VALUE_LENGTH} characters)`
  }
  return matchesPattern(pattern, value) === false ? `must match the pattern ${pattern}` : null
}

/**
 * Checks one value against a typed input's rules, without looking at options.
 * Returns `null` when it passes, else a message saying what is expected.
 *
 * @example
 * checkTypedValue({ type: 'integer', min: 1 }, '0') // 'must be at least 1'
 */
export function checkTypedValue(input: Question['input'] & {}, value: string): string | null {
  if (value.trim() === '') return 'must not be empty'
  const { min, max } = input

  switch (input.type) {
    case 'select':
      return null
    case 'number':
    case 'integer': {
      const pattern = input.type === 'integer' ? INTEGER : NUMBER
      if (!pattern.test(value.trim())) {
        return input.type === 'integer' ? 'must be a whole number' : 'must be a number'
      }
      return checkBounds(Number(value), min, max, 'value')
    }
    case 'boolean':
      return value === 'true' || value === 'false' ? null : 'must be "true" or "false"'
    case 'date': {
      const match = DATE.exec(value)
      if (!match || !isCalendarDate(match[1], match[2], match[3])) {
        return 'must be a date written YYYY-MM-DD'
      }
      if (typeof min === 'string' && value < min) return `must be on or after ${min}`
      if (typeof max === 'string' && value > max) return `must be on or before ${max}`
      return null
    }
    case 'datetime': {
      const match = DATETIME.exec(value)
      if (
        !match ||
        !isCalendarDate(match[1], match[2], match[3]) ||
        Number(match[4]) > 23 ||
        Number(match[5]) > 59 ||
        (match[6] !== undefined && Number(match[6]) > 59)
      ) {
        return 'must be a date and time written YYYY-MM-DDTHH:mm (seconds and offset optional)'
      }
      const at = Date.parse(value)
      if (typeof min === 'string' && at < Date.parse(min)) return `must be at or after ${min}`
      if (typeof max === 'string' && at > Date.parse(max)) return `must be at or before ${max}`
      return null
    }
    case 'email':
    case 'url':
    case 'text': {
      if (input.type === 'email' && !EMAIL.test(value)) return 'must be an email address'
      if (input.type === 'url' && !isWebUrl(value)) return 'must be an absolute http(s) URL'
      const lengthProblem = checkBounds(value.length, min, max, 'length')
      if (lengthProblem) return lengthProblem
      return input.pattern === undefined ? null : checkPattern(input.pattern, value)
    }
  }
}

/**
 * Checks one value against a question: an option value, else (when free
 * text is allowed or the question has no options) its typed rules.
 * Returns `null` when the value is acceptable, else what is wrong.
 *
 * @example
 * checkValue({ id: 'db', prompt: '?', options: [{ value: 'pg', label: 'PostgreSQL' }], defaults: [] }, 'mongo')
 * // 'is not one of the options (pg)'
 */
export function checkValue(question: Question, value: string): string | null {
  const options = question.options ?? []
  if (options.some((option) => option.value === value)) return null

  const type = inputTypeOf(question)
  if (options.length > 0 && !question.allowFreeText) {
    return `is not one of the options (${options.map((option) => option.value).join(', ')})`
  }
  return checkTypedValue(question.input ?? { type: type === 'select' ? 'text' : type }, value)
}

/**
 * How a value reads to a person: its option's label, else the value itself.
 */
export function optionLabel(question: Pick<Question, 'options'>, value: string): string {
  return question.options?.find((option) => option.value === value)?.label ?? value
}

/**
 * Whether a question takes one value only.
 */
export function isSingleChoice(question: Pick<Question, 'multiple'>): boolean {
  return question.multiple !== true
}
