/*
 * What the inbox's React cards share: the props every pending card takes,
 * a pending card's frame (section, heading, meta line, and the box that
 * selects it for a bulk decision), its buttons and their row, and the error
 * list. How things read (times, titles) and the keyboard rules live in
 * words.ts and keyboard.ts, shared with the Vue page. The app receives this
 * file in inertia/agent_inbox/.
 */

import { useId, type ComponentProps, type HTMLAttributes, type ReactNode } from 'react'
import type { RowCard } from 'adonis-agent-inbox/types'
import type { Reply } from './form_state'
import type { CardState } from './rows'
import { cardTitle, expiryWords, formatTime, kindWord, t } from './words'

/** What every pending card is given by the page */
export type CardProps = CardState & {
  onSelect: (selected: boolean) => void
  onReply: (reply: Reply) => void
}

/**
 * The line under a card's title: its kind, when it was asked, when it
 * expires and what happens then, and where its escalation ladder stands.
 */
export function CardMeta({ card }: { card: RowCard }) {
  return (
    <p className="ai-meta ai-muted">
      <span className="ai-chip">{kindWord(card.kind)}</span>
      {card.createdAt && <span>{t('page.card.asked', { time: formatTime(card.createdAt) })}</span>}
      {card.expiresAt && (
        <span>
          {t('page.card.expires', { time: formatTime(card.expiresAt) })}
          {card.onExpiry ? t('page.card.expires_then', { what: expiryWords(card) }) : ''}
        </span>
      )}
      {card.escalation && <span className="ai-escalation">{card.escalation}</span>}
    </p>
  )
}

/**
 * A pending card's frame: the section the page and its tests find a row by
 * (`data-row-id`, `data-kind`, `data-status`), its heading, the box that
 * selects it for a bulk decision, its meta line, then the card's own
 * content. `tabIndex` and `onKeyDown` let a card take keys, as a question
 * card does for its hotkeys.
 */
export function CardFrame({
  card,
  titleId,
  title,
  busy,
  selected,
  onSelect,
  children,
  ...keys
}: {
  card: RowCard
  titleId: string
  title: ReactNode
  busy: boolean
  selected: boolean
  onSelect: (selected: boolean) => void
  children: ReactNode
} & Pick<HTMLAttributes<HTMLElement>, 'tabIndex' | 'onKeyDown'>) {
  const selectId = useId()
  return (
    <section
      className="ai-card"
      aria-labelledby={titleId}
      aria-busy={busy}
      data-row-id={card.id}
      data-kind={card.kind}
      data-status="pending"
      {...keys}
    >
      <div className="ai-card-head">
        <h3 id={titleId}>{title}</h3>
        <label className="ai-select" htmlFor={selectId}>
          <input
            id={selectId}
            type="checkbox"
            checked={selected}
            disabled={busy}
            onChange={(event) => onSelect(event.target.checked)}
          />
          <span className="ai-visually-hidden">
            {t('page.card.select_for_bulk', { title: cardTitle(card) })}
          </span>
          <span aria-hidden="true">{t('page.card.select')}</span>
        </label>
      </div>
      <CardMeta card={card} />
      {children}
    </section>
  )
}

/**
 * A card's button: never a submit, since no form in a card sends anything
 * by itself; `tone` marks the one that approves or refuses.
 */
export function CardButton({
  tone,
  ...button
}: { tone?: 'primary' | 'danger' } & Omit<ComponentProps<'button'>, 'type' | 'className'>) {
  return (
    <button type="button" className={tone ? `ai-button ai-${tone}` : 'ai-button'} {...button} />
  )
}

/**
 * A card's row of buttons, with "Sending…" after them while its reply is
 * on its way, else the hint when there is one.
 */
export function ActionRow({
  busy,
  hint,
  children,
}: {
  busy: boolean
  hint?: string
  children: ReactNode
}) {
  return (
    <div className="ai-actions">
      {children}
      {(busy || hint) && (
        <span className="ai-muted ai-hint">{busy ? t('page.card.sending') : hint}</span>
      )}
    </div>
  )
}

/**
 * Error messages, under the field or card they belong to; nothing when there
 * are none.
 */
export function ErrorList({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null
  return (
    <ul className="ai-field-error" id={id}>
      {messages.map((message, index) => (
        <li key={index}>{message}</li>
      ))}
    </ul>
  )
}
