/*
 * What the console page remembers and does between two renders, without a
 * framework, so the React and the Vue page behave alike: the action on its
 * way (one at a time), the run whose Cancel waits for a confirmation, the
 * person picked for each overdue row, and what the last action did or the
 * error it met, shown in the inbox's alert and status styles.
 *
 * Actions post to the console's routes (Retry, Cancel, Reassign), which
 * redirect back; the page they land on carries the outcome as its
 * `feedback` prop and fresh lists, so a run retried leaves the failed
 * list because the server says so. The app receives this file in
 * inertia/agent_console/.
 */

import type {
  ConsoleActionResult,
  ConsoleFeedback,
  ConsoleOverdueRow,
  ConsoleProps,
  ConsoleRun,
} from 'adonis-agent-inbox/types'
import { errorMessage, fieldErrors, type InboxError, readFeedback } from '../agent_inbox/feedback'
import { consoleLinks, doneWords } from './console_words'
import { t } from '../agent_inbox/words'

/** The part of Inertia's router the page uses (`router` of @inertiajs/react or /vue3) */
export type ConsoleRouter = {
  post(
    url: string,
    // Inertia takes any JSON-like object (its own type names FormData too)
    data: Record<string, any>,
    options: {
      preserveScroll: boolean
      onSuccess: (page: { props: Record<string, unknown> }) => void
      onFinish: () => void
    }
  ): void
}

export type ConsoleView = {
  /** The action on its way, as `<action>:<id>` */
  submitting: string | null
  /** The run whose Cancel asks to be confirmed */
  confirming: string | null
  /** The person picked for each overdue row */
  choices: Record<string, string>
  /** The error the last action met, and the run or row it was about */
  alert: { error: InboxError; id: string | null } | null
  /** Field errors by row (Reassign's `to`) */
  errors: { id: string | null; fields: Record<string, string[]> }
  /** What the last action did */
  notice: string | null
}

const ACTIONS = ['retry', 'cancel', 'reassign']

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The page's `feedback` prop, checked, or null: what the server says of
 * the action the page last sent. Its error is read as the inbox reads one.
 */
export function readConsoleFeedback(value: unknown): ConsoleFeedback | null {
  if (!isRecord(value)) return null
  const rowId = typeof value.rowId === 'string' ? value.rowId : null
  const feedback: ConsoleFeedback = { rowId }
  const error = readFeedback({ rowId, error: value.error })?.error
  if (error) feedback.error = error
  const done = value.done
  if (isRecord(done) && typeof done.action === 'string' && ACTIONS.includes(done.action)) {
    const ok =
      done.action === 'reassign'
        ? isRecord(done.row) && typeof done.row.id === 'string'
        : isRecord(done.run) && typeof done.run.id === 'string'
    if (ok) feedback.done = done as ConsoleActionResult
  }
  return feedback.done || feedback.error ? feedback : null
}

/** The alert's first words for an action's error */
export function consoleAlertHeading(error: InboxError): string {
  const codes = error.errors.map((item) => item.code)
  if (codes.includes('E_ALREADY_SETTLED')) return t('page.console.already_settled')
  if (codes.includes('E_RUN_NOT_ACTIONABLE')) return t('page.console.nothing_to_do')
  return t('page.console.not_through')
}

/** The alert's text: the error's own message */
export function consoleAlertText(error: InboxError): string {
  return errorMessage(error)
}

/**
 * The console page's state and what changes it; `onChange` hears every
 * new view.
 *
 * @example
 * const session = new ConsoleSession(router, (view) => setView(view))
 * session.sync(props)
 * session.retry(run)
 */
export class ConsoleSession {
  view: ConsoleView = {
    submitting: null,
    confirming: null,
    choices: {},
    alert: null,
    errors: { id: null, fields: {} },
    notice: null,
  }
  #props: Pick<ConsoleProps, 'consoleUrl' | 'people'> = { consoleUrl: '', people: {} }

  constructor(
    private router: ConsoleRouter,
    private onChange: (view: ConsoleView) => void
  ) {}

  #set(change: Partial<ConsoleView>) {
    this.view = { ...this.view, ...change }
    this.onChange(this.view)
  }

  /** Takes the props of each render */
  sync(props: Pick<ConsoleProps, 'consoleUrl' | 'people'>) {
    this.#props = props
  }

  get links() {
    return consoleLinks(this.#props.consoleUrl)
  }

  /** Whether `<action>:<id>` is on its way */
  busy(action: string, id: string): boolean {
    return this.view.submitting === `${action}:${id}`
  }

  /** The person picked for a row, else its first assignee */
  choiceFor(row: ConsoleOverdueRow): string {
    const picked = this.view.choices[row.id]
    return picked !== undefined && row.assignees.includes(picked)
      ? picked
      : (row.assignees[0] ?? '')
  }

  choose(rowId: string, person: string) {
    this.#set({ choices: { ...this.view.choices, [rowId]: person } })
  }

  /** Opens (or, with null, closes) the confirmation of a run's Cancel */
  confirmCancel(runId: string | null) {
    this.#set({ confirming: runId })
  }

  dismissAlert() {
    this.#set({ alert: null })
  }

  #post(action: string, id: string, url: string, data: Record<string, unknown>) {
    if (this.view.submitting !== null) return
    this.#set({
      submitting: `${action}:${id}`,
      alert: null,
      notice: null,
      errors: { id: null, fields: {} },
    })
    this.router.post(url, data, {
      preserveScroll: true,
      onSuccess: (page) => {
        const feedback = readConsoleFeedback(page.props.feedback)
        const people = isRecord(page.props.people)
          ? (page.props.people as Record<string, string>)
          : {}
        if (feedback?.error) {
          this.#set({
            alert: { error: feedback.error, id },
            errors: { id, fields: fieldErrors(feedback.error) },
          })
        } else if (feedback?.done) {
          const names = { ...this.#props.people, ...people }
          this.#set({ notice: doneWords(feedback.done, names, data.to as string | undefined) })
        }
      },
      onFinish: () => this.#set({ submitting: null, confirming: null }),
    })
  }

  /** Retry: a failed run replays as a new attempt */
  retry(run: ConsoleRun) {
    this.#post('retry', run.id, this.links.retry(run.id), {})
  }

  /** Cancel, once confirmed: the run and its pending rows are cancelled */
  cancel(run: ConsoleRun) {
    this.#post('cancel', run.id, this.links.cancel(run.id), {})
  }

  /** Reassign: the row goes to the person picked for it */
  reassign(row: ConsoleOverdueRow) {
    const to = this.choiceFor(row)
    this.#post('reassign', row.id, this.links.reassign(row.id), { to })
  }
}
