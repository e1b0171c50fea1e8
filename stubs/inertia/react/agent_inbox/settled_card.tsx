/*
 * A row that is no longer pending: its card says who settled it, through
 * what and when, and links to its run. The app receives this file in
 * inertia/agent_inbox/.
 */

import { useId } from 'react'
import type { People, RowCard } from 'adonis-agent-inbox/types'
import type { SettledNote } from './rows'
import { cardTitle, settledWords, t } from './words'

/**
 * A settled row's card: what it was, and who settled it, through what and when.
 */
export function SettledCard({
  card,
  note,
  people,
  runUrl,
}: {
  card: RowCard
  note: SettledNote
  people: People
  /** The run's page, when the row has a run */
  runUrl: string | null
}) {
  const titleId = useId()
  /* Who settled it sits in the words where the language puts it */
  const [beforeWho, afterWho] = t('page.card.settled_by', { who: '\0' }).split('\0')
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
        {beforeWho}
        <strong>{settledWords(note, people)}</strong>
        {afterWho}
        {runUrl && (
          <>
            {' · '}
            <a className="ai-link" href={runUrl}>
              {t('page.card.see_run')}
            </a>
          </>
        )}
      </p>
    </section>
  )
}
