/*
 * A link card: a row that asks the person to open a link (an MCP server's
 * URL-mode elicitation: sign in somewhere, pay, connect an account). The
 * URL is shown whole, so the person sees where it goes, and is a link only
 * when it is http or https (words.ts, `linkTarget`); it opens in a new tab
 * without handing that site this page. The row is settled when the site
 * reports completion, and the card then leaves the list; the person may
 * also say they are done, or decline. The app receives this file in
 * inertia/agent_inbox/.
 */

import { useId } from 'react'
import { type CardProps, ActionRow, CardButton, CardFrame, ErrorList } from './card_parts'
import { decisionErrors } from './feedback'
import { approveReply, rejectReply } from './form_state'
import { cardTitle, linkTarget, t } from './words'

export function LinkCard({ card, errors, busy, locked, selected, onSelect, onReply }: CardProps) {
  const titleId = useId()
  const base = useId()
  const target = linkTarget(card.action?.link ?? '')
  const split = decisionErrors(errors)
  const summary = card.action?.summary

  return (
    <CardFrame
      card={card}
      titleId={titleId}
      title={cardTitle(card)}
      busy={busy}
      selected={selected}
      onSelect={onSelect}
    >
      {summary && summary !== card.toolName && <p className="ai-summary">{summary}</p>}
      <p className="ai-link-target">
        {target.href ? (
          <>
            <a className="ai-link" href={target.href} target="_blank" rel="noopener noreferrer">
              {target.text}
            </a>{' '}
            <span className="ai-muted">{t('page.card.opens_new_tab')}</span>
          </>
        ) : (
          <>
            <code>{target.text}</code> <span className="ai-muted">{t('page.card.not_a_link')}</span>
          </>
        )}
      </p>
      <ErrorList id={`${base}-errors`} messages={[...split.rest, ...split.reason]} />
      <ActionRow busy={busy} hint={t('page.card.link_hint')}>
        <CardButton
          tone="primary"
          disabled={busy || locked}
          onClick={() => onReply(approveReply())}
        >
          {t('page.card.done')}
        </CardButton>
        <CardButton
          tone="danger"
          disabled={busy || locked}
          onClick={() => onReply(rejectReply(''))}
        >
          {t('page.card.decline')}
        </CardButton>
      </ActionRow>
    </CardFrame>
  )
}
