/*
 * The inbox page's logic without React, so Node can test it: the state a
 * question card starts from (its defaults), the reply each button sends,
 * where flashed errors belong, and how settled rows keep their place. The
 * app receives this file beside the page (inertia/pages/agent_inbox/). It
 * imports types only: nothing of the package's backend reaches the browser.
 */

import type {
  AnswersReply,
  DecisionReply,
  InputType,
  Question,
  QuestionSet,
  RowCard,
  RunGroup,
} from 'adonis-agent-inbox/types'

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
 * The input type a question asks for: its `input.type`, else `select` when
 * it has options, else free `text`. Mirrors `inputTypeOf` of the package,
 * which the page may not import at runtime.
 */
export function inputTypeOf(question: Pick<Question, 'input' | 'options'>): InputType {
  if (question.input) return question.input.type
  return question.options && question.options.length > 0 ? 'select' : 'text'
}

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
 * Whether the question takes one value only.
 */
export function isSingle(question: Pick<Question, 'multiple'>): boolean {
  return question.multiple !== true
}

/**
 * The state a question starts from: its defaults, pre-filled. On an option
 * question, defaults that are options are picked and (when free text is
 * allowed) the first other default fills the free-text field; a single-choice
 * question keeps one. A typed question shows its defaults as they are.
 *
 * @example
 * initialAnswer({ id: 'db', prompt: '?', options: [{ value: 'pg', label: 'PostgreSQL' }], defaults: ['pg'] })
 * // { values: ['pg'], other: '', otherChosen: false }
 */
export function initialAnswer(question: Question): AnswerState {
  const defaults = [...new Set(question.defaults)]
  if (hasOptions(question)) {
    const offered = new Set(question.options!.map((option) => option.value))
    const picked = defaults.filter((value) => offered.has(value))
    const values = isSingle(question) ? picked.slice(0, 1) : picked
    const own = question.allowFreeText ? defaults.find((value) => !offered.has(value)) : undefined
    const otherChosen = own !== undefined && (!isSingle(question) || values.length === 0)
    return { values, other: otherChosen ? own : '', otherChosen }
  }

  if (inputTypeOf(question) === 'boolean') {
    const value = defaults.find((item) => item === 'true' || item === 'false')
    return { values: value === undefined ? [] : [value], other: '', otherChosen: false }
  }
  const values = isSingle(question) ? defaults.slice(0, 1) : defaults
  return { values: values.length > 0 ? values : [''], other: '', otherChosen: false }
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
    if (isSingle(question)) {
      if (state.otherChosen) return own ? [state.other] : []
      return picked.slice(0, 1)
    }
    return own ? [...picked, state.other] : picked
  }
  const values = state.values.filter((value) => !isBlank(value))
  return isSingle(question) ? values.slice(0, 1) : [...new Set(values)]
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
 * The reply **Approve with changes** sends, or the reason the edited JSON
 * cannot be read (caught before anything is sent).
 *
 * @example
 * editReply('{ "branch": "main" }') // { reply: { approved: true, editedInput: { branch: 'main' } } }
 * editReply('{ branch') // { error: 'Not valid JSON: …' }
 */
export function editReply(text: string): { reply: DecisionReply } | { error: string } {
  if (isBlank(text)) return { error: 'Write the arguments as JSON, for example {}' }
  try {
    return { reply: { approved: true, editedInput: JSON.parse(text) } }
  } catch (error) {
    return { error: `Not valid JSON: ${(error as Error).message}` }
  }
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
  if (isSingle(question)) return { ...state, values: [value], otherChosen: false }
  const values = state.values.includes(value)
    ? state.values.filter((item) => item !== value)
    : [...state.values, value]
  return { ...state, values }
}

/**
 * Chooses (or, on a multiple-choice question, toggles) their own words.
 */
