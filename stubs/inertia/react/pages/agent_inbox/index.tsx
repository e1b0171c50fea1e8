/*
 * The agent inbox: every pending row the signed-in person may settle,
 * oldest first, grouped by run. Question cards (ask, intake) confirm their
 * pre-picked defaults or the person's changes, or skip; approval cards
 * approve, reject with a reason, or approve edited args (a form from the
 * tool's schema, or JSON). Cards selected together are settled by one bulk
 * decision. Each run links to its page, where its timeline shows what
 * happened after an answer.
 *
 * Published into the app by `node ace add adonis-agent-inbox` and yours to
 * change. Props come from the package's InboxController (see InboxProps in
 * inertia/agent_inbox/inbox_session.ts). Replies go to `POST
 * <inbox>/rows/:id/reply` (bulk ones to `POST <inbox>/bulk`), which
 * redirect back; the controller then passes what became of the reply as
 * `feedback`, so the page needs nothing of the app's Inertia middleware, and
 * it claims a settlement only when the server reports one. This file is the
 * page alone: its cards, hooks, state and styles live in
 * inertia/agent_inbox/ (outside inertia/pages/, where every file is a
 * page); the logic without React there is shared with the Vue page and
 * tested in the package.
 */

import { Head, router } from '@inertiajs/react'
import { useEffect, useState } from 'react'
import { ApprovalCard } from '../../agent_inbox/approval_card'
import { RemovedAgentCard } from '../../agent_inbox/removed_agent_card'
import { BulkBar } from '../../agent_inbox/bulk_bar'
import type { CardProps } from '../../agent_inbox/card_parts'
import { alertHeading, alertText } from '../../agent_inbox/feedback'
import { InboxSession, BULK, type InboxProps } from '../../agent_inbox/inbox_session'
import { isEditing } from '../../agent_inbox/keyboard'
import { LinkCard } from '../../agent_inbox/link_card'
import { DEFAULT_POLL_INTERVAL, useLiveUpdates } from '../../agent_inbox/live_updates'
import { PageRoot, InboxNav, LiveNote } from '../../agent_inbox/page_parts'
import { GrantList } from '../../agent_inbox/grant_list'
import { QuestionCard } from '../../agent_inbox/question_card'
import { groupKey, settledFromCard } from '../../agent_inbox/rows'
import { SettledCard } from '../../agent_inbox/settled_card'
import {
  cardTitle,
  formatTime,
  nameOf,
  settledWords,
  shortId,
  statusWord,
  t,
  useWords,
} from '../../agent_inbox/words'
import '../../agent_inbox/inbox.css'
import '../../agent_inbox/controls.css'

