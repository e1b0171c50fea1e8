/*
 * The bar that settles the selected cards at once: select all, then
 * approve them (question sets on their defaults) or reject them with one
 * reason (question sets are skipped). The server settles each row on its
 * own and says what became of each. The app receives this file in
 * inertia/agent_inbox/.
 */

import { useEffect, useId, useRef, useState } from 'react'
import type { RowCard } from 'adonis-agent-inbox/types'
import { ActionRow, CardButton } from './card_parts'
import { rejectReply, type Reply } from './form_state'
import { bulkActions } from './rows'
import { t, tCount } from './words'

export function BulkBar({
  cards,
  total,
  busy,
  locked,
  onSelectAll,
  onPanel,
  onSend,
}: {
  /** The selected pending cards */
  cards: RowCard[]
  total: number
  busy: boolean
  locked: boolean
  onSelectAll: () => void
  onPanel: (open: boolean) => void
  onSend: (reply: Reply) => void
}) {
  const id = useId()
  const [rejecting, setRejecting] = useState(false)
  const [reason, setReason] = useState('')
  const reasonRef = useRef<HTMLTextAreaElement>(null)
  const actions = bulkActions(cards)
  const count = cards.length

  useEffect(() => {
    onPanel(rejecting)
    if (rejecting) reasonRef.current?.focus()
  }, [rejecting])
  useEffect(() => {
    if (count === 0) setRejecting(false)
  }, [count])

  return (
    <section className="ai-bulk" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="ai-visually-hidden">
        {t('page.card.bulk_decision')}
      </h2>
      <p className="ai-muted">
        {count === 0
          ? t('page.card.bulk_none')
          : t(count === 1 ? 'page.card.bulk_selected_one' : 'page.card.bulk_selected_many', {
              count,
              total,
            })}
      </p>
      <ActionRow busy={busy}>
        <CardButton disabled={locked} onClick={onSelectAll}>
          {t(count === total ? 'page.card.select_none' : 'page.card.select_all')}
        </CardButton>
        {count > 0 && !rejecting && (
          <>
            <CardButton
              tone="primary"
              disabled={locked}
              onClick={() => onSend(actions.accept.reply)}
            >
              {actions.accept.label}
            </CardButton>
            <CardButton
              tone="danger"
              disabled={locked}
              onClick={() =>
                actions.refuse.reason ? setRejecting(true) : onSend(actions.refuse.reply)
              }
            >
              {actions.refuse.label}
              {actions.refuse.reason ? '…' : ''}
            </CardButton>
          </>
        )}
      </ActionRow>
      {rejecting && count > 0 && (
        <form className="ai-panel" noValidate onSubmit={(event) => event.preventDefault()}>
          <label htmlFor={`${id}-reason`} className="ai-prompt">
            {t('page.card.why_not')}{' '}
            <span className="ai-muted">{t('page.card.every_agent_reads')}</span>
          </label>
          <textarea
            id={`${id}-reason`}
            ref={reasonRef}
            className="ai-input"
            rows={2}
            value={reason}
            disabled={busy}
            onChange={(event) => setReason(event.target.value)}
          />
          <ActionRow busy={busy}>
            <CardButton
              tone="danger"
              disabled={locked}
              onClick={() => {
                onSend(rejectReply(reason))
                setRejecting(false)
              }}
            >
              {tCount(count, 'page.card.send_rejections_one', 'page.card.send_rejections_many')}
            </CardButton>
            <CardButton disabled={locked} onClick={() => setRejecting(false)}>
              {t('page.card.cancel')}
            </CardButton>
          </ActionRow>
        </form>
      )}
    </section>
  )
}
