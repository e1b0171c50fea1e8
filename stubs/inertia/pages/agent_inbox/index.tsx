/*
 * The agent inbox: every pending row the signed-in person may
 * settle, oldest first, grouped by run. Question cards (ask, intake) confirm
 * their pre-picked defaults or the person's changes, or skip; approval cards
 * approve, reject with a reason, or approve edited args.
 *
 * Published into the app by `node ace add adonis-agent-inbox` and yours to
 * change. Props come from the package's InboxController: `{ person, groups }`
 * (plus `pollInterval` in ms and `inboxUrl` when the app passes them). Replies
 * go to `POST <inbox>/rows/:id/reply`; on failure the controller flashes
 * `errors` (field → message) and `inbox` ({ error } or { settled }) and
 * redirects back. Form logic lives in ./form_state.ts, tested in the package.
 */

import { Head, router, usePage, usePoll } from '@inertiajs/react'
import {
  type KeyboardEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from 'react'
import type {
  DecisionReply,
  AnswersReply,
  Question,
  RowCard,
  RunGroup,
} from 'adonis-agent-inbox/types'
import {
  type AnswerState,
  type FormState,
  type InboxError,
  type SettledNote,
  alertText,
  answersReply,
  approveReply,
  argsText,
  chooseOther,
  decisionErrors,
  editReply,
  feedbackFrom,
  findHotkey,
  freeTextType,
  hasOptions,
  initialForm,
  inputTypeOf,
  isSingle,
  listGroups,
  pickOption,
  questionErrors,
  rejectReply,
  replyUrl,
  setTypedValue,
  shortId,
  skipReply,
  toDateInput,
  toDatetimeLocal,
  typeOther,
} from './form_state'
import './inbox.css'

type InboxPageProps = {
  /** The signed-in person, as the inbox's access hook identifies them */
  person: string
  groups: RunGroup[]
  /** How often (ms) to look for new and settled rows without Transmit; 0 turns it off */
  pollInterval?: number
  /** Where the inbox routes live, when the page is rendered elsewhere. Default: this page's URL */
  inboxUrl?: string
}

type Reply = AnswersReply | DecisionReply

const DEFAULT_POLL_INTERVAL = 3000

function formatTime(iso: string | null | undefined): string {
  if (!iso) return ''
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return iso
  const today = new Date().toDateString() === at.toDateString()
  return today
    ? at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })
}

function cardTitle(card: RowCard): string {
  if (card.kind === 'intake') return 'Before the agent starts'
  if (card.questionSet) {
    const count = card.questionSet.questions.length
    return count === 1 ? 'The agent asks' : `The agent asks ${count} questions`
  }
  return `Approve ${card.toolName}?`
}

/* ---------------------------------------------------------------------------
 * Transmit hook point
 *
 * With `@adonisjs/transmit-client` installed in the app (and the server
 * broadcasting on `agent_inbox/<person>`), the page subscribes and reloads
 * its rows on every message, and stops polling. Without it, nothing here
 * fails: the page polls. Two ways to find the client, neither of which
 * breaks a build when it is absent:
 *  1. `import.meta.glob` on the package's file: Vite bundles it when it
 *     exists and yields nothing when it does not;
 *  2. a dynamic import with a variable specifier, for setups resolving bare
 *     specifiers at runtime (an import map).
 * Apps that always have Transmit may replace `loadTransmit` with a plain
 * `import('@adonisjs/transmit-client')`.
 * ------------------------------------------------------------------------- */

type TransmitSubscription = {
  readonly isCreated: boolean
  create(): Promise<void>
  delete(): Promise<void>
  onMessage(handler: (message: unknown) => void): () => void
}
type TransmitClient = {
  subscription(channel: string): TransmitSubscription
  on(event: 'connected' | 'disconnected', callback: () => void): void
  close(): void
}
type TransmitModule = {
  Transmit: new (options: { baseUrl: string }) => TransmitClient
}

async function loadTransmit(): Promise<TransmitModule | null> {
  const bundled = import.meta.glob<TransmitModule>(
    '/node_modules/@adonisjs/transmit-client/build/index.js'
  )
  for (const load of Object.values(bundled)) {
    try {
      return await load()
    } catch {
      // fall through to the runtime import
    }
  }
  const specifier = '@adonisjs/transmit-client'
  try {
    return (await import(/* @vite-ignore */ specifier)) as TransmitModule
  } catch {
    return null
  }
}

