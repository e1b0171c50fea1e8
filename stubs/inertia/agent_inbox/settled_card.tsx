/*
 * A row that is no longer pending: its card says who settled it, through
 * what and when. The app receives this file in inertia/agent_inbox/.
 */

import { useId } from 'react'
import type { RowCard, RunGroup } from 'adonis-agent-inbox/types'
import { cardTitle, formatTime } from './card_parts'
import type { SettledNote } from './rows'

/**
 * The note a settled card the server sent carries, or null for a pending one.
 */
export function settledFromCard(card: RowCard, run: RunGroup['run']): SettledNote | null {
  if (card.status === 'pending' || !card.settled) return null
  return { card, run, by: card.settled.by, via: card.settled.via, at: card.settled.at }
}

/**
 * A settled row's card: what it was, and who settled it, through what and when.
 */
export function SettledCard({ card, note }: { card: RowCard; note: SettledNote }) {
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
