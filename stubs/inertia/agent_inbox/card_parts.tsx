/*
 * What the inbox's cards share: the reply a card sends, the props every
 * pending card takes, how times and titles read, a pending card's frame
 * (section, heading, meta line), its buttons and their row, the error list, and
 * the keyboard rules (Enter never submits; hotkeys wait while the person
 * types). The app receives this file in inertia/agent_inbox/.
 */

import type { ComponentProps, HTMLAttributes, KeyboardEvent, ReactNode } from 'react'
import type { AnswersReply, DecisionReply, RowCard } from 'adonis-agent-inbox/types'

/** What a card sends to the reply endpoint */
export type Reply = AnswersReply | DecisionReply

/** What every pending card is given by the page */
export type CardProps = {
  card: RowCard
  errors: Record<string, string[]>
  /** This card's reply is on its way */
  busy: boolean
  /** Some reply is on its way */
  locked: boolean
  onReply: (reply: Reply) => void
}

/**
 * A time as the person reads it: the time alone today, else date and time.
 */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return ''
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return iso
  const today = new Date().toDateString() === at.toDateString()
  return today
    ? at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * The heading of a card, by what it asks.
 */
export function cardTitle(card: RowCard): string {
  if (card.kind === 'intake') return 'Before the agent starts'
  if (card.questionSet) {
    const count = card.questionSet.questions.length
    return count === 1 ? 'The agent asks' : `The agent asks ${count} questions`
  }
  return `Approve ${card.toolName}?`
}

/**
 * The line under a card's title: its kind, when it was asked, and when it
 * expires and what happens then.
 */
export function CardMeta({ card }: { card: RowCard }) {
  return (
    <p className="ai-meta ai-muted">
      <span className="ai-chip">{card.kind}</span>
      {card.createdAt && <span>Asked {formatTime(card.createdAt)}</span>}
      {card.expiresAt && (
        <span>
          Expires {formatTime(card.expiresAt)}
          {card.onExpiry ? ` (then: ${expiryWords(card)})` : ''}
        </span>
      )}
    </p>
  )
}

/**
 * A pending card's frame: the section the page and its tests find a row by
 * (`data-row-id`, `data-kind`, `data-status`), its heading and its meta
 * line, then the card's own content. `tabIndex` and `onKeyDown` let a card
 * take keys, as a question card does for its hotkeys.
 */
export function CardFrame({
  card,
  titleId,
  title,
  busy,
  children,
  ...keys
}: {
  card: RowCard
  titleId: string
  title: ReactNode
  busy: boolean
  children: ReactNode
} & Pick<HTMLAttributes<HTMLElement>, 'tabIndex' | 'onKeyDown'>) {
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
      <h3 id={titleId}>{title}</h3>
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
      {(busy || hint) && <span className="ai-muted ai-hint">{busy ? 'Sending…' : hint}</span>}
    </div>
  )
}

function expiryWords(card: RowCard): string {
  if (card.onExpiry === 'cancel') return 'the run is cancelled'
  if (card.onExpiry === 'reject' || !card.questionSet) return 'rejected'
  return 'defaults are used'
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

/** Enter in a one-line field must not submit anything */
export function stopEnter(event: KeyboardEvent<HTMLElement>) {
  if (event.key === 'Enter' && event.target instanceof HTMLInputElement) event.preventDefault()
}

/** Whether the focus is in a field that takes text, where a key is a letter, not a hotkey */
export function isTyping(target: EventTarget): boolean {
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true
  if (!(target instanceof HTMLInputElement)) return false
  return !['radio', 'checkbox', 'button', 'submit', 'reset'].includes(target.type)
}
