/*
 * What the reply endpoint flashed, read without React so Node can test it:
 * field errors split between a card's questions (or an approval's reason
 * and args) and the rest, the `inbox` flash, and the words of the alert.
 * The app receives this file in inertia/agent_inbox/.
 */

import type { Question, QuestionSet } from 'adonis-agent-inbox/types'
import { isSingleChoice } from 'adonis-agent-inbox/questions/client'

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
    const prefix = index !== undefined && !isSingleChoice(owner) ? `Value ${index + 1}: ` : ''
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
