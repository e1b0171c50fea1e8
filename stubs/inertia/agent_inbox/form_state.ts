/*
 * A question card's state without React, so Node can test it: the state a
 * card starts from (the defaults that hold, as every answer channel takes them),
 * how picks and typing change it, and the reply each button sends. The app
 * receives this file in inertia/agent_inbox/. At runtime it imports only
 * the package's browser-safe `adonis-agent-inbox/questions/client`.
 */

import type {
  AnswersReply,
  DecisionReply,
  InputType,
  Question,
  QuestionSet,
} from 'adonis-agent-inbox/types'
import { effectiveDefaults, inputTypeOf, isSingleChoice } from 'adonis-agent-inbox/questions/client'

/** What a card sends to the reply endpoint */
export type Reply = AnswersReply | DecisionReply

/**
 * What a person has entered for one question.
 */
export type AnswerState = {
  /** Picked option values (option questions) or typed values (typed questions) */
  values: string[]
  /** Their own words, on an option question that allows free text */
  other: string
  /** Whether their own words are chosen over (single) or besides (multiple) the options */
  otherChosen: boolean
}

/**
 * A question card's state, keyed by question id.
 */
export type FormState = Record<string, AnswerState>

/**
 * Whether the question is answered by picking among options.
 */
export function hasOptions(question: Pick<Question, 'options'>): boolean {
  return (question.options?.length ?? 0) > 0
}

/**
 * The type of a free-text field: the typed input's type, or plain text.
 */
export function freeTextType(question: Pick<Question, 'input'>): InputType {
  const type = question.input?.type
  return type === undefined || type === 'select' ? 'text' : type
}

/**
 * The state a question starts from: the defaults that hold
 * (`effectiveDefaults`, the rule settling and the terminal apply too), so
 * Confirm on an untouched card sends what Skip or expiry would settle. On
 * an option question the options among them are picked and free text fills
 * the field for their own words; a typed question shows them in its fields
 * (one blank field when there are none, a boolean shows no choice).
 *
 * @example
 * initialAnswer({ id: 'db', prompt: '?', options: [{ value: 'pg', label: 'PostgreSQL' }], defaults: ['pg'] })
 * // { values: ['pg'], other: '', otherChosen: false }
 */
export function initialAnswer(question: Question): AnswerState {
  const defaults = effectiveDefaults(question)
  if (hasOptions(question)) {
    const offered = new Set(question.options!.map((option) => option.value))
    const own = defaults.find((value) => !offered.has(value))
    return {
      values: defaults.filter((value) => offered.has(value)),
      other: own ?? '',
      otherChosen: own !== undefined,
    }
  }
  const blank = defaults.length === 0 && inputTypeOf(question) !== 'boolean'
  return { values: blank ? [''] : defaults, other: '', otherChosen: false }
}

/**
 * The state of a whole card, every question on its defaults.
 */
export function initialForm(set: QuestionSet): FormState {
  return Object.fromEntries(set.questions.map((question) => [question.id, initialAnswer(question)]))
}

function isBlank(value: string): boolean {
  return value.trim() === ''
}

/**
 * What a question sends: its picked options in their order plus their own
 * words when chosen (or the own words alone on a single-choice question),
 * or its typed values. Blank values are left out, so the question takes its
 * default on the server.
 */
export function answerValues(question: Question, state: AnswerState): string[] {
  if (hasOptions(question)) {
    const order = question.options!.map((option) => option.value)
    const picked = order.filter((value) => state.values.includes(value))
    const own = question.allowFreeText && state.otherChosen && !isBlank(state.other)
    if (isSingleChoice(question)) {
      if (state.otherChosen) return own ? [state.other] : []
      return picked.slice(0, 1)
    }
    return own ? [...picked, state.other] : picked
  }
  const values = state.values.filter((value) => !isBlank(value))
  return isSingleChoice(question) ? values.slice(0, 1) : [...new Set(values)]
}

/**
 * The reply **Confirm** sends: every question's current values, which are
 * the defaults unless the person changed them.
 *
 * @example
 * answersReply(set, initialForm(set)) // { answers: { db: ['pg'], port: ['5432'] } }
 */
