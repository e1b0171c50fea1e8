/*
 * What the inbox page remembers and does between two renders, without a
 * framework, so the React and the Vue page behave alike (each holds the
 * state it is handed and renders it): replies on their way, the errors and
 * alert they met, rows settled here that keep their place, the cards
 * selected for a bulk decision, open panels (which pause live updates),
 * the people's names and the runs' statuses the server sent.
 *
 * It claims a settlement only when the server reports one: the reply's
 * outcome is read from the `feedback` prop of the page the redirect lands
 * on; without word for this row (another request of the session took the
 * flash) it asks the row what the server recorded. The app receives this
 * file in inertia/agent_inbox/.
 */

import type { People, ReplyFeedback, RowCard, RunGroup, RunSummary } from 'adonis-agent-inbox/types'
import type { Reply } from './form_state'
import {
  askRow,
  conflictOf,
  conflictSettlement,
  errorMessage,
  fieldErrors,
  type InboxError,
  isConflict,
  lostTo,
  NO_WORD,
  readFeedback,
  type Settlement,
} from './feedback'
import { listGroups, type SettledNote } from './rows'
import type { GrantItem } from './governance'
import { cardTitle, inboxLinks, isFinished, settledWords, t, type PageWords } from './words'

/** The props the package's controller gives the inbox page */
export type InboxProps = {
  /** The signed-in person, as the inbox's access hook identifies them */
  person: string
  groups: RunGroup[]
  /** The runs the page watches (its settled cards'), by id, as they are now */
  runs?: Record<string, RunSummary>
  /** People's names by id, from the `displayName` hook */
  people?: People
  /** How often (ms) to look for changes without Transmit; 0 turns it off */
  pollInterval?: number
  /** Where the inbox routes live */
  inboxUrl?: string
  /** What became of the reply this page last sent, as the server recorded it */
  feedback?: ReplyFeedback | null
  /** The person's remembered grants, newest first */
  grants?: GrantItem[]
} & PageWords

/** The part of Inertia's router the page uses (`router` of @inertiajs/react or /vue3) */
export type InboxRouter = {
  post(
    url: string,
    // Inertia takes any JSON-like object (its own type names FormData too)
    data: Record<string, any>,
    options: {
      preserveScroll: boolean
      preserveState: boolean
      headers: Record<string, string>
      onSuccess: (page: { props: Record<string, unknown> }) => void
      onFinish: () => void
    }
  ): void
}

/** A bulk decision on its way is `submitting: BULK` */
export const BULK = 'bulk'

/**
 * The header that names the runs the page asks about (the package's
 * InboxController reads it): their status comes back as the `runs` prop.
 */
export const WATCHED_RUNS_HEADER = 'x-agent-inbox-runs'

/** What the page renders besides its props */
export type InboxView = {
  /** The row whose reply is on its way, or BULK */
  submitting: string | null
  /** Field errors of the card whose reply was refused */
  feedback: { rowId: string | null; errors: Record<string, string[]> }
  alert: { error: InboxError; card: RowCard | null; lines?: string[] } | null
  /** Rows settled while the page is open, newest last */
  notes: SettledNote[]
  /** What the last bulk decision did */
  bulkNotice: string | null
  /** Rows whose panels (reject, edit) are open */
  openPanels: ReadonlySet<string>
  /** Rows selected for a bulk decision */
  selected: ReadonlySet<string>
  /** The focus is in a field of a card */
  editing: boolean
}

type Known = { card: RowCard; run: RunGroup['run'] }

/**
 * The page's state and what changes it; `onChange` hears every new view.
 *
 * @example
 * const session = new InboxSession(router, (view) => setView(view))
 * session.sync(props)
 * session.reply(card, { approved: true })
 */
export class InboxSession {
  view: InboxView = {
    submitting: null,
    feedback: { rowId: null, errors: {} },
    alert: null,
    notes: [],
    bulkNotice: null,
    openPanels: new Set(),
    selected: new Set(),
    editing: false,
  }
  #props: InboxProps = { person: '', groups: [] }
  /** Cards seen so far, so a settled row's card can still say what it was */
  #known = new Map<string, Known>()
  #people: People = {}
  #runs: Record<string, RunSummary> = {}