/**
 * Subscribes to `channel` through Transmit when the app has it, calling
 * `onMessage` on every message and once more after a lost stream is back
 * (rows may have changed meanwhile). Returns whether the subscription is
 * live: false while the stream is down, so the page polls meanwhile.
 */
function useTransmit(channel: string | null, onMessage: () => void): boolean {
  const [live, setLive] = useState(false)
  const handler = useRef(onMessage)
  useEffect(() => {
    handler.current = onMessage
  })

  useEffect(() => {
    if (!channel || typeof window === 'undefined') return
    let stopped = false
    let teardown = () => {}
    void (async () => {
      try {
        const transmitModule = await loadTransmit()
        if (!transmitModule || stopped) return
        const transmit = new transmitModule.Transmit({ baseUrl: window.location.origin })
        teardown = () => transmit.close()
        // The stream first: while it is down (no Transmit routes: a 404) the
        // client would retry a subscription forever, every 100 ms
        const connected = await new Promise<boolean>((resolve) => {
          transmit.on('connected', () => resolve(true))
          transmit.on('disconnected', () => resolve(false))
        })
        if (!connected || stopped) return teardown()
        const subscription = transmit.subscription(channel)
        await subscription.create()
        // A refused subscription (signed out, not this person's channel) does not throw
        if (!subscription.isCreated || stopped) return teardown()
        const off = subscription.onMessage(() => handler.current())
        transmit.on('disconnected', () => setLive(false))
        transmit.on('connected', () => {
          setLive(true)
          handler.current()
        })
        teardown = () => {
          off()
          subscription.delete().catch(() => {})
          transmit.close()
        }
        // Rows created between the page's render and the subscription sent
        // no message here: look once, now that later ones will
        handler.current()
        setLive(true)
      } catch {
        // Transmit missing or unreachable: polling carries on
      }
    })()
    return () => {
      stopped = true
      teardown()
      setLive(false)
    }
  }, [channel])

  return live
}

/**
 * Keeps the rows fresh: Transmit messages when available, else a partial
 * reload of `groups` every `interval` ms. Both wait while `paused` (the
 * person is editing a card or a reply is on its way), so no reload lands in
 * the middle of their work.
 */
function useLiveUpdates(person: string, interval: number, paused: boolean) {
  const reload = useCallback(() => router.reload({ only: ['groups'] }), [])
  const missed = useRef(false)
  const pausedRef = useRef(paused)
  pausedRef.current = paused

  const live = useTransmit(`agent_inbox/${person}`, () => {
    if (pausedRef.current) missed.current = true
    else reload()
  })

  const poll = usePoll(
    interval > 0 ? interval : DEFAULT_POLL_INTERVAL,
    { only: ['groups'] },
    { autoStart: false, keepAlive: false, mode: 'rest' }
  )
  const { start, stop } = poll
  useEffect(() => {
    if (interval > 0 && !paused && !live) start()
    else stop()
  }, [interval, paused, live, start, stop])

  useEffect(() => {
    if (!paused && missed.current) {
      missed.current = false
      reload()
    }
  }, [paused, reload])

  if (live) return 'transmit'
  if (interval <= 0) return 'off'
  return paused ? 'paused' : 'polling'
}

/* ---------------------------------------------------------------------------
 * The page
 * ------------------------------------------------------------------------- */

type CardFeedback = { rowId: string | null; errors: Record<string, string[]> }