export function chooseOther(question: Question, state: AnswerState, chosen: boolean): AnswerState {
  if (isSingle(question))
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

/**
 * Flashed field errors as lists of messages. Inertia gives one message or
 * several per field; anything else is ignored.
 */
export function readErrors(value: unknown): Record<string, string[]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {}
  const errors: Record<string, string[]> = {}
  for (const [field, messages] of Object.entries(value)) {
    const list = (Array.isArray(messages) ? messages : [messages]).filter(
      (message): message is string => typeof message === 'string' && message !== ''
    )
    if (list.length > 0) errors[field] = list
  }
  return errors
}

function sentence(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1)
}

/**
 * Splits field errors between the questions of a set (`answers.<id>` and
 * `answers.<id>.<n>`, ids may hold dots) and the rest of the card
 * (`answers`, `approved`, `reply`, …). On a multiple-choice question an
 * indexed error names the value it is about.
 *
 * @example
 * questionErrors(set, { 'answers.port.0': ['must be a whole number'] })
 * // { byQuestion: { port: ['Must be a whole number'] }, rest: [] }
 */
export function questionErrors(
  set: QuestionSet,
  errors: Record<string, string[]>
): { byQuestion: Record<string, string[]>; rest: string[] } {
  const byId = [...set.questions].sort((a, b) => b.id.length - a.id.length)
  const byQuestion: Record<string, string[]> = {}
  const rest: string[] = []
  for (const [field, messages] of Object.entries(errors)) {
    const path = field.startsWith('answers.') ? field.slice('answers.'.length) : null
    let owner: Question | undefined
    let index: number | undefined
    if (path !== null) {
      owner = byId.find((question) => {
        if (path === question.id) return true
        const tail = path.slice(question.id.length + 1)
        return path.startsWith(`${question.id}.`) && /^\d+$/.test(tail)
      })
      if (owner && path !== owner.id) index = Number(path.slice(owner.id.length + 1))
    }
    if (!owner) {
      rest.push(...messages.map((message) => `${field}: ${message}`))
      continue
    }
    const prefix = index !== undefined && !isSingle(owner) ? `Value ${index + 1}: ` : ''
    byQuestion[owner.id] ??= []
    byQuestion[owner.id].push(...messages.map((message) => prefix + sentence(message)))
  }
  return { byQuestion, rest }
}

/**
 * Splits field errors of an approval: the reason, the edited args
 * (`editedInput` and `editedInput.<path>`, named by their path) and the rest.
 */
export function decisionErrors(errors: Record<string, string[]>): {
  reason: string[]
  editedInput: string[]
  rest: string[]
} {
  const split = { reason: [] as string[], editedInput: [] as string[], rest: [] as string[] }
  for (const [field, messages] of Object.entries(errors)) {
    if (field === 'reason') {
      split.reason.push(...messages.map(sentence))
    } else if (field === 'editedInput') {
      split.editedInput.push(...messages.map(sentence))
    } else if (field.startsWith('editedInput.')) {
      const path = field.slice('editedInput.'.length)
      split.editedInput.push(...messages.map((message) => `${path}: ${message}`))
    } else {
      split.rest.push(...messages.map((message) => `${field}: ${message}`))
    }
  }
  return split
}

/**
 * An error the reply endpoint flashed under `inbox.error`.
 */
export type InboxError = {
  status: number
  code: string
  message: string
  settledBy?: string | null
  settledVia?: string | null
  settledAt?: string | null
}

/**
 * What the reply endpoint flashes under `inbox`.
 */
export type InboxFlash = { error?: InboxError; settled?: string }

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The `inbox` flash, checked, or null.
 */
export function readInboxFlash(value: unknown): InboxFlash | null {
  if (!isRecord(value)) return null
  const flash: InboxFlash = {}
  if (typeof value.settled === 'string') flash.settled = value.settled
  const error = value.error
  if (isRecord(error) && typeof error.message === 'string') {
    flash.error = {
      status: typeof error.status === 'number' ? error.status : 0,
      code: typeof error.code === 'string' ? error.code : 'E_UNKNOWN',
      message: error.message,
    }
    for (const key of ['settledBy', 'settledVia', 'settledAt'] as const) {
      const item = error[key]
      if (typeof item === 'string' || item === null) flash.error[key] = item
    }
  }
  return flash.error || flash.settled ? flash : null
}

