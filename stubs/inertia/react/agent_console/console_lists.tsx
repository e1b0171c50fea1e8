/*
 * The console's lists in React: runs (failed, stranded, waiting longest)
 * with Retry and Cancel (Cancel asks to be confirmed first), rows overdue
 * across all people with Reassign (a person picked from the row's
 * assignees), and outbox deliveries failing. What they say and do is
 * shared with the Vue page (./console_words.ts, ./console_session.ts).
 * The app receives this file in inertia/agent_console/.
 */

import type { ConsoleFailingDelivery, ConsoleOverdueRow, People } from 'adonis-agent-inbox/types'
import { inboxLinks, nameOf, shortId, statusWord, t } from '../agent_inbox/words'
import type { ConsoleSession, ConsoleView } from './console_session'
import { deliveryFacts, overdueFacts, runFacts, type RunList } from './console_words'

type Shared = { session: ConsoleSession; view: ConsoleView; people: People; now: string }

/** A list of runs, each with the actions its status allows */
export function RunListSection({
  list,
  inboxUrl,
  session,
  view,
  people,
  now,
}: Shared & { list: RunList; inboxUrl: string }) {
  const titleId = `ac-${list.id}-title`
  const links = inboxLinks(inboxUrl)
  return (
    <section className="ac-section" aria-labelledby={titleId} data-list={list.id}>
      <h2 id={titleId}>
        {list.title} <span className="ai-chip">{list.runs.length}</span>
      </h2>
      {list.runs.length === 0 && <p className="ai-muted">{list.empty}</p>}
      <ul className="ac-list">
        {list.runs.map((run) => {
          const busy = view.submitting?.endsWith(`:${run.id}`) ?? false
          return (
            <li key={run.id} className="ac-item" data-run-id={run.id} aria-busy={busy}>
              <div className="ac-item-text">
                <p className="ac-item-title">
                  <span>{run.agent}</span>
                  <a className="ai-link ai-mono" href={links.run(run.id)} title={run.id}>
                    {t('page.run.short', { id: shortId(run.id) })}
                  </a>
                  <span className={`ai-chip ai-run-${run.status}`}>{statusWord(run.status)}</span>
                </p>
                <p className="ai-meta ai-muted">
                  {runFacts(run, people, now).map((fact) => (
                    <span key={fact}>{fact}</span>
                  ))}
                </p>
                {run.error && <p className="ac-error">{run.error}</p>}
              </div>
              <div className="ai-actions">
                {run.actions.retry && (
                  <button
                    type="button"
                    className="ai-button ai-primary"
                    disabled={view.submitting !== null}
                    onClick={() => session.retry(run)}
                  >
                    {t(
                      session.busy('retry', run.id) ? 'page.console.retrying' : 'page.console.retry'
                    )}
                  </button>
                )}
                {run.actions.cancel && view.confirming !== run.id && (
                  <button
                    type="button"
                    className="ai-button"
                    disabled={view.submitting !== null}
                    onClick={() => session.confirmCancel(run.id)}
                  >
                    {t('page.console.cancel')}
                  </button>
                )}
              </div>
              {view.confirming === run.id && (
                <div
                  className="ac-confirm"
                  role="group"
                  aria-label={t('page.console.cancel_label', { id: shortId(run.id) })}
                >
                  <p>
                    {t('page.console.cancel_question', {
                      agent: run.agent,
                      name: nameOf(people, run.ownerId),
                    })}
                  </p>
                  <div className="ai-actions">
                    <button
                      type="button"
                      className="ai-button ai-danger"
                      disabled={view.submitting !== null}
                      onClick={() => session.cancel(run)}
                    >
                      {t(
                        session.busy('cancel', run.id)
                          ? 'page.console.cancelling'
                          : 'page.console.cancel_run'
                      )}
                    </button>
                    <button
                      type="button"
                      className="ai-button"
                      onClick={() => session.confirmCancel(null)}
                    >
                      {t('page.console.keep')}
                    </button>
                  </div>
                </div>
              )}
            </li>
          )
        })}
      </ul>
    </section>
  )
}