export default function AgentInbox(props: InboxPageProps) {
  const page = usePage<InboxPageProps>()
  const { person, groups } = props
  const interval = props.pollInterval ?? DEFAULT_POLL_INTERVAL
  const inboxUrl = props.inboxUrl ?? page.url

  const [submitting, setSubmitting] = useState<string | null>(null)
  const [editing, setEditing] = useState(false)
  const [openPanels, setOpenPanels] = useState<ReadonlySet<string>>(new Set())
  const [feedback, setFeedback] = useState<CardFeedback>({ rowId: null, errors: {} })
  const [alert, setAlert] = useState<InboxError | null>(null)
  const [notes, setNotes] = useState<SettledNote[]>([])
  const lastSubmitted = useRef<string | null>(null)

  /* Cards seen so far, so a settled row's card can still say what it was */
  const known = useRef(new Map<string, { card: RowCard; run: RunGroup['run'] }>())
  for (const group of groups) {
    for (const card of group.rows) known.current.set(card.id, { card, run: group.run })
  }

  const recordSettled = useCallback(
    (rowId: string, by: string | null, via: string | null, at: string | null) => {
      const seen = known.current.get(rowId)
      if (!seen) return
      setNotes((current) => {
        if (current.some((note) => note.card.id === rowId)) return current
        return [...current, { ...seen, by, via, at }].slice(-20)
      })
    },
    []
  )

  /*
   * Whatever the last response flashed: field errors for the card last
   * sent, the alert, and "settled" notes. Kept in state, since the next
   * partial reload no longer carries the flash.
   */
  const flash = (page as { flash?: unknown }).flash
  const {
    errors: propErrors,
    inbox: propInbox,
    flash: propFlash,
  } = page.props as Record<string, unknown>
  useEffect(() => {
    const { inbox, errors } = feedbackFrom({
      flash,
      props: { errors: propErrors, inbox: propInbox, flash: propFlash },
    })
    if (Object.keys(errors).length > 0) setFeedback({ rowId: lastSubmitted.current, errors })
    if (inbox?.error) {
      setAlert(inbox.error)
      if (inbox.error.status === 409 && lastSubmitted.current) {
        const error = inbox.error
        recordSettled(
          lastSubmitted.current,
          error.settledBy ?? null,
          error.settledVia ?? null,
          error.settledAt ?? null
        )
      }
    } else if (errors.reply) {
      setAlert({ status: 0, code: 'E_REPLY', message: errors.reply.join(' ') })
    }
    if (inbox?.settled) recordSettled(inbox.settled, person, 'web', new Date().toISOString())
  }, [flash, propErrors, propInbox, propFlash, person, recordSettled])

  const submit = useCallback(
    (card: RowCard, reply: Reply) => {
      lastSubmitted.current = card.id
      setSubmitting(card.id)
      setFeedback({ rowId: null, errors: {} })
      setAlert(null)
      router.post(replyUrl(inboxUrl, card.id), reply as Parameters<typeof router.post>[1], {
        preserveScroll: true,
        preserveState: true,
        onSuccess: (next) => {
          const nextProps = next.props as unknown as Partial<InboxPageProps>
          const stillPending = (nextProps.groups ?? []).some((group) =>
            group.rows.some((row) => row.id === card.id)
          )
          const { inbox, errors } = feedbackFrom({
            flash: (next as { flash?: unknown }).flash,
            props: next.props as Record<string, unknown>,
          })
          if (!stillPending && !inbox?.error && Object.keys(errors).length === 0) {
            recordSettled(card.id, person, 'web', new Date().toISOString())
          }
        },
        onFinish: () => setSubmitting(null),
      })
    },
    [inboxUrl, person, recordSettled]
  )

  const setPanel = useCallback((rowId: string, open: boolean) => {
    setOpenPanels((current) => {
      if (current.has(rowId) === open) return current
      const next = new Set(current)
      if (open) next.add(rowId)
      else next.delete(rowId)
      return next
    })
  }, [])

  const live = useLiveUpdates(
    person,
    interval,
    editing || openPanels.size > 0 || submitting !== null
  )

  const listed = useMemo(() => listGroups(groups, notes), [groups, notes])
  const latest = notes.at(-1)
  const pendingCount = groups.reduce((count, group) => count + group.rows.length, 0)

  /* Editing = the focus is in a field of a card */
  const trackFocus = (target: EventTarget | null) => {
    const element = target instanceof HTMLElement ? target : null
    setEditing(
      element !== null &&
        element.closest('[data-row-id]') !== null &&
        element.matches('input, textarea, select')
    )
  }

  return (
    <main
      className="agent-inbox"
      data-live={live}
      onFocus={(event) => trackFocus(event.target)}
      onBlur={(event) => trackFocus(event.relatedTarget)}
    >
      <Head title={pendingCount > 0 ? `Inbox (${pendingCount})` : 'Inbox'} />
      <header className="ai-header">
        <div>
          <h1>Inbox</h1>
          <p className="ai-muted">
            Signed in as <strong>{person}</strong> ·{' '}
            {pendingCount === 0
              ? 'nothing pending'
              : `${pendingCount} waiting for you, oldest first`}
          </p>
        </div>
        <p className="ai-live ai-muted" aria-live="polite">
          {live === 'transmit' && 'Live'}
          {live === 'polling' && 'Checking for new rows'}
          {live === 'paused' && 'Updates paused while you edit'}
          {live === 'off' && 'Reload the page to see new rows'}
        </p>
      </header>

      {alert && (
        <div className="ai-alert" role="alert" data-status={alert.status || undefined}>
          <p>
            <strong>
              {alert.status === 409 ? 'Already settled.' : 'That did not go through.'}
            </strong>{' '}
            {alertText(alert, formatTime)}
          </p>
          <button type="button" className="ai-link" onClick={() => setAlert(null)}>
            Dismiss
          </button>
        </div>
      )}

      <div className="ai-status" role="status">
        {latest && (
          <p>
            Settled: {cardTitle(latest.card)} — by {latest.by ?? 'someone'}
            {latest.via ? ` via ${latest.via}` : ''}
            {latest.at ? `, ${formatTime(latest.at)}` : ''}.
          </p>
        )}
      </div>

      {pendingCount === 0 && (
        <section className="ai-empty" aria-labelledby="ai-empty-title">
          <h2 id="ai-empty-title">Nothing waits for you</h2>
          <p className="ai-muted">When an agent needs an answer or an approval, it appears here.</p>
        </section>
      )}
      {listed.map(({ run, rows }) => (
        <section
          key={run.id}
          className="ai-run"
          aria-labelledby={`run-${run.id}-title`}
          data-run-id={run.id}
        >
          <h2 id={`run-${run.id}-title`} className="ai-run-title">
            <span className="ai-agent">{run.agent}</span>
            <span className="ai-muted ai-mono" title={run.id}>
              run {shortId(run.id)}
            </span>
            <span className={`ai-chip ai-run-status ai-run-${run.status}`}>{run.status}</span>
          </h2>
          {rows.map(({ card, settled }) => {
            const done = settled ?? settledFromCard(card, run)
            if (done) return <SettledCard key={card.id} card={card} note={done} />
            const errors = feedback.rowId === card.id ? feedback.errors : {}
            const busy = submitting === card.id
            /* One reply at a time: a second visit would cancel the first */
            const locked = submitting !== null
            return card.questionSet ? (
              <QuestionCard
                key={card.id}
                card={card}
                errors={errors}
                busy={busy}
                locked={locked}
                onReply={(reply) => submit(card, reply)}
              />
            ) : (
              <ApprovalCard
                key={card.id}
                card={card}
                errors={errors}
                busy={busy}
                locked={locked}
                onReply={(reply) => submit(card, reply)}
                onPanel={(open) => setPanel(card.id, open)}
              />
            )
          })}
        </section>
      ))}
    </main>
  )
}

