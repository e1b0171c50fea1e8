/*
 * A run's page: its timeline, from the input to the end. What the agent
 * did at each model step (its text), each tool call with its args and what
 * it returned, each question set with the answers and who gave them,
 * through what and when, approvals with their edits and reasons, how each
 * action ran (started, committed, interrupted or run again, with its
 * idempotency key and its effects), expiries, and the final answer or the
 * error code. It follows the run while it
 * moves (Transmit, else polling until the run ends), and shows a streaming
 * agent's step as the model writes it, until the saved step replaces it.
 *
 * Published into the app by `node ace add adonis-agent-inbox` and yours to
 * change. Props come from the package's RunsController: `{ person, sight,
 * timeline, people, inboxUrl }`. How each entry reads is
 * inertia/agent_inbox/timeline.ts, shared with the Vue page.
 */

import { Head, router } from '@inertiajs/react'
import type { People, RunSight, RunTimeline } from 'adonis-agent-inbox/types'
import { useLiveStep, useLiveUpdates, DEFAULT_POLL_INTERVAL } from '../../agent_inbox/live_updates'
import { liveStepTitle } from '../../agent_inbox/live_step'
import { PageRoot, InboxNav, LiveNote } from '../../agent_inbox/page_parts'
import { runLine, showEntry, sightNote } from '../../agent_inbox/timeline'
import {
  formatTime,
  inboxLinks,
  isFinished,
  nameOf,
  shortId,
  statusWord,
  t,
  useWords,
  type PageWords,
} from '../../agent_inbox/words'
import '../../agent_inbox/inbox.css'
import '../../agent_inbox/controls.css'

type RunPageProps = {
  person: string
  /** `rows`: the person decides rows of the run without reading it, and sees those only */
  sight?: RunSight
  timeline: RunTimeline
  people: People
  inboxUrl: string
  /** How often (ms) to look for changes without Transmit while the run moves; 0: never */
  pollInterval?: number
} & PageWords

export default function AgentRunPage({
  person,
  sight,
  timeline,
  people,
  inboxUrl,
  pollInterval,
  ...language
}: RunPageProps) {
  useWords(language)
  const { run, entries } = timeline
  const links = inboxLinks(inboxUrl)
  const finished = isFinished(run.status)
  const partial = sightNote(sight, nameOf(people, run.ownerId))
  const reload = (done: () => void) =>
    router.reload({ only: ['timeline', 'people'], onFinish: done })
  const live = useLiveUpdates({
    person,
    interval: finished ? 0 : (pollInterval ?? DEFAULT_POLL_INTERVAL),
    paused: false,
    reload,
    wants: (message) => (message as { runId?: unknown })?.runId === run.id,
  })
  const step = useLiveStep(run.id, !finished && sight !== 'rows', reload)

  return (
    <PageRoot data-live={live} data-run-status={run.status}>
      <Head title={t('page.run.title', { id: shortId(run.id), agent: run.agent })} />
      <header className="ai-header">
        <div>
          <h1>
            {run.agent}{' '}
            <span className="ai-muted ai-mono">{t('page.run.short', { id: shortId(run.id) })}</span>
          </h1>
          <p className="ai-muted">
            <span className={`ai-chip ai-run-status ai-run-${run.status}`} role="status">
              {statusWord(run.status)}
            </span>{' '}
            {runLine(run, people)}
          </p>
        </div>
        {!finished && <LiveNote live={live} what="steps" />}
      </header>
      <InboxNav links={links} current="run" />
      {run.lastError && (
        <p className="ai-alert" role="note">
          {t('page.run.drive_failed', { error: run.lastError })}
        </p>
      )}
      {partial && (
        <p className="ai-muted" role="note">
          {partial}
        </p>
      )}
      <ol className="ai-timeline" aria-label={t('page.run.timeline_label')}>
        {entries.map((entry, index) => {
          const shown = showEntry(entry, { people, owner: run.ownerId, attempt: run.attempt })
          return (
            <li
              key={index}
              className="ai-entry"
              data-entry={entry.type}
              data-row-id={entry.type === 'call' ? entry.row?.id : undefined}
            >
              <h2 className="ai-entry-title">
                {shown.title}
                {shown.status && (
                  <span className={`ai-chip ai-run-${shown.status}`}>
                    {statusWord(shown.status)}
                  </span>
                )}
              </h2>
              {shown.at && <p className="ai-meta ai-muted">{formatTime(shown.at)}</p>}
              {shown.lines.map((line, at) => (
                <p key={at}>{line}</p>
              ))}
              {shown.facts.length > 0 && (
                <dl className="ai-facts" aria-label={t('page.run.facts_label')}>
                  {shown.facts.map((fact, at) => (
                    <div key={at}>
                      <dt>{fact.label}</dt>
                      <dd>{fact.value}</dd>
                    </div>
                  ))}
                </dl>
              )}
              {shown.blocks.map((block) => (
                <div key={block.label} className="ai-args">
                  <p className="ai-args-label ai-muted">{block.label}</p>
                  <pre tabIndex={0}>{block.text}</pre>
                </div>
              ))}
              {shown.pendingRowId && (
                <p>
                  <a className="ai-link" href={links.inbox}>
                    {t('page.run.answer_in_inbox')}
                  </a>
                </p>
              )}
            </li>
          )
        })}
        {step && !finished && (
          <li
            className="ai-entry ai-live-step"
            data-entry="live-step"
            data-committed={step.committed}
            aria-live="polite"
          >
            <h2 className="ai-entry-title">{liveStepTitle(step)}</h2>
            {step.text && <p className="ai-live-text">{step.text}</p>}
            {step.toolCalls.map((call) => (
              <div key={call.toolCallId} className="ai-args">
                <p className="ai-args-label ai-muted">
                  {t('page.run.calling', { tool: call.toolName })}
                </p>
                <pre tabIndex={0}>{call.input}</pre>
              </div>
            ))}
          </li>
        )}
      </ol>
    </PageRoot>
  )
}
