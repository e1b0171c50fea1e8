/*
 * A chat with an agent: the person's messages and the agent's replies,
 * streamed as the agent writes them (the AI SDK's `useChat` with the
 * package's AgentChatTransport), and every question, approval or intake
 * form a turn opens shown inline with the inbox's own card, defaults
 * pre-picked. A card here is settled through the inbox's reply route, as
 * in the inbox, so whoever answers first wins, wherever; a card settled
 * elsewhere shows who settled it, and the turn goes on here.
 *
 * Published into the app by `node ace add adonis-agent-inbox` and yours to
 * change. Props come from the package's ChatController (ChatProps in
 * inertia/agent_inbox/chat_session.ts). Needs `@ai-sdk/react`; live text
 * needs `@adonisjs/transmit-client` (without it, each reply shows once
 * saved).
 */

import { Head, router } from '@inertiajs/react'
import { useChat } from '@ai-sdk/react'
import { AgentChatTransport } from 'adonis-agent-inbox/chat/client'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { ApprovalCard } from '../../agent_inbox/approval_card'
import type { CardProps } from '../../agent_inbox/card_parts'
import {
  chatItems,
  composerState,
  headIsLive,
  messageText,
  pendingGroups,
  xsrfHeaders,
  type ChatProps,
} from '../../agent_inbox/chat_session'
import { alertHeading, alertText } from '../../agent_inbox/feedback'
import { InboxSession } from '../../agent_inbox/inbox_session'
import { isEditing } from '../../agent_inbox/keyboard'
import { subscribe } from '../../agent_inbox/live_client'
import { DEFAULT_POLL_INTERVAL, useLiveUpdates } from '../../agent_inbox/live_updates'
import { InboxNav, LiveNote, PageRoot } from '../../agent_inbox/page_parts'
import { QuestionCard } from '../../agent_inbox/question_card'
import { settledFromCard } from '../../agent_inbox/rows'
import { SettledCard } from '../../agent_inbox/settled_card'
import { formatTime, nameOf, t, useWords } from '../../agent_inbox/words'
import '../../agent_inbox/inbox.css'
import '../../agent_inbox/controls.css'

export default function AgentChat(props: ChatProps) {
  useWords(props)
  const { person, chat, chatId } = props
  const [session] = useState(() => new InboxSession(router, (next) => setView(next)))
  const [view, setView] = useState(session.view)
  session.sync({
    person,
    groups: pendingGroups(chat),
    people: props.people,
    inboxUrl: props.inboxUrl,
    feedback: props.feedback,
  })
  const people = session.people
  const [transport] = useState(
    () =>
      new AgentChatTransport({
        chatId,
        chatUrl: props.chatUrl,
        person,
        agent: props.agent,
        subscribe: (channel, onMessage) => subscribe(channel, onMessage, () => {}),
        headers: () => xsrfHeaders(),
      })
  )
  useEffect(() => () => transport.close(), [transport])
  const { messages, setMessages, sendMessage, resumeStream, status, error } = useChat({
    id: chatId,
    messages: chat?.messages ?? [],
    transport,
  })
  const streaming = status === 'submitted' || status === 'streaming'

  /* What the server has replaces what was streamed, once nothing streams */
  const reload = (done: () => void = () => {}) =>
    router.reload({ only: ['chat', 'people', 'feedback'], onFinish: done })
  const wasStreaming = useRef(streaming)
  useEffect(() => {
    if (wasStreaming.current && !streaming) reload()
    wasStreaming.current = streaming
  }, [streaming])
  useEffect(() => {
    if (streaming) return
    if (chat) setMessages(chat.messages)
    // A live head (a reload mid-turn, a row settled elsewhere): follow it
    if (headIsLive(chat)) void resumeStream()
  }, [chat, streaming])

  const live = useLiveUpdates({
    person,
    interval: props.pollInterval ?? DEFAULT_POLL_INTERVAL,
    paused: session.paused || streaming,
    reload,
  })

  const [text, setText] = useState('')
  const composer = composerState(chat, streaming)
  const send = (event: FormEvent) => {
    event.preventDefault()
    const message = text.trim()
    if (!message || !composer.open) return
    setText('')
    void sendMessage({ text: message })
  }

  const cardProps = (card: CardProps['card']): CardProps => ({
    card,
    errors: view.feedback.rowId === card.id ? view.feedback.errors : {},
    busy: view.submitting === card.id,
    locked: view.submitting !== null,
    selected: false,
    onSelect: () => {},
    onReply: (reply) => session.reply(card, reply),
  })

  return (
    <PageRoot
      className="ai-chat"
      data-live={live}
      data-status={status}
      onFocus={(event) => session.setEditing(isEditing(event.target))}
      onBlur={(event) => session.setEditing(isEditing(event.relatedTarget))}
    >
      <Head title={t('page.chat.title', { agent: props.agent })} />
      <header className="ai-header">
        <div>
          <h1>{t('page.chat.title', { agent: props.agent })}</h1>
          <p className="ai-muted">
            {t('page.inbox.signed_in_as')} <strong>{nameOf(people, person)}</strong>
          </p>
        </div>
        <LiveNote live={live} what="replies" />
      </header>
      <InboxNav links={session.links} current="inbox" />

      {view.alert && (
        <div id="ai-alert" className="ai-alert" role="alert" tabIndex={-1}>
          <p>
            <strong>{alertHeading(view.alert.error)}</strong>{' '}
            {alertText(view.alert.error, { person, card: view.alert.card, formatTime, people })}
          </p>
          <button type="button" className="ai-link" onClick={() => session.dismissAlert()}>
            {t('page.inbox.dismiss')}
          </button>
        </div>
      )}
      {error && (
        <div className="ai-alert" role="alert" data-chat-error>
          <p>{error.message}</p>
        </div>
      )}

      <ol className="ai-chat-log" aria-label={t('page.chat.conversation')}>
        {chatItems(messages, chat?.rows ?? []).map((item) =>
          item.kind === 'message' ? (
            <li
              key={item.message.id}
              className={`ai-chat-message ai-chat-${item.message.role}`}
              data-role={item.message.role}
            >
              <p className="ai-chat-author ai-muted">
                {item.message.role === 'user' ? nameOf(people, person) : props.agent}
              </p>
              <p className="ai-chat-text">{messageText(item.message)}</p>
            </li>
          ) : (
            <li key={`cards-${item.runId}`} className="ai-chat-cards">
              {item.cards.map((card) => {
                const done = settledFromCard(card, null)
                if (done) {
                  return (
                    <SettledCard
                      key={card.id}
                      card={card}
                      note={done}
                      people={people}
                      runUrl={card.runId ? session.links.run(card.runId) : null}
                    />
                  )
                }
                if (card.questionSet) return <QuestionCard key={card.id} {...cardProps(card)} />
                return (
                  <ApprovalCard
                    key={card.id}
                    {...cardProps(card)}
                    person={person}
                    people={people}
                    onPanel={(open) => session.setPanel(card.id, open)}
                  />
                )
              })}
            </li>
          )
        )}
      </ol>

      <form className="ai-chat-composer" onSubmit={send}>
        <label htmlFor="ai-chat-input">{t('page.chat.message')}</label>
        <textarea
          id="ai-chat-input"
          value={text}
          rows={3}
          onChange={(event) => setText(event.target.value)}
          disabled={!composer.open}
        />
        {composer.note && <p className="ai-muted">{composer.note}</p>}
        <button type="submit" className="ai-button" disabled={!composer.open || !text.trim()}>
          {t('page.chat.send')}
        </button>
      </form>
    </PageRoot>
  )
}
