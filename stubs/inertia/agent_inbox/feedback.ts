/*
 * What the page is told of the reply it sent, read without React so Node
 * can test it: the `feedback` prop the package's controller passes (how the
 * row was settled, or the error the reply met), field errors split between
 * a card's questions (or an approval's reason and args) and the rest, and
 * the words of the alert. The app receives this file in inertia/agent_inbox/.
 */

import type {
  ErrorEntry,
  ErrorReport,
  People,
  Question,
  QuestionSet,
  ReplyFeedback,
  RowCard,
} from 'adonis-agent-inbox/types'
import { isSingleChoice } from 'adonis-agent-inbox/questions/client'
import { t } from './words'

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
    const numbered = index !== undefined && !isSingleChoice(owner)
    byQuestion[owner.id] ??= []
    byQuestion[owner.id].push(
      ...messages.map((message) =>
        numbered
          ? t('page.card.value_error', { number: index! + 1, message: sentence(message) })
          : sentence(message)
      )
    )
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
 * The error a reply met: the body the reply endpoint answers
 * (`{ errors: [{ message, code, field?, rule?, meta? }] }`) with its status
 */
export type InboxError = ErrorReport

/** Who settled a row, through what and when */
export type Settlement = NonNullable<ReplyFeedback['settled']>

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

function readSettlement(value: Record<string, unknown>): Settlement {
  return { by: stringOrNull(value.by), via: stringOrNull(value.via), at: stringOrNull(value.at) }
}

function readEntry(item: unknown): ErrorEntry[] {
  if (!isRecord(item) || typeof item.message !== 'string') return []
  const entry: ErrorEntry = {
    message: item.message,
    code: typeof item.code === 'string' ? item.code : 'E_UNKNOWN',
  }
  if (typeof item.field === 'string') entry.field = item.field
  if (typeof item.rule === 'string') entry.rule = item.rule
  if (isRecord(item.meta)) entry.meta = item.meta
  return [entry]
}

function readError(value: Record<string, unknown>): InboxError | null {
  const errors = Array.isArray(value.errors) ? value.errors.flatMap(readEntry) : []
  if (errors.length === 0) return null
  return { status: typeof value.status === 'number' ? value.status : 0, errors }
}

/**
 * The page's `feedback` prop, checked, or null: what the server says of the
 * reply (or bulk decision) the page last sent. The page claims a
 * settlement only from this.
 *
 * @example
 * readFeedback({ rowId: 'r1', settled: { by: '1', via: 'web', at: '2026-01-02T03:04:05Z' } })
 */
export function readFeedback(value: unknown): ReplyFeedback | null {
  if (!isRecord(value)) return null
  const feedback: ReplyFeedback = { rowId: stringOrNull(value.rowId) }
  if (isRecord(value.settled)) feedback.settled = readSettlement(value.settled)
  const error = isRecord(value.error) ? readError(value.error) : null
  if (error) feedback.error = error
  if (Array.isArray(value.bulk)) {
    feedback.bulk = value.bulk.filter(isRecord).flatMap((item) => {
      if (typeof item.rowId !== 'string') return []
      const failed = isRecord(item.error) ? readError(item.error) : null
      return [
        {
          rowId: item.rowId,
          ...(isRecord(item.settled) ? { settled: readSettlement(item.settled) } : {}),
          ...(failed ? { error: failed } : {}),
        },
      ]
    })
  }
  return feedback.settled || feedback.error || feedback.bulk ? feedback : null
}

/**
 * What the server recorded of a row, when the word about a reply was lost
 * (the flash went to another request of the session, e.g. a live-update
 * subscription sent at the same moment): its settlement (null while it is
 * pending) and the names of the people it shows; undefined when the server
 * could not say.
 */
export async function askRow(
  url: string
): Promise<{ settled: Settlement | null; status?: string; people?: People } | undefined> {
  const response = await fetch(url, { headers: { accept: 'application/json' } }).catch(() => null)
  if (!response?.ok) return undefined
  const body: unknown = await response.json().catch(() => null)
  const row = isRecord(body) && isRecord(body.row) ? body.row : null
  if (!row) return undefined
  const people = isRecord(body) && isRecord(body.people) ? (body.people as People) : undefined
  if (row.status === 'pending') return { settled: null, people }
  return isRecord(row.settled)
    ? {
        settled: readSettlement(row.settled),
        status: stringOrNull(row.status) ?? undefined,
        people,
      }
    : undefined
}

/**
 * Whether a row settled as `status` cannot be this tab's `reply`: a
 * decision the other way. Then the reply lost, though no word of it came
 * back (another tab of the same session took the redirect's flash).
 * Answers settle alike whoever sent them: those are not told apart.
 */
export function lostTo(reply: Record<string, unknown>, status: string | undefined): boolean {
  if (typeof reply.approved !== 'boolean' || status === undefined) return false
  return status !== (reply.approved ? 'approved' : 'rejected')
}