/**
 * Where the page finds what was flashed. Apps expose session flash in
 * different ways, so every usual place is read: Inertia 3's top-level
 * `page.flash`, a shared `flash` prop, and shared `inbox` / `errors` props.
 */
export function feedbackFrom(page: { flash?: unknown; props: Record<string, unknown> }): {
  inbox: InboxFlash | null
  errors: Record<string, string[]>
} {
  const flash = isRecord(page.flash) ? page.flash : {}
  const sharedFlash = isRecord(page.props.flash) ? page.props.flash : {}
  const inbox =
    readInboxFlash(flash.inbox) ??
    readInboxFlash(sharedFlash.inbox) ??
    readInboxFlash(page.props.inbox)
  const errors = {
    ...readErrors(sharedFlash.errors),
    ...readErrors(flash.errors),
    ...readErrors(page.props.errors),
  }
  return { inbox, errors }
}

/**
 * The words of the error alert. A conflict says who settled the row, through
 * what and when.
 *
 * @example
 * alertText({ status: 409, code: 'E_ALREADY_SETTLED', message: '…', settledBy: 'bob', settledAt: '…' }, fmt)
 * // 'Someone else got there first: settled by bob via web at 10:32.'
 */
export function alertText(error: InboxError, formatTime: (iso: string) => string): string {
  if (error.status === 409) {
    const by = error.settledBy ? ` by ${error.settledBy}` : ''
    const via = error.settledVia ? ` via ${error.settledVia}` : ''
    const at = error.settledAt ? ` at ${formatTime(error.settledAt)}` : ''
    return `Someone else got there first: settled${by}${via}${at}.`
  }
  return error.message
}

/**
 * The reply endpoint of a row, next to the inbox page's own URL (the routes
 * share a prefix, `/inbox` by default).
 *
 * @example
 * replyUrl('/inbox?tab=all', 'a1') // '/inbox/rows/a1/reply'
 */
export function replyUrl(inboxUrl: string, rowId: string): string {
  const path = new URL(inboxUrl, 'http://inbox.invalid').pathname.replace(/\/+$/, '')
  return `${path}/rows/${encodeURIComponent(rowId)}/reply`
}

/**
 * The first characters of an id, enough to tell runs apart.
 */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id
}

/**
 * How a settled row is remembered by the page once it leaves the pending
 * list, so its card can say who settled it.
 */
export type SettledNote = {
  card: RowCard
  run: RunGroup['run']
  by: string | null
  via: string | null
  at: string | null
}

/**
 * A card as the page lists it: pending, or settled (from a note, or a
 * non-pending card the server sent).
 */
export type ListedCard = { card: RowCard; settled: SettledNote | null }

function createdAt(item: ListedCard): string {
  return item.card.createdAt ?? ''
}

/**
 * The groups to show: the pending ones as sent, with rows the person just
 * settled kept in their place (oldest first) so their card can say who
 * settled it. A row that is pending again is shown as pending.
 */
export function listGroups(
  groups: RunGroup[],
  notes: SettledNote[]
): { run: RunGroup['run']; rows: ListedCard[] }[] {
  const pending = new Set(groups.flatMap((group) => group.rows.map((card) => card.id)))
  const listed = groups.map((group) => ({
    run: group.run,
    rows: group.rows.map((card): ListedCard => ({ card, settled: null })),
  }))
  for (const note of notes) {
    if (pending.has(note.card.id)) continue
    let group = listed.find((item) => item.run.id === note.run.id)
    if (!group) {
      group = { run: note.run, rows: [] }
      const at = listed.findIndex((item) => createdAt(item.rows[0]) > (note.card.createdAt ?? ''))
      listed.splice(at === -1 ? listed.length : at, 0, group)
    }
    const item: ListedCard = { card: note.card, settled: note }
    const at = group.rows.findIndex((row) => createdAt(row) > createdAt(item))
    group.rows.splice(at === -1 ? group.rows.length : at, 0, item)
  }
  return listed
}
