/*
 * The history: rows settled (who answered what, through what and when) or
 * runs finished, newest first, filtered by agent, status, kind, who settled
 * and a range of days, a page at a time. The filters are a plain GET form,
 * so every view has its own URL.
 *
 * Published into the app by `node ace add adonis-agent-inbox` and yours to
 * change. Props come from the package's RunsController (`history`).
 */

import { Head } from '@inertiajs/react'
import { useId } from 'react'
import type { HistoryFilters, People, RowCard, RunSummary } from 'adonis-agent-inbox/types'
import { PageRoot, InboxNav } from '../../agent_inbox/page_parts'
import {
  finishedRunLine,
  historyChoices,
  nextPageUrl,
  viewChanged,
} from '../../agent_inbox/history'
import {
  cardTitle,
  inboxLinks,
  outcomeLines,
  settledWords,
  shortId,
  statusWord,
  t,
  useWords,
  type PageWords,
} from '../../agent_inbox/words'
import '../../agent_inbox/inbox.css'
import '../../agent_inbox/controls.css'

type HistoryPageProps = {
  person: string
  filters: HistoryFilters
  agents: string[]
  /** The statuses and kinds the filters offer */
  statuses: string[]
  kinds: string[]
  rows: { card: RowCard; run: RunSummary | null }[]
  runs: RunSummary[]
  next: string | null
  people: People
  inboxUrl: string
} & PageWords

export default function AgentHistory(props: HistoryPageProps) {
  useWords(props)
  const { filters, people, rows, runs, next } = props
  const links = inboxLinks(props.inboxUrl)
  const id = useId()
  const choices = historyChoices(props)
  const empty = filters.view === 'rows' ? rows.length === 0 : runs.length === 0

  return (
    <PageRoot>
      <Head title={t('page.history.title')} />
      <header className="ai-header">
        <div>
          <h1>{t('page.history.title')}</h1>
          <p className="ai-muted">
            {t(filters.view === 'rows' ? 'page.history.rows_newest' : 'page.history.runs_newest')}
          </p>
        </div>
      </header>
      <InboxNav links={links} current="history" />

      <form
        className="ai-filters"
        method="get"
        action={links.history}
        aria-label={t('page.history.filters')}
      >
        {choices.map((choice) => (
          <div key={choice.name} className="ai-field">
            <label className="ai-prompt" htmlFor={`${id}-${choice.name}`}>
              {choice.label}
            </label>
            {choice.options ? (
              <select
                id={`${id}-${choice.name}`}
                name={choice.name}
                className="ai-input"
                defaultValue={choice.value}
                onChange={
                  choice.name === 'view' ? (event) => viewChanged(event.currentTarget) : undefined
                }
              >
                {choice.options.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={`${id}-${choice.name}`}
                name={choice.name}
                type="date"
                className="ai-input"
                defaultValue={choice.value}
              />
            )}
          </div>
        ))}
        <div className="ai-actions">
          <button type="submit" className="ai-button ai-primary">
            {t('page.history.show')}
          </button>
          <a className="ai-link" href={links.history}>
            {t('page.history.clear')}
          </a>
        </div>
      </form>

      {empty && (
        <section className="ai-empty" aria-labelledby={`${id}-empty`}>
          <h2 id={`${id}-empty`}>{t('page.history.empty_title')}</h2>
          <p className="ai-muted">{t('page.history.empty_text')}</p>
        </section>
      )}

      {filters.view === 'rows' && rows.length > 0 && (
        <ul className="ai-history" aria-label={t('page.history.rows_settled')}>
          {rows.map(({ card, run }) => (
            <li key={card.id} className="ai-card ai-card-settled" data-row-id={card.id}>
              <h2 className="ai-entry-title">
                {cardTitle(card)}
                <span className={`ai-chip ai-run-${card.status}`}>{statusWord(card.status)}</span>
              </h2>
              <p className="ai-meta ai-muted">
                {run ? (
                  <a className="ai-link" href={links.run(run.id)}>
                    {t('page.history.agent_run', { agent: run.agent, id: shortId(run.id) })}
                  </a>
                ) : (
                  card.toolName
                )}
                {card.settled && (
                  <span>
                    {' '}
                    · {t('page.history.by', { who: settledWords(card.settled, people) })}
                  </span>
                )}
              </p>
              {outcomeLines(card).map((line, index) => (
                <p key={index}>{line}</p>
              ))}
            </li>
          ))}
        </ul>
      )}

      {filters.view === 'runs' && runs.length > 0 && (
        <ul className="ai-history" aria-label={t('page.history.runs_finished')}>
          {runs.map((run) => (
            <li key={run.id} className="ai-card ai-card-settled" data-run-id={run.id}>
              <h2 className="ai-entry-title">
                <a className="ai-link" href={links.run(run.id)}>
                  {t('page.history.agent_run', { agent: run.agent, id: shortId(run.id) })}
                </a>
                <span className={`ai-chip ai-run-${run.status}`}>{statusWord(run.status)}</span>
              </h2>
              <p className="ai-meta ai-muted">{finishedRunLine(run, people)}</p>
            </li>
          ))}
        </ul>
      )}

      {next && (
        <p>
          <a className="ai-link" href={nextPageUrl(links.history, filters, next)}>
            {t('page.history.older')}
          </a>
        </p>
      )}
    </PageRoot>
  )
}