/** The conflict a reply that lost reports, as the reply route's 409 says it */
export function conflictOf(settled: Settlement): InboxError {
  return {
    status: 409,
    errors: [
      {
        code: 'E_ALREADY_SETTLED',
        message: t('page.card.already_settled'),
        meta: { settledBy: settled.by, settledVia: settled.via, settledAt: settled.at },
      },
    ],
  }
}

/**
 * The alert when no word came back about a reply and the row still waits;
 * its message is read when shown, in the page's language.
 */
export const NO_WORD: InboxError = {
  status: 0,
  errors: [
    {
      code: 'E_NO_WORD',
      get message() {
        return t('page.card.no_word')
      },
    },
  ],
}

/**
 * The field errors of an error, keyed by field (a 422 names them).
 */
export function fieldErrors(error: InboxError): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  for (const item of error.errors) {
    if (item.field !== undefined) (errors[item.field] ??= []).push(item.message)
  }
  return errors
}

/**
 * What an error says of the request as a whole: the messages of its
 * entries that name no field (all of them when each names one).
 */
export function errorMessage(error: InboxError): string {
  const whole = error.errors.filter((item) => item.field === undefined)
  return (whole.length > 0 ? whole : error.errors).map((item) => item.message).join(' ')
}

/**
 * The 409s that refuse an approval the app can no longer carry out (a
 * removed tool, a policy that now denies it), not a conflict with another
 * reply (docs/guides/deploying_while_runs_wait.md)
 */
const CHANGED_ROW_CODES = ['E_TOOL_REMOVED', 'E_DENIED_BY_POLICY']

/**
 * Whether an error says someone settled the row first: a 409 other than
 * a changed row's refusal.
 */
export function isConflict(error: InboxError): boolean {
  return error.status === 409 && !error.errors.some((item) => CHANGED_ROW_CODES.includes(item.code))
}

/** The alert's first words for an error */
export function alertHeading(error: InboxError): string {
  return t(isConflict(error) ? 'page.card.already_settled' : 'page.card.not_through')
}

/**
 * The settlement a conflict reports, from its entry's `meta`.
 */
export function conflictSettlement(error: InboxError): Settlement {
  const meta = error.errors.find((item) => item.meta)?.meta ?? {}
  return {
    by: stringOrNull(meta.settledBy),
    via: stringOrNull(meta.settledVia),
    at: stringOrNull(meta.settledAt),
  }
}

/**
 * Who settled a row and how, as the signed-in person reads it: "you, in
 * another tab" for their own reply from a page, "you, via api" for their
 * own through another channel, else the person's name (from `people`, else
 * their id) and the channel.
 *
 * @example
 * settlerWords({ by: '1', via: 'api', at: null }, '1', fmt) // 'you, via api'
 */
export function settlerWords(
  settled: Settlement,
  person: string,
  formatTime: (iso: string) => string,
  people: People = {}
): string {
  const mine = settled.by !== null && settled.by === person
  const words = [
    mine
      ? t('page.card.you')
      : settled.by === null
        ? t('page.someone')
        : (people[settled.by] ?? settled.by),
  ]
  if (mine && settled.via === 'web') words.push(t('page.card.another_tab'))
  else if (settled.via) words.push(t('page.via', { via: settled.via }))
  if (settled.at) words.push(t('page.at_time', { time: formatTime(settled.at) }))
  return words.join(', ')
}

/**
 * What a refused reply's field errors are about, in the words the person
 * saw: a question's prompt, "the reason", "the edited arguments".
 */
function refusalWords(card: RowCard | null, errors: Record<string, string[]>): string[] {
  if (!card) return []
  const set = card.questionSet
  if (set) {
    const { byQuestion, rest } = questionErrors(set, errors)
    return [
      ...set.questions
        .filter((question) => byQuestion[question.id])
        .map((question) =>
          t('page.card.check_question', {
            prompt: question.prompt,
            errors: byQuestion[question.id].join(' '),
          })
        ),
      ...rest,
    ]
  }
  const split = decisionErrors(errors)
  return [
    ...(split.reason.length > 0
      ? [t('page.card.check_reason', { errors: split.reason.join(' ') })]
      : []),
    ...(split.editedInput.length > 0
      ? [t('page.card.check_args', { errors: split.editedInput.join(' ') })]
      : []),
    ...split.rest,
  ]
}

/**
 * The words of the error alert. A conflict says who settled the row, how
 * and when; a refused reply names what to check by what the person saw
 * (a question's prompt), not by the field's path.
 *
 * @example
 * alertText(conflict, { person: '1', card, formatTime }) // 'Settled by you, via api, at 10:32.'
 */
export function alertText(
  error: InboxError,
  context: {
    person: string
    card: RowCard | null
    formatTime: (iso: string) => string
    people?: People
  }
): string {
  if (isConflict(error)) {
    const settled = conflictSettlement(error)
    return t('page.card.conflict', {
      who: settlerWords(settled, context.person, context.formatTime, context.people),
    })
  }
  const refused = refusalWords(context.card, fieldErrors(error))
  if (refused.length > 0) return t('page.card.check', { what: refused.join('; ') })
  return errorMessage(error)
}