function settledFromCard(card: RowCard, run: RunGroup['run']): SettledNote | null {
  if (card.status === 'pending' || !card.settled) return null
  return { card, run, by: card.settled.by, via: card.settled.via, at: card.settled.at }
}

/* ---------------------------------------------------------------------------
 * Cards
 * ------------------------------------------------------------------------- */

function CardMeta({ card }: { card: RowCard }) {
  return (
    <p className="ai-meta ai-muted">
      <span className="ai-chip">{card.kind}</span>
      {card.createdAt && <span>Asked {formatTime(card.createdAt)}</span>}
      {card.expiresAt && (
        <span>
          Expires {formatTime(card.expiresAt)}
          {card.onExpiry ? ` (then: ${expiryWords(card)})` : ''}
        </span>
      )}
    </p>
  )
}

function expiryWords(card: RowCard): string {
  if (card.onExpiry === 'cancel') return 'the run is cancelled'
  if (card.onExpiry === 'reject' || !card.questionSet) return 'rejected'
  return 'defaults are used'
}

function ErrorList({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null
  return (
    <ul className="ai-field-error" id={id}>
      {messages.map((message, index) => (
        <li key={index}>{message}</li>
      ))}
    </ul>
  )
}

/** Enter in a one-line field must not submit anything */
function stopEnter(event: KeyboardEvent<HTMLElement>) {
  if (event.key === 'Enter' && event.target instanceof HTMLInputElement) event.preventDefault()
}

function isTyping(target: EventTarget): boolean {
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true
  if (!(target instanceof HTMLInputElement)) return false
  return !['radio', 'checkbox', 'button', 'submit', 'reset'].includes(target.type)
}

function SettledCard({ card, note }: { card: RowCard; note: SettledNote }) {
  const titleId = useId()
  return (
    <section
      className="ai-card ai-card-settled"
      aria-labelledby={titleId}
      data-row-id={card.id}
      data-status="settled"
    >
      <h3 id={titleId}>{cardTitle(card)}</h3>
      <p className="ai-settled-by">
        <span aria-hidden="true">✓ </span>
        Settled by <strong>{note.by ?? 'someone'}</strong>
        {note.via ? ` via ${note.via}` : ''}
        {note.at ? ` at ${formatTime(note.at)}` : ''}
      </p>
    </section>
  )
}

type CardProps = {
  card: RowCard
  errors: Record<string, string[]>
  /** This card's reply is on its way */
  busy: boolean
  /** Some reply is on its way */
  locked: boolean
  onReply: (reply: Reply) => void
}

function QuestionCard({ card, errors, busy, locked, onReply }: CardProps) {
  const set = card.questionSet!
  const titleId = useId()
  const [form, setForm] = useState<FormState>(() => initialForm(set))
  const split = questionErrors(set, errors)
  const restId = `${titleId}-errors`

  const update = (id: string, change: (state: AnswerState) => AnswerState) =>
    setForm((current) => ({ ...current, [id]: change(current[id]) }))

  /* A hotkey picks its option while the focus is in the card but not in a text field */
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    stopEnter(event)
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
    if (isTyping(event.target) || busy) return
    const inQuestion =
      event.target instanceof HTMLElement
        ? event.target.closest('[data-question-id]')?.getAttribute('data-question-id')
        : undefined
    const hit = findHotkey(set.questions, event.key, inQuestion ?? undefined)
    if (!hit) return
    event.preventDefault()
    const question = set.questions.find((item) => item.id === hit.questionId)!
    update(question.id, (state) => pickOption(question, state, hit.value))
  }

  return (
    <section
      className="ai-card"
      aria-labelledby={titleId}
      aria-busy={busy}
      data-row-id={card.id}
      data-kind={card.kind}
      data-status="pending"
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <h3 id={titleId}>{cardTitle(card)}</h3>
      <CardMeta card={card} />
      {set.preamble && <p className="ai-preamble">{set.preamble}</p>}
      <form noValidate onSubmit={(event) => event.preventDefault()}>
        {set.questions.map((question) => (
          <QuestionField
            key={question.id}
            rowId={card.id}
            question={question}
            state={form[question.id]}
            errors={split.byQuestion[question.id] ?? []}
            disabled={busy}
            onChange={(change) => update(question.id, change)}
          />
        ))}
        <ErrorList id={restId} messages={split.rest} />
        <div className="ai-actions">
          <button
            type="button"
            className="ai-button ai-primary"
            disabled={busy || locked}
            aria-describedby={split.rest.length > 0 ? restId : undefined}
            onClick={() => onReply(answersReply(set, form))}
          >
            Confirm
          </button>
          <button
            type="button"
            className="ai-button"
            disabled={busy || locked}
            onClick={() => onReply(skipReply())}
          >
            Skip
          </button>
          <span className="ai-muted ai-hint">
            {busy ? 'Sending…' : 'Confirm sends what is shown; Skip goes on with every default.'}
          </span>
        </div>
      </form>
    </section>
  )
}

