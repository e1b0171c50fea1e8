/*
 * What changed since a card's row was asked, in words (./changes.ts);
 * nothing when nothing did. The app receives this file in
 * inertia/agent_inbox/.
 */

import type { RowCard } from 'adonis-agent-inbox/types'
import { changeView } from './changes'

export function ChangedNote({ card }: { card: RowCard }) {
  const change = changeView(card)
  if (!change) return null
  return (
    <div className="ai-changed" role="note" data-changed={change.kind}>
      <p>
        <strong>{change.title}</strong>
      </p>
      <p>{change.detail}</p>
    </div>
  )
}