export function answersReply(set: QuestionSet, form: FormState): AnswersReply {
  return {
    answers: Object.fromEntries(
      set.questions.map((question) => [
        question.id,
        answerValues(question, form[question.id] ?? initialAnswer(question)),
      ])
    ),
  }
}

/**
 * The reply **Skip** sends: proceed on all defaults, marked skipped.
 */
export function skipReply(): AnswersReply {
  return { answers: {}, skip: true }
}

/**
 * The reply **Approve** sends.
 */
export function approveReply(): DecisionReply {
  return { approved: true }
}

/**
 * The reply a rejection sends; a blank reason is left out.
 */
export function rejectReply(reason: string): DecisionReply {
  return isBlank(reason) ? { approved: false } : { approved: false, reason: reason.trim() }
}

/**
 * Args as the person reads and edits them: pretty JSON.
 */
export function argsText(args: unknown): string {
  if (args === undefined) return '{}'
  return JSON.stringify(args, null, 2) ?? String(args)
}

/**
 * Picks an option: selects it on a single-choice question (dropping their own
 * words), toggles it on a multiple-choice one.
 */
export function pickOption(question: Question, state: AnswerState, value: string): AnswerState {
  if (isSingleChoice(question)) return { ...state, values: [value], otherChosen: false }
  const values = state.values.includes(value)
    ? state.values.filter((item) => item !== value)
    : [...state.values, value]
  return { ...state, values }
}

/**
 * Chooses (or, on a multiple-choice question, toggles) their own words.
 */
export function chooseOther(question: Question, state: AnswerState, chosen: boolean): AnswerState {
  if (isSingleChoice(question))
    return { ...state, values: chosen ? [] : state.values, otherChosen: chosen }
  return { ...state, otherChosen: chosen }
}

/**
 * Types their own words; typing chooses them.
 */
export function typeOther(question: Question, state: AnswerState, text: string): AnswerState {
  return { ...chooseOther(question, state, true), other: text }
}

/**
 * Sets the typed value at `index` (a single typed question has index 0).
 */
export function setTypedValue(state: AnswerState, index: number, value: string): AnswerState {
  const values = [...state.values]
  values[index] = value
  return { ...state, values }
}

/**
 * The option a key picks, looking first in the question the focus is in.
 * Hotkeys are single characters, matched case-insensitively.
 *
 * @example
 * findHotkey(set.questions, 'P') // { questionId: 'db', value: 'pg' }
 */
export function findHotkey(
  questions: Question[],
  key: string,
  preferredId?: string
): { questionId: string; value: string } | null {
  if ([...key].length !== 1) return null
  const wanted = key.toLowerCase()
  const ordered = [
    ...questions.filter((question) => question.id === preferredId),
    ...questions.filter((question) => question.id !== preferredId),
  ]
  for (const question of ordered) {
    const option = question.options?.find((item) => item.hotkey?.toLowerCase() === wanted)
    if (option) return { questionId: question.id, value: option.value }
  }
  return null
}

const DATETIME =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/

function pad(value: number): string {
  return String(value).padStart(2, '0')
}

/**
 * A datetime value as `<input type="datetime-local">` shows it
 * (`YYYY-MM-DDTHH:mm`): seconds dropped, and a value with an offset shown in
 * the browser's time zone. What the person picks is sent as they picked it.
 * Unreadable values become '' (the field shows empty; the default still
 * holds unless they pick something).
 */
export function toDatetimeLocal(value: string): string {
  const match = DATETIME.exec(value.trim())
  if (!match) return ''
  if (match[3] === undefined) return `${match[1]}T${match[2]}`
  const at = new Date(value.trim())
  if (Number.isNaN(at.getTime())) return ''
  return (
    `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}` +
    `T${pad(at.getHours())}:${pad(at.getMinutes())}`
  )
}

/**
 * A date value as `<input type="date">` shows it, or '' when unreadable.
 */
export function toDateInput(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? value.trim() : ''
}

/**
 * Whether a question differs from its defaults.
 */
export function isChanged(question: Question, state: AnswerState): boolean {
  const initial = answerValues(question, initialAnswer(question))
  const now = answerValues(question, state)
  return initial.length !== now.length || initial.some((value, index) => value !== now[index])
}