type FieldProps = {
  rowId: string
  question: Question
  state: AnswerState
  errors: string[]
  disabled: boolean
  onChange: (change: (state: AnswerState) => AnswerState) => void
}

function QuestionField({ rowId, question, state, errors, disabled, onChange }: FieldProps) {
  const base = useId()
  const promptId = `${base}-prompt`
  const descriptionId = `${base}-description`
  const errorId = `${base}-error`
  const describedBy =
    [question.description ? descriptionId : null, errors.length > 0 ? errorId : null]
      .filter(Boolean)
      .join(' ') || undefined
  const invalid = errors.length > 0 || undefined
  const type = inputTypeOf(question)
  const single = isSingle(question)
  const singleTyped = !hasOptions(question) && type !== 'boolean' && single
  const planReview = question.intent?.kind === 'plan-review'

  let control: ReactNode
  if (hasOptions(question)) {
    control = (
      <OptionList
        name={`${rowId}-${question.id}`}
        base={base}
        question={question}
        state={state}
        describedBy={describedBy}
        invalid={invalid}
        disabled={disabled}
        onChange={onChange}
      />
    )
  } else if (type === 'boolean') {
    control = (
      <div
        className="ai-options ai-inline"
        role="radiogroup"
        aria-labelledby={promptId}
        aria-describedby={describedBy}
        aria-required={question.input?.required || undefined}
      >
        {[
          ['true', 'Yes'],
          ['false', 'No'],
        ].map(([value, label]) => (
          <label key={value} className="ai-option">
            <input
              type="radio"
              name={`${rowId}-${question.id}`}
              value={value}
              checked={state.values[0] === value}
              disabled={disabled}
              aria-invalid={invalid}
              onChange={() => onChange((current) => ({ ...current, values: [value] }))}
            />
            <span className="ai-option-label">{label}</span>
          </label>
        ))}
      </div>
    )
  } else {
    control = (
      <div className="ai-typed-list">
        {state.values.map((value, index) => (
          <div key={index} className="ai-typed-row">
            <TypedInput
              id={index === 0 ? `${base}-input` : `${base}-input-${index}`}
              question={question}
              value={value}
              label={single ? undefined : `${question.prompt} (value ${index + 1})`}
              describedBy={describedBy}
              invalid={invalid}
              disabled={disabled}
              onChange={(next) => onChange((current) => setTypedValue(current, index, next))}
            />
            {!single && state.values.length > 1 && (
              <button
                type="button"
                className="ai-link"
                disabled={disabled}
                aria-label={`Remove value ${index + 1}`}
                onClick={() =>
                  onChange((current) => ({
                    ...current,
                    values: current.values.filter((_, at) => at !== index),
                  }))
                }
              >
                Remove
              </button>
            )}
          </div>
        ))}
        {!single && (
          <button
            type="button"
            className="ai-link"
            disabled={disabled}
            onClick={() => onChange((current) => ({ ...current, values: [...current.values, ''] }))}
          >
            Add another value
          </button>
        )}
      </div>
    )
  }

  return (
    <div
      className="ai-question"
      data-question-id={question.id}
      role={singleTyped ? undefined : 'group'}
      aria-labelledby={singleTyped ? undefined : promptId}
    >
      {question.header && <span className="ai-chip ai-header-chip">{question.header}</span>}
      {singleTyped ? (
        <label id={promptId} className="ai-prompt" htmlFor={`${base}-input`}>
          {question.prompt}
          {question.input?.required && <span className="ai-required"> (required)</span>}
        </label>
      ) : (
        <p id={promptId} className="ai-prompt">
          {question.prompt}
          {question.input?.required && <span className="ai-required"> (required)</span>}
        </p>
      )}
      {question.description && (
        <p id={descriptionId} className="ai-description ai-muted">
          {question.description}
        </p>
      )}
      {question.detail &&
        (planReview ? (
          <blockquote className="ai-plan" aria-label="The plan">
            <pre>{question.detail}</pre>
          </blockquote>
        ) : (
          <details className="ai-detail">
            <summary>Details</summary>
            <pre>{question.detail}</pre>
          </details>
        ))}
      {control}
      <ErrorList id={errorId} messages={errors} />
    </div>
  )
}