export default function AgentInbox(props: InboxProps) {
  useWords(props)
  const [session] = useState(() => new InboxSession(router, (next) => setView(next)))
  const [view, setView] = useState(session.view)
  session.sync(props)
  const { person, groups } = props
  const people = session.people
  const links = session.links

  const live = useLiveUpdates({
    person,
    interval: props.pollInterval ?? DEFAULT_POLL_INTERVAL,
    paused: session.paused,
    reload: (done) =>
      router.reload({
        only: ['groups', 'runs', 'people', 'grants'],
        headers: session.runsHeader(),
        onFinish: done,
      }),
    /* A run to watch (a row just settled here): ask about it at once */
    watching: session.watchedRuns.join(','),
    /* Someone else's run sends this person no message: ask about it on a timer too */
    alsoPoll: () => session.watchesOthersRuns,
  })

  /* A refused bulk decision or reply puts the alert in view */
  useEffect(() => {
    if (view.alert) document.getElementById('ai-alert')?.focus()
  }, [view.alert])

  const pendingCount = groups.reduce((count, group) => count + group.rows.length, 0)
  const latest = view.notes.at(-1)
  const selectedCards = session.pendingCards().filter((card) => view.selected.has(card.id))

  return (
    <PageRoot
      data-live={live}
      onFocus={(event) => session.setEditing(isEditing(event.target))}
      onBlur={(event) => session.setEditing(isEditing(event.relatedTarget))}
    >
      <Head
        title={
          pendingCount > 0
            ? t('page.inbox.title_count', { count: pendingCount })
            : t('page.inbox.title')
        }
      />
      <header className="ai-header">
        <div>
          <h1>{t('page.inbox.title')}</h1>
          <p className="ai-muted">
            {t('page.inbox.signed_in_as')} <strong>{nameOf(people, person)}</strong> ·{' '}
            {pendingCount === 0
              ? t('page.inbox.nothing_pending')
              : t('page.inbox.waiting', { count: pendingCount })}
          </p>
        </div>
        <LiveNote live={live} />
      </header>
      <InboxNav links={links} current="inbox" />

      {view.alert && (
        <div
          id="ai-alert"
          className="ai-alert"
          role="alert"
          tabIndex={-1}
          data-status={view.alert.error.status || undefined}
        >
          <div>
            <p>
              <strong>{alertHeading(view.alert.error)}</strong>{' '}
              {alertText(view.alert.error, { person, card: view.alert.card, formatTime, people })}
            </p>
            {view.alert.lines && (
              <ul>
                {view.alert.lines.map((line, index) => (
                  <li key={index}>{line}</li>
                ))}
              </ul>
            )}
          </div>
          <button type="button" className="ai-link" onClick={() => session.dismissAlert()}>
            {t('page.inbox.dismiss')}
          </button>
        </div>
      )}

      <div className="ai-status" role="status">
        {view.bulkNotice && <p>{view.bulkNotice}</p>}
        {latest && (
          <p>
            {t('page.inbox.settled_note', {
              title: cardTitle(latest.card),
              who: settledWords(latest, people),
            })}
          </p>
        )}
      </div>

      {pendingCount > 1 && (
        <BulkBar
          cards={selectedCards}
          total={pendingCount}
          busy={view.submitting === BULK}
          locked={view.submitting !== null}
          onSelectAll={() => session.selectAll()}
          onPanel={(open) => session.setPanel(BULK, open)}
          onSend={(reply) => session.bulk(reply)}
        />
      )}

      {session.listed().map(({ run: listedRun, rows }) => {
        const run = session.runNow(listedRun)
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
                <a className="ai-muted ai-mono ai-link" href={links.run(run.id)} title={run.id}>
                  {t('page.run.short', { id: shortId(run.id) })}
                </a>
                <span className={`ai-chip ai-run-status ai-run-${run.status}`}>
                  {statusWord(run.status)}
                </span>
                {run.ownerId && run.ownerId !== person && (
                  <span className="ai-muted">
                    {t('page.inbox.for', { name: nameOf(people, run.ownerId) })}
                  </span>
                )}
              </h2>
            ) : (
              /* A wait opened outside any agent run, e.g. an MCP server's question */
              <h2 id={`group-${key}-title`} className="ai-run-title">
                <span className="ai-agent">{rows[0]?.card.toolName}</span>
              </h2>
            )}
            {rows.map(({ card, settled }) => {
              const done = settled ?? settledFromCard(card, run)
              if (done) {
                return (
                  <SettledCard
                    key={card.id}
                    card={card}
                    note={done}
                    people={people}
                    runUrl={run ? links.run(run.id) : null}
                  />
                )
              }
              const cardProps: CardProps = {
                card,
                errors: view.feedback.rowId === card.id ? view.feedback.errors : {},
                busy: view.submitting === card.id,
                /* One reply at a time: a second visit would cancel the first */
                locked: view.submitting !== null,
                selected: view.selected.has(card.id),
                onSelect: (selected) => session.select(card.id, selected),
                onReply: (reply) => session.reply(card, reply),
              }
              if (card.changed?.kind === 'agent-removed') {
                return <RemovedAgentCard key={card.id} {...cardProps} />
              }
              if (card.questionSet) return <QuestionCard key={card.id} {...cardProps} />
              if (card.action?.link !== undefined) {
                return <LinkCard key={card.id} {...cardProps} />
              }
              return (
                <ApprovalCard
                  key={card.id}
                  {...cardProps}
                  person={person}
                  people={people}
                  onPanel={(open) => session.setPanel(card.id, open)}
                />
              )
            })}
          </section>
        )
      })}
      <GrantList grants={props.grants ?? []} inbox={links.inbox} />
      {/* Below the rows just settled, which keep their place until the page reloads */}
      {pendingCount === 0 && (
        <section className="ai-empty" aria-labelledby="ai-empty-title">
          <h2 id="ai-empty-title">{t('page.inbox.empty_title')}</h2>
          <p className="ai-muted">
            {t('page.inbox.empty_text')}{' '}
            <a className="ai-link" href={links.history}>
              {t('page.inbox.see_settled')}
            </a>
          </p>
        </section>
      )}
    </PageRoot>
  )
}
