/*
 * The agent inbox: every pending row the signed-in person may
 * settle, oldest first, grouped by run. Question cards (ask, intake) confirm
 * their pre-picked defaults or the person's changes, or skip; approval cards
 * approve, reject with a reason, or approve edited args.
 *
 * Published into the app by `node ace add adonis-agent-inbox` and yours to
 * change. Props come from the package's InboxController: `{ person, groups,
 * feedback }` (plus `pollInterval` in ms and `inboxUrl` when the app passes
 * them). Replies go to `POST <inbox>/rows/:id/reply`, which redirects back;
 * the controller then passes what became of the reply as `feedback` (how the
 * row was settled, or the error: field errors, or who settled it first), so
 * the page needs nothing of the app's Inertia middleware, and it claims a
 * settlement only when the server reports one. This file is the page alone: its cards, hooks, state and
 * styles live in inertia/agent_inbox/ (outside inertia/pages/, where every
 * file is a page), and the logic without React there is tested in the package.
 */

import { Head, router, usePage } from '@inertiajs/react'
import { useCallback, useMemo, useRef, useState } from 'react'
import type { ReplyFeedback, RowCard, RunGroup } from 'adonis-agent-inbox/types'
import { ApprovalCard } from '../../agent_inbox/approval_card'
import { type CardProps, cardTitle, formatTime, type Reply } from '../../agent_inbox/card_parts'
import {
  alertText,
  askRow,
  conflictSettlement,
  fieldErrors,
  type InboxError,
  NO_WORD,
  readFeedback,
  type Settlement,
} from '../../agent_inbox/feedback'
import { DEFAULT_POLL_INTERVAL, useLiveUpdates } from '../../agent_inbox/live_updates'
import { QuestionCard } from '../../agent_inbox/question_card'
import {
  groupKey,
  listGroups,
  replyUrl,
  rowUrl,
  shortId,
  type SettledNote,
} from '../../agent_inbox/rows'
import { SettledCard, settledFromCard } from '../../agent_inbox/settled_card'
import '../../agent_inbox/inbox.css'
import '../../agent_inbox/controls.css'

type InboxPageProps = {
  /** The signed-in person, as the inbox's access hook identifies them */
  person: string
  groups: RunGroup[]
  /** How often (ms) to look for new and settled rows without Transmit; 0 turns it off */
  pollInterval?: number
  /** Where the inbox routes live, when the page is rendered elsewhere. Default: this page's URL */
  inboxUrl?: string
  /** What became of the reply this page last sent, as the server recorded it */
  feedback?: ReplyFeedback | null
}

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
  const [alert, setAlert] = useState<{ error: InboxError; card: RowCard | null } | null>(null)
  const [notes, setNotes] = useState<SettledNote[]>([])

  /* Cards seen so far, so a settled row's card can still say what it was */
  const known = useRef(new Map<string, { card: RowCard; run: RunGroup['run'] }>())
  for (const group of groups) {
    for (const card of group.rows) known.current.set(card.id, { card, run: group.run })
  }

  const recordSettled = useCallback((rowId: string, settled: Settlement) => {
    const seen = known.current.get(rowId)
    if (!seen) return
    setNotes((current) => {
      if (current.some((note) => note.card.id === rowId)) return current
      return [...current, { ...seen, ...settled }].slice(-20)
    })
  }, [])

  /*
   * The reply's outcome is read from the page the redirect lands on: its
   * `feedback` prop. Without one for this row (another request of the
   * session took the flash) the page asks the row what the server recorded,
   * and claims nothing it did not hear from the server.
   */
  const askAfterSilence = useCallback(
    async (card: RowCard) => {
      const settled = await askRow(rowUrl(inboxUrl, card.id))
      if (settled) recordSettled(card.id, settled)
      else if (settled === null) setAlert({ error: NO_WORD, card })
    },
    [inboxUrl, recordSettled]
  )

  const submit = useCallback(
    (card: RowCard, reply: Reply) => {
      setSubmitting(card.id)
      setFeedback({ rowId: null, errors: {} })
      setAlert(null)
      router.post(replyUrl(inboxUrl, card.id), reply as Parameters<typeof router.post>[1], {
        preserveScroll: true,
        preserveState: true,
        onSuccess: (next) => {
          const outcome = readFeedback((next.props as { feedback?: unknown }).feedback)
          if (!outcome || outcome.rowId !== card.id) {
            void askAfterSilence(card)
            return
          }
          if (outcome.settled) recordSettled(card.id, outcome.settled)
          const error = outcome.error
          if (!error) return
          setAlert({ error, card })
          setFeedback({ rowId: card.id, errors: fieldErrors(error) })
          if (error.status === 409) recordSettled(card.id, conflictSettlement(error))
        },
        onFinish: () => setSubmitting(null),
      })
    },
    [inboxUrl, recordSettled, askAfterSilence]
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
        <div className="ai-alert" role="alert" data-status={alert.error.status || undefined}>
          <p>
            <strong>
              {alert.error.status === 409 ? 'Already settled.' : 'That did not go through.'}
            </strong>{' '}
            {alertText(alert.error, { person, card: alert.card, formatTime })}
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

      {listed.map(({ run, rows }) => {
        const key = groupKey(run, rows[0]?.card.id ?? '')
        return (
          <section
            key={key}
            className="ai-run"
            aria-labelledby={`group-${key}-title`}
            data-run-id={run?.id}
          >
            {run ? (
              <h2 id={`group-${key}-title`} className="ai-run-title">
                <span className="ai-agent">{run.agent}</span>
                <span className="ai-muted ai-mono" title={run.id}>
                  run {shortId(run.id)}
                </span>
                <span className={`ai-chip ai-run-status ai-run-${run.status}`}>{run.status}</span>
              </h2>
            ) : (
              /* A wait opened outside any agent run, e.g. an MCP server's question */
              <h2 id={`group-${key}-title`} className="ai-run-title">
                <span className="ai-agent">{rows[0]?.card.toolName}</span>
              </h2>
            )}
            {rows.map(({ card, settled }) => {
              const done = settled ?? settledFromCard(card, run)
              if (done) return <SettledCard key={card.id} card={card} note={done} />
              const cardProps: CardProps = {
                card,
                errors: feedback.rowId === card.id ? feedback.errors : {},
                busy: submitting === card.id,
                /* One reply at a time: a second visit would cancel the first */
                locked: submitting !== null,
                onReply: (reply) => submit(card, reply),
              }
              return card.questionSet ? (
                <QuestionCard key={card.id} {...cardProps} />
              ) : (
                <ApprovalCard
                  key={card.id}
                  {...cardProps}
                  onPanel={(open) => setPanel(card.id, open)}
                />
              )
            })}
          </section>
        )
      })}
      {/* Below the rows just settled, which keep their place until the page reloads */}
      {pendingCount === 0 && (
        <section className="ai-empty" aria-labelledby="ai-empty-title">
          <h2 id="ai-empty-title">Nothing waits for you</h2>
          <p className="ai-muted">When an agent needs an answer or an approval, it appears here.</p>
        </section>
      )}
    </main>
  )
}