type OptionListProps = {
  name: string
  base: string
  question: Question
  state: AnswerState
  describedBy?: string
  invalid?: true
  disabled: boolean
  onChange: FieldProps['onChange']
}

function OptionList(props: OptionListProps) {
  const { name, base, question, state, describedBy, invalid, disabled, onChange } = props
  const single = isSingle(question)
  const inputType = single ? 'radio' : 'checkbox'
  const promptId = `${base}-prompt`
  const otherId = `${base}-other`
  /* Their own words are typed like the question's input (an email, a number…) */
  const otherQuestion: Question = {
    ...question,
    input: { ...question.input, type: freeTextType(question) },
  }

  return (
    <div
      className="ai-options"
      role={single ? 'radiogroup' : undefined}
      aria-labelledby={single ? promptId : undefined}
    >
      {question.options!.map((option, index) => {
        const labelId = `${base}-option-${index}`
        const descriptionId = `${labelId}-description`
        return (
          <label key={option.value} className="ai-option">
            <input
              type={inputType}
              name={name}
              value={option.value}
              checked={state.values.includes(option.value)}
              disabled={disabled}
              aria-labelledby={labelId}
              aria-describedby={
                [option.description ? descriptionId : null, describedBy]
                  .filter(Boolean)
                  .join(' ') || undefined
              }
              aria-invalid={invalid}
              aria-keyshortcuts={option.hotkey}
              onChange={() => onChange((current) => pickOption(question, current, option.value))}
            />
            <span className="ai-option-text">
              <span id={labelId} className="ai-option-label">
                {option.label}
              </span>
              {option.description && (
                <span id={descriptionId} className="ai-option-description ai-muted">
                  {option.description}
                </span>
              )}
            </span>
            {option.hotkey && (
              <kbd className="ai-kbd" title={`Press ${option.hotkey}`}>
                {option.hotkey}
              </kbd>
            )}
          </label>
        )
      })}
      {question.allowFreeText && (
        <div className="ai-option ai-other">
          <input
            type={inputType}
            name={name}
            id={`${otherId}-choice`}
            checked={state.otherChosen}
            disabled={disabled}
            onChange={(event) =>
              onChange((current) => chooseOther(question, current, event.target.checked))
            }
          />
          <label htmlFor={`${otherId}-choice`} className="ai-option-label">
            Other
          </label>
          <TypedInput
            id={otherId}
            question={otherQuestion}
            value={state.other}
            label="Other answer"
            placeholder={question.input?.placeholder ?? 'Your own answer'}
            describedBy={describedBy}
            invalid={invalid}
            disabled={disabled}
            onChange={(text) => onChange((current) => typeOther(question, current, text))}
          />
        </div>
      )}
    </div>
  )
}