  constructor(
    private router: InboxRouter,
    private onChange: (view: InboxView) => void
  ) {}

  #set(patch: Partial<InboxView>) {
    this.view = { ...this.view, ...patch }
    this.onChange(this.view)
  }

  /**
   * Takes in new props: the cards, names and run statuses they carry.
   * Selected cards no longer pending are unselected.
   */
  sync(props: InboxProps) {
    this.#props = props
    for (const group of props.groups) {
      for (const card of group.rows) this.#known.set(card.id, { card, run: group.run })
    }
    Object.assign(this.#people, props.people)
    Object.assign(this.#runs, props.runs)
    const pending = new Set(props.groups.flatMap((group) => group.rows.map((card) => card.id)))
    if ([...this.view.selected].some((id) => !pending.has(id))) {
      this.#set({ selected: new Set([...this.view.selected].filter((id) => pending.has(id))) })
    }
  }

  get links() {
    return inboxLinks(this.#props.inboxUrl ?? '/inbox')
  }

  /** People's names seen so far */
  get people(): People {
    return this.#people
  }

  /** A run as it is now: the latest status the server sent */
  runNow(run: RunSummary): RunSummary
  runNow(run: RunGroup['run']): RunGroup['run']
  runNow(run: RunGroup['run']) {
    return run ? (this.#runs[run.id] ?? run) : run
  }

  /** The runs to ask about on each reload: those of settled cards, unless finished */
  get watchedRuns(): string[] {
    const ids = this.view.notes.flatMap((note) => (note.run ? [note.run.id] : []))
    return [...new Set(ids)].filter((id) => !isFinished(this.#runs[id]?.status ?? 'waiting'))
  }

  /**
   * The header naming the runs to ask about: those watched, and `more`
   * (the runs of the cards a reply settles, so the page it lands on says
   * at once how they go on).
   */
  runsHeader(more: (string | null)[] = []): Record<string, string> {
    const ids = new Set([...this.watchedRuns, ...more.filter((id): id is string => id !== null)])
    return { [WATCHED_RUNS_HEADER]: [...ids].join(',') }
  }

  /**
   * Whether a watched run is someone else's: Transmit tells a person of
   * their own runs only (and whom `live.alsoNotify` names), so the page
   * also polls while it watches one.
   */
  get watchesOthersRuns(): boolean {
    const person = this.#props.person
    return this.watchedRuns.some((id) => {
      const run = this.#runs[id] ?? this.view.notes.find((note) => note.run?.id === id)?.run
      return run?.ownerId !== person
    })
  }

  /** Whether live updates should wait: the person edits, a panel is open, a reply is on its way */
  get paused(): boolean {
    return this.view.editing || this.view.openPanels.size > 0 || this.view.submitting !== null
  }

  /** The groups to show: pending cards, and those settled here in their place */
  listed() {
    return listGroups(this.#props.groups, this.view.notes)
  }

  /** Pending cards by id */
  pendingCards(): RowCard[] {
    return this.#props.groups.flatMap((group) => group.rows)
  }

  #recordSettled(rowId: string, settled: Settlement) {
    const seen = this.#known.get(rowId)
    if (!seen || this.view.notes.some((note) => note.card.id === rowId)) return
    this.#set({ notes: [...this.view.notes, { ...seen, ...settled }].slice(-20) })
  }

  async #askAfterSilence(card: RowCard, reply?: Reply) {
    const answer = await askRow(this.links.row(card.id))
    if (answer?.people) Object.assign(this.#people, answer.people)
    if (answer?.settled) {
      this.#recordSettled(card.id, answer.settled)
      if (reply && lostTo(reply as Record<string, unknown>, answer.status)) {
        this.#set({ alert: { error: conflictOf(answer.settled), card } })
      }
    } else if (answer?.settled === null) this.#set({ alert: { error: NO_WORD, card } })
  }

  #post(
    url: string,
    data: Record<string, unknown>,
    cards: RowCard[],
    onFeedback: (feedback: ReplyFeedback | null) => void
  ) {
    this.router.post(url, data, {
      preserveScroll: true,
      preserveState: true,
      // The redirect keeps the header: the page it lands on has these runs as they are now
      headers: this.runsHeader(cards.map((card) => card.runId)),
      onSuccess: (page) => onFeedback(readFeedback(page.props.feedback)),
      onFinish: () => this.#set({ submitting: null }),
    })
  }

  /**
   * Sends a card's reply.
   */
  reply(card: RowCard, reply: Reply) {
    this.#set({
      submitting: card.id,
      feedback: { rowId: null, errors: {} },
      alert: null,
      bulkNotice: null,
    })
    // The reply names the view it was made on: a row changed since is refused (E_STALE_VIEW)
    const data = { ...(reply as Record<string, unknown>), digest: card.digest }
    this.#post(this.links.reply(card.id), data, [card], (outcome) => {
      if (!outcome || outcome.rowId !== card.id) {
        void this.#askAfterSilence(card, reply)
        return
      }
      if (outcome.settled) this.#recordSettled(card.id, outcome.settled)
      const error = outcome.error
      if (!error) return
      this.#set({
        alert: { error, card },
        feedback: { rowId: card.id, errors: fieldErrors(error) },
      })
      if (isConflict(error)) this.#recordSettled(card.id, conflictSettlement(error))
    })
  }

  /**
   * Sends one reply for every selected card (a bulk decision); each row's
   * fate comes back on its own: settled cards keep their place, the others
   * are listed in the alert.
   */
  bulk(reply: Reply) {
    const rowIds = [...this.view.selected]
    if (rowIds.length === 0) return
    this.#set({
      submitting: BULK,
      alert: null,
      bulkNotice: null,
      feedback: { rowId: null, errors: {} },
    })
    const digests = Object.fromEntries(
      rowIds.map((id) => [id, this.#known.get(id)?.card.digest ?? ''])
    )
    const cards = rowIds.flatMap((id) => this.#known.get(id)?.card ?? [])
    this.#post(this.links.bulk, { rowIds, digests, ...reply }, cards, (outcome) => {
      const results = outcome?.bulk
      if (!results) {
        if (outcome?.error) this.#set({ alert: { error: outcome.error, card: null } })
        else for (const id of rowIds) void this.#askAfterSilence(this.#known.get(id)!.card)
        return
      }
      const refused: string[] = []
      for (const result of results) {
        if (result.settled) this.#recordSettled(result.rowId, result.settled)
        if (result.error && isConflict(result.error)) {
          this.#recordSettled(result.rowId, conflictSettlement(result.error))
        }
        if (result.error) {
          const card = this.#known.get(result.rowId)?.card
          const what = card ? cardTitle(card) : result.rowId
          const why = isConflict(result.error)
            ? t('page.bulk.already_settled', {
                who: settledWords(conflictSettlement(result.error), this.#people),
              })
            : errorMessage(result.error)
          refused.push(`${what} — ${why}`)
        }
      }
      const done = results.length - refused.length
      this.#set({
        selected: new Set(),
        bulkNotice: t('page.bulk.settled', { done, total: results.length }),
        alert: refused.length
          ? {
              error: {
                status: 0,
                errors: [{ code: 'E_BULK', message: t('page.bulk.some_refused') }],
              },
              card: null,
              lines: refused,
            }
          : null,
      })
    })
  }

  select(rowId: string, selected: boolean) {
    const next = new Set(this.view.selected)
    if (selected) next.add(rowId)
    else next.delete(rowId)
    this.#set({ selected: next })
  }

  /** Selects every pending card, or none when all are */
  selectAll() {
    const ids = this.pendingCards().map((card) => card.id)
    const all = ids.length > 0 && ids.every((id) => this.view.selected.has(id))
    this.#set({ selected: new Set(all ? [] : ids) })
  }

  setPanel(rowId: string, open: boolean) {
    if (this.view.openPanels.has(rowId) === open) return
    const next = new Set(this.view.openPanels)
    if (open) next.add(rowId)
    else next.delete(rowId)
    this.#set({ openPanels: next })
  }

  setEditing(editing: boolean) {
    if (this.view.editing !== editing) this.#set({ editing })
  }

  dismissAlert() {
    this.#set({ alert: null })
  }
}
