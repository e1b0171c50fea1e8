/*
 * The card of a row whose run's agent the app no longer defines (removed
 * or renamed since the row was asked, ./changes.ts): its run cannot go on,
 * so whatever the row asks, the card only says so and offers Close, which
 * ends the run and closes its rows (the server answers E_UNKNOWN_AGENT
 * once it has). The app receives this file in inertia/agent_inbox/.
 */

import { useId } from 'react'
import { type CardProps, ActionRow, CardButton, CardFrame, ErrorList } from './card_parts'
import { decisionErrors } from './feedback'
import { ChangedNote } from './changed_note'
import { closeReply } from './changes'
import { cardTitle, t } from './words'

export function RemovedAgentCard({
  card,
  errors,
  busy,
  locked,
  selected,
  onSelect,
  onReply,
}: CardProps) {
  const titleId = useId()
  const base = useId()
  const split = decisionErrors(errors)

  return (
    <CardFrame
      card={card}
      titleId={titleId}
      title={cardTitle(card)}
      busy={busy}
      selected={selected}
      onSelect={onSelect}
    >
      <ChangedNote card={card} />
      <ErrorList id={`${base}-errors`} messages={[...split.rest, ...split.reason]} />
      <ActionRow busy={busy}>
        <CardButton
          tone="danger"
          disabled={busy || locked}
          onClick={() => onReply(closeReply(card))}
        >
          {t('page.card.close')}
        </CardButton>
      </ActionRow>
    </CardFrame>
  )
}