type TypedInputProps = {
  id: string
  question: Question
  value: string
  /** An accessible name, when no <label> points at the input */
  label?: string
  placeholder?: string
  describedBy?: string
  invalid?: true
  disabled: boolean
  onChange: (value: string) => void
}

function TypedInput(props: TypedInputProps) {
  const { id, question, value, label, describedBy, invalid, disabled, onChange } = props
  const input = question.input
  const type = freeTextType(question)
  const min = input?.min
  const max = input?.max
  const shared = {
    'id': id,
    'className': 'ai-input',
    'aria-label': label,
    'aria-describedby': describedBy,
    'aria-invalid': invalid,
    'aria-required': input?.required || undefined,
    disabled,
    'onKeyDown': stopEnter,
  }

  switch (type) {
    case 'number':
    case 'integer':
      return (
        <input
          {...shared}
          type="number"
          inputMode={type === 'integer' ? 'numeric' : 'decimal'}
          step={type === 'integer' ? 1 : 'any'}
          min={typeof min === 'number' ? min : undefined}
          max={typeof max === 'number' ? max : undefined}
          placeholder={props.placeholder ?? input?.placeholder}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )
    case 'date':
      return (
        <input
          {...shared}
          type="date"
          min={typeof min === 'string' ? toDateInput(min) || undefined : undefined}
          max={typeof max === 'string' ? toDateInput(max) || undefined : undefined}
          value={toDateInput(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      )
    case 'datetime':
      return (
        <input
          {...shared}
          type="datetime-local"
          min={typeof min === 'string' ? toDatetimeLocal(min) || undefined : undefined}
          max={typeof max === 'string' ? toDatetimeLocal(max) || undefined : undefined}
          value={toDatetimeLocal(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      )
    default:
      return (
        <input
          {...shared}
          type={type === 'email' ? 'email' : type === 'url' ? 'url' : 'text'}
          inputMode={type === 'email' ? 'email' : type === 'url' ? 'url' : undefined}
          placeholder={props.placeholder ?? input?.placeholder}
          pattern={type === 'text' ? input?.pattern : undefined}
          minLength={typeof min === 'number' ? min : undefined}
          maxLength={typeof max === 'number' ? max : undefined}
          autoComplete="off"
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )
  }
}

type Panel = 'none' | 'reject' | 'edit'

function ApprovalCard({
  card,
  errors,
  busy,
  locked,
  onReply,
  onPanel,
}: CardProps & { onPanel: (open: boolean) => void }) {
  const titleId = useId()
  const base = useId()
  const args = card.action?.args
  const [panel, setPanel] = useState<Panel>('none')
  const [reason, setReason] = useState('')
  const [edited, setEdited] = useState(() => argsText(args))
  const [jsonError, setJsonError] = useState<string | null>(null)
  const split = decisionErrors(errors)
  const reasonRef = useRef<HTMLTextAreaElement>(null)
  const editRef = useRef<HTMLTextAreaElement>(null)
  const returnFocus = useRef<Panel>('none')
  const rejectButton = useRef<HTMLButtonElement>(null)
  const editButton = useRef<HTMLButtonElement>(null)

  /* Server errors about the args open the editor again, so they show beside it */
  const serverEditErrors = split.editedInput.length
  useEffect(() => {
    if (serverEditErrors > 0) setPanel('edit')
  }, [serverEditErrors])

  /* The page pauses live updates while a panel is open */
  const panelChanged = useRef(onPanel)
  useEffect(() => {
    panelChanged.current = onPanel
  })
  useEffect(() => () => panelChanged.current(false), [])

  /* Focus follows the panel: into its field when it opens, back to its button when it closes */
  useEffect(() => {
    panelChanged.current(panel !== 'none')
    if (panel === 'reject') reasonRef.current?.focus()
    if (panel === 'edit') editRef.current?.focus()
    if (panel === 'none') {
      if (returnFocus.current === 'reject') rejectButton.current?.focus()
      if (returnFocus.current === 'edit') editButton.current?.focus()
      returnFocus.current = 'none'
    }
  }, [panel])

  const close = () => {
    returnFocus.current = panel
    setPanel('none')
  }
  const sendEdit = () => {
    const result = editReply(edited)
    if ('error' in result) {
      setJsonError(result.error)
      editRef.current?.focus()
      return
    }
    setJsonError(null)
    onReply(result.reply)
  }

  const restId = `${base}-errors`
  const reasonErrorId = `${base}-reason-error`
  const editErrorId = `${base}-edit-error`
  const editMessages = [...(jsonError ? [jsonError] : []), ...split.editedInput]
  const rest = [...split.rest, ...(panel === 'reject' ? [] : split.reason)]

  return (
    <section
      className="ai-card"
      aria-labelledby={titleId}
      aria-busy={busy}
      data-row-id={card.id}
      data-kind={card.kind}
      data-status="pending"
    >
      <h3 id={titleId}>
        Approve <code className="ai-tool">{card.toolName}</code>?
      </h3>
      <CardMeta card={card} />
      {card.action?.summary && card.action.summary !== card.toolName && (
        <p className="ai-summary">{card.action.summary}</p>
      )}
      <div className="ai-args">
        <p className="ai-args-label ai-muted" id={`${base}-args`}>
          Arguments
        </p>
        <pre aria-labelledby={`${base}-args`}>{argsText(args)}</pre>
      </div>
      <ErrorList id={restId} messages={rest} />

      {panel === 'none' && (
        <div className="ai-actions">
          <button
            type="button"
            className="ai-button ai-primary"
            disabled={busy || locked}
            onClick={() => onReply(approveReply())}
          >
            Approve
          </button>
          <button
            type="button"
            className="ai-button ai-danger"
            ref={rejectButton}
            disabled={busy || locked}
            onClick={() => setPanel('reject')}
          >
            Reject
          </button>
          <button
            type="button"
            className="ai-button"
            ref={editButton}
            disabled={busy || locked}
            onClick={() => {
              setJsonError(null)
              setPanel('edit')
            }}
          >
            Edit
          </button>
          {busy && <span className="ai-muted ai-hint">Sending…</span>}
        </div>
      )}

      {panel === 'reject' && (
        <form className="ai-panel" noValidate onSubmit={(event) => event.preventDefault()}>
          <label htmlFor={`${base}-reason`} className="ai-prompt">
            Why not? <span className="ai-muted">(the agent reads this; optional)</span>
          </label>
          <textarea
            id={`${base}-reason`}
            ref={reasonRef}
            className="ai-input"
            rows={3}
            value={reason}
            disabled={busy}
            aria-invalid={split.reason.length > 0 || undefined}
            aria-describedby={split.reason.length > 0 ? reasonErrorId : undefined}
            onChange={(event) => setReason(event.target.value)}
          />
          <ErrorList id={reasonErrorId} messages={split.reason} />
          <div className="ai-actions">
            <button
              type="button"
              className="ai-button ai-danger"
              disabled={busy || locked}
              onClick={() => onReply(rejectReply(reason))}
            >
              Send rejection
            </button>
            <button type="button" className="ai-button" disabled={busy || locked} onClick={close}>
              Cancel
            </button>
            {busy && <span className="ai-muted ai-hint">Sending…</span>}
          </div>
        </form>
      )}

      {panel === 'edit' && (
        <form className="ai-panel" noValidate onSubmit={(event) => event.preventDefault()}>
          <label htmlFor={`${base}-edit`} className="ai-prompt">
            Arguments (JSON)
          </label>
          <textarea
            id={`${base}-edit`}
            ref={editRef}
            className="ai-input ai-mono"
            rows={Math.min(16, Math.max(4, edited.split('\n').length + 1))}
            spellCheck={false}
            value={edited}
            disabled={busy}
            aria-invalid={editMessages.length > 0 || undefined}
            aria-describedby={editMessages.length > 0 ? editErrorId : undefined}
            onChange={(event) => {
              setEdited(event.target.value)
              setJsonError(null)
            }}
          />
          <ErrorList id={editErrorId} messages={editMessages} />
          <div className="ai-actions">
            <button
              type="button"
              className="ai-button ai-primary"
              disabled={busy || locked}
              onClick={sendEdit}
            >
              Approve with changes
            </button>
            <button type="button" className="ai-button" disabled={busy || locked} onClick={close}>
              Cancel
            </button>
            {busy && <span className="ai-muted ai-hint">Sending…</span>}
          </div>
        </form>
      )}
    </section>
  )
}
