/*
 * The chat page's logic without a framework, shared by the React and Vue
 * pages: where each row's card goes among the messages (after the reply of
 * the turn that opened it), whether a message may be sent now and why not,
 * and the CSRF header the message endpoint needs. The cards themselves and
 * their replies are the inbox's (inbox_session.ts): a row answered here is
 * settled through the inbox's one reply route. The app receives this file
 * in inertia/agent_inbox/.
 */

import type { UIMessage } from 'ai'
import { headStatus } from 'adonis-agent-inbox/chat/client'
import type { ChatState, People, ReplyFeedback, RowCard } from 'adonis-agent-inbox/types'
import { t, type PageWords } from './words'

/** The chat page's props, as the package's ChatController renders them */
export type ChatProps = {
  person: string
  chatId: string
  agent: string
  /** Null before the conversation's first message */
  chat: ChatState | null
  people?: People
  inboxUrl: string
  chatUrl: string
  feedback?: ReplyFeedback | null
  /** How often (ms) to look for changes without Transmit; 0 turns it off */
  pollInterval?: number
} & PageWords

/** What the page lists, in order: a message, or the cards a turn opened */
export type ChatItem =
  { kind: 'message'; message: UIMessage } | { kind: 'cards'; runId: string; cards: RowCard[] }

/**
 * The messages with each turn's cards after its reply (or after its
 * person's message while the reply has not started); cards of a turn no
 * message names come last. Pure.
 *
 * @example
 * chatItems([user, reply], [card]) // message, message, cards of reply's turn
 */
export function chatItems(messages: UIMessage[], cards: RowCard[]): ChatItem[] {
  const byRun = new Map<string, RowCard[]>()
  for (const card of cards) {
    const key = card.runId ?? ''
    byRun.set(key, [...(byRun.get(key) ?? []), card])
  }
  const runOf = (message: UIMessage) => message.id.split(':')[0]
  const items: ChatItem[] = []
  messages.forEach((message, index) => {
    items.push({ kind: 'message', message })
    const runId = runOf(message)
    const next = messages[index + 1]
    // A turn's cards go after its last message
    if (next && runOf(next) === runId) return
    const turnCards = byRun.get(runId)
    if (!turnCards) return
    items.push({ kind: 'cards', runId, cards: turnCards })
    byRun.delete(runId)
  })
  for (const [runId, rest] of byRun) items.push({ kind: 'cards', runId, cards: rest })
  return items
}

/** Whether the person may send a message now, and what the input box says when not */
export function composerState(
  chat: ChatState | null,
  streaming: boolean
): { open: boolean; note: string | null } {
  if (streaming) return { open: false, note: t('page.chat.answering') }
  const status = chat ? headStatus(chat) : null
  if (status === 'waiting') return { open: false, note: t('page.chat.answer_above') }
  if (status === 'queued' || status === 'running') {
    return { open: false, note: t('page.chat.answering') }
  }
  return { open: true, note: null }
}

/** Whether the conversation's head turn is live (a page reconnects to it) */
export function headIsLive(chat: ChatState | null): boolean {
  const status = chat ? headStatus(chat) : null
  return status === 'queued' || status === 'running'
}

/** The pending cards of a chat, as the inbox session takes them (one group) */
export function pendingGroups(chat: ChatState | null) {
  const rows = (chat?.rows ?? []).filter((card) => card.status === 'pending')
  return rows.length > 0 ? [{ run: null, rows }] : []
}

/** The text of a message's text parts, a line between two (each step's text is a part) */
export function messageText(message: UIMessage): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

/** Shield's CSRF header, from its XSRF-TOKEN cookie (none when the app has no Shield) */
export function xsrfHeaders(
  cookie = typeof document === 'undefined' ? '' : document.cookie
): Record<string, string> {
  const token = /(?:^|;\s*)XSRF-TOKEN=([^;]*)/.exec(cookie)?.[1]
  return token ? { 'x-xsrf-token': decodeURIComponent(token) } : {}
}