/** Rows overdue across all people, each with Reassign when it has assignees */
export function OverdueList({
  rows,
  session,
  view,
  people,
  now,
}: Shared & { rows: ConsoleOverdueRow[] }) {
  return (
    <section className="ac-section" aria-labelledby="ac-overdue-title" data-list="overdue">
      <h2 id="ac-overdue-title">
        {t('page.console.rows_overdue')} <span className="ai-chip">{rows.length}</span>
      </h2>
      {rows.length === 0 && <p className="ai-muted">{t('page.console.no_overdue')}</p>}
      <ul className="ac-list">
        {rows.map((row) => {
          const errors = view.errors.id === row.id ? (view.errors.fields.to ?? []) : []
          const selectId = `ac-to-${row.id}`
          return (
            <li
              key={row.id}
              className="ac-item"
              data-row-id={row.id}
              aria-busy={session.busy('reassign', row.id)}
            >
              <div className="ac-item-text">
                <p className="ac-item-title">
                  <span>{row.toolName}</span>
                  <span className="ai-muted ai-mono">
                    {t('page.console.row_short', { id: shortId(row.id) })}
                  </span>
                </p>
                <p className="ai-meta ai-muted">
                  {overdueFacts(row, people, now).map((fact) => (
                    <span key={fact}>{fact}</span>
                  ))}
                </p>
              </div>
              {row.assignees.length > 0 ? (
                <div className="ai-actions">
                  <label className="ai-visually-hidden" htmlFor={selectId}>
                    {t('page.console.reassign_label', { id: shortId(row.id) })}
                  </label>
                  <select
                    id={selectId}
                    className="ai-input"
                    value={session.choiceFor(row)}
                    aria-invalid={errors.length > 0 || undefined}
                    aria-describedby={errors.length > 0 ? `${selectId}-error` : undefined}
                    onChange={(event) => session.choose(row.id, event.currentTarget.value)}
                  >
                    {row.assignees.map((person) => (
                      <option key={person} value={person}>
                        {nameOf(people, person)}
                      </option>
                    ))}
                  </select>
                  <button
                    type="button"
                    className="ai-button ai-primary"
                    disabled={view.submitting !== null}
                    onClick={() => session.reassign(row)}
                  >
                    {t(
                      session.busy('reassign', row.id)
                        ? 'page.console.reassigning'
                        : 'page.console.reassign'
                    )}
                  </button>
                  {errors.length > 0 && (
                    <p id={`${selectId}-error`} className="ai-field-error">
                      {errors.join(' ')}
                    </p>
                  )}
                </div>
              ) : (
                <p className="ai-muted">{t('page.console.nobody_to_reassign')}</p>
              )}
            </li>
          )
        })}
      </ul>
    </section>
  )
}

/** Deliveries of the outboxes that failed and are not sent yet */
export function DeliveryList({
  deliveries,
  people,
}: {
  deliveries: ConsoleFailingDelivery[]
  people: People
}) {
  return (
    <section className="ac-section" aria-labelledby="ac-deliveries-title" data-list="deliveries">
      <h2 id="ac-deliveries-title">
        {t('page.console.deliveries_failing')} <span className="ai-chip">{deliveries.length}</span>
      </h2>
      {deliveries.length === 0 && <p className="ai-muted">{t('page.console.no_failing')}</p>}
      <ul className="ac-list">
        {deliveries.map((delivery) => (
          <li key={`${delivery.outbox}-${delivery.id}`} className="ac-item">
            <div className="ac-item-text">
              <p className="ac-item-title">
                <span>{delivery.outbox}</span>
                <span className="ai-muted ai-mono">
                  {t('page.console.row_short', { id: shortId(delivery.rowId) })}
                </span>
              </p>
              <p className="ai-meta ai-muted">
                {deliveryFacts(delivery, people).map((fact) => (
                  <span key={fact}>{fact}</span>
                ))}
              </p>
              {delivery.lastError && <p className="ac-error">{delivery.lastError}</p>}
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}
