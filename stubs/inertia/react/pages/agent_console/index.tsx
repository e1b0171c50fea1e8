/*
 * The operator's console: how many rows wait and for how long, how fast
 * people decide, which runs failed or are stuck, which rows nobody
 * answers, which deliveries fail; with Retry, Cancel and Reassign beside
 * them. Only people the app's console ability allows get here (the
 * package answers everyone else 403).
 *
 * Published into the app by `node ace add adonis-agent-inbox` and yours to
 * change. Props come from the package's ConsoleController (ConsoleProps in
 * adonis-agent-inbox/types). Charts are uPlot's (inertia/agent_console/
 * uplot_chart.ts), each with its numbers as a table for screen readers.
 * Actions post to `<console>/runs/:id/retry`, `…/cancel` and
 * `<console>/rows/:id/reassign`, which redirect back with what they did as
 * `feedback`. The logic without React lives in inertia/agent_console/,
 * shared with the Vue page and tested in the package.
 */

import { Head, router } from '@inertiajs/react'
import { useEffect, useMemo, useState } from 'react'
import type { ConsoleProps } from 'adonis-agent-inbox/types'
import { inboxLinks, nameOf, t, useWords, type PageWords } from '../../agent_inbox/words'
import { InboxNav, PageRoot } from '../../agent_inbox/page_parts'
import { dailyChart, decisionChart, pendingAgeChart } from '../../agent_console/chart_data'
import { ChartFigure } from '../../agent_console/chart_figure'
import { DeliveryList, OverdueList, RunListSection } from '../../agent_console/console_lists'
import {
  consoleAlertHeading,
  consoleAlertText,
  ConsoleSession,
} from '../../agent_console/console_session'
import { countTiles, dayWords, runLists, windowChoices } from '../../agent_console/console_words'
import '../../agent_inbox/inbox.css'
import '../../agent_inbox/controls.css'
import '../../agent_console/console.css'

export default function AgentConsole(props: ConsoleProps & PageWords) {
  useWords(props)
  const [session] = useState(() => new ConsoleSession(router, (next) => setView(next)))
  const [view, setView] = useState(session.view)
  session.sync(props)
  const { charts, lists, people, generatedAt: now } = props

  const specs = useMemo(
    () => [
      dailyChart(charts.daily),
      pendingAgeChart(charts.pendingByAge),
      decisionChart('agent', charts.decisions.byAgent, people),
      decisionChart('tool', charts.decisions.byTool, people),
      decisionChart('approver', charts.decisions.byApprover, people),
    ],
    [charts, people]
  )

  /* A refused action puts the alert in view */
  useEffect(() => {
    if (view.alert) document.getElementById('ai-alert')?.focus()
  }, [view.alert])

  const shared = { session, view, people, now }
  return (
    <PageRoot className="agent-console">
      <Head title={t('page.console.title')} />
      <header className="ai-header">
        <div>
          <h1>{t('page.console.title')}</h1>
          <p className="ai-muted">
            {t('page.inbox.signed_in_as')} <strong>{nameOf(people, props.person)}</strong> ·{' '}
            {t('page.console.everyone', { window: dayWords(props.window.days) })}
          </p>
        </div>
        <form className="ac-window" method="get" action={session.links.console}>
          <label htmlFor="ac-days">{t('page.console.window')}</label>
          <select id="ac-days" name="days" className="ai-input" defaultValue={props.window.days}>
            {windowChoices(props.window.days).map((days) => (
              <option key={days} value={days}>
                {dayWords(days)}
              </option>
            ))}
          </select>
          <button type="submit" className="ai-button">
            {t('page.history.show')}
          </button>
        </form>
      </header>
      <InboxNav
        links={inboxLinks(props.inboxUrl)}
        current="console"
        consoleUrl={session.links.console}
      />

      {view.alert && (
        <div
          id="ai-alert"
          className="ai-alert"
          role="alert"
          tabIndex={-1}
          data-status={view.alert.error.status || undefined}
        >
          <p>
            <strong>{consoleAlertHeading(view.alert.error)}</strong>{' '}
            {consoleAlertText(view.alert.error)}
          </p>
          <button type="button" className="ai-link" onClick={() => session.dismissAlert()}>
            {t('page.inbox.dismiss')}
          </button>
        </div>
      )}
      <div className="ai-status" role="status">
        {view.notice && <p>{view.notice}</p>}
      </div>

      <section aria-labelledby="ac-counts-title">
        <h2 id="ac-counts-title" className="ai-visually-hidden">
          {t('page.console.counts')}
        </h2>
        <dl className="ac-counts">
          {countTiles(props.counts, props.window.days).map((tile) => (
            <div key={tile.id} className="ac-count" data-count={tile.id} data-alarm={tile.alarm}>
              <dt>{tile.label}</dt>
              <dd>{tile.value}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section aria-labelledby="ac-charts-title">
        <h2 id="ac-charts-title">{t('page.console.charts')}</h2>
        <div className="ac-charts">
          {specs.map((spec) => (
            <ChartFigure key={spec.id} spec={spec} />
          ))}
        </div>
      </section>

      {runLists(lists).map((list) => (
        <RunListSection key={list.id} list={list} inboxUrl={props.inboxUrl} {...shared} />
      ))}
      <OverdueList rows={lists.overdueRows} {...shared} />
      <DeliveryList deliveries={lists.failingDeliveries} people={people} />
    </PageRoot>
  )
}
