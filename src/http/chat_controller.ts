/*
 * A chat with an agent over HTTP (docs/guides/chat.md): a conversation's
 * page and its message endpoint. A message starts the conversation's next
 * turn (`agents.converse`: one turn at a time, E_TURN_LIVE otherwise); what
 * the turn streams goes on its run's Transmit channel (./live.ts), and a
 * row it opens is a row like any other: shown inline here with the inbox's
 * card, listed in the inbox, settled through the one reply route with its
 * view digest. The page holds no approval of its own. A conversation is its
 * owner's: to anyone else there is none (404).
 */

import type { HttpContext } from '@adonisjs/core/http'
import { E_NOT_FOUND, InvalidMessageException } from '../errors.ts'
import type { AgentConversation } from '../persistence/models/agent_conversation.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { quorumVotes } from '../inbox/votes.ts'
import { changedRows } from '../runtime/changed_rows.ts'
import { ownConversation, readTurns } from '../runtime/conversations.ts'
import { chatMessages } from '../chat/chat_messages.ts'
import { rowCard, type RowCard } from './cards.ts'
import { PRINTABLE } from './request_text.ts'
import {
  feedbackPeople,
  inboxUrl,
  peopleOf,
  renderPage,
  replyFeedback,
  visitorOf,
  wantsPage,
  type InertiaContext,
  type Visitor,
} from './visitor.ts'
import type { RunStatus } from '../persistence/models/agent_run.ts'

/** The Inertia page the app receives as a stub */
export const CHAT_PAGE = 'agent_inbox/chat'

/** The longest message a person may send, in characters */
export const MAX_MESSAGE_LENGTH = 20_000

/** A chat's id, chosen by the client: a UUID or the AI SDK's generated ids */
const CHAT_ID = /^[A-Za-z0-9_-]{8,64}$/

export type ChatOptions = {
  /** The agents a chat may start, by name; a conversation keeps the agent it started with */
  agents: string[]
}

/** What a chat shows of its conversation (the page's `chat` prop, or the JSON answer) */
export type ChatState = {
  conversationId: string
  agent: string
  ownerId: string
  /** The turns as AI SDK UI messages: the person's message and the agent's reply, per turn */
  messages: ReturnType<typeof chatMessages>
  /** The latest turn's run; a live one is still answering (a new message gets 409) */
  head: { runId: string; status: RunStatus } | null
  /** The rows the turns opened for a person, oldest first: the inbox's cards */
  rows: RowCard[]
}

function chatId(ctx: HttpContext): string {
  const id = ctx.params.id
  if (typeof id !== 'string' || !CHAT_ID.test(id)) {
    throw new E_NOT_FOUND([`No conversation with that id: 8 to 64 letters, digits, - or _`])
  }
  return id
}

export default class ChatController {
  #options: ChatOptions

  constructor(options: ChatOptions) {
    this.#options = options
  }

  /**
   * The chat page of a conversation (a new one when there is none yet:
   * `?agent=` names the agent, else the first the routes allow), or its
   * state as JSON (404 when there is none).
   */
  async show(ctx: InertiaContext) {
    const visitor = await visitorOf(ctx)
    const id = chatId(ctx)
    const conversation = await ownConversation(id, visitor.person)
    const page = wantsPage(ctx)
    if (!conversation && !page) throw new E_NOT_FOUND([`No conversation ${id}`])
    const chat = conversation ? await chatState(visitor, conversation) : null
    if (!page) return chat
    const agent = chat?.agent ?? this.#agent(ctx.request.qs().agent ?? this.#options.agents[0])
    const feedback = replyFeedback(ctx)
    const router = await ctx.containerResolver.make('router')
    const urlFor = router.urlBuilder.urlFor as unknown as (name: string, params: unknown) => string
    return renderPage(ctx, CHAT_PAGE, {
      person: visitor.person,
      chatId: id,
      agent,
      chat,
      feedback,
      people: await peopleOf(ctx, visitor, [
        ...(chat?.rows ?? []).flatMap((card) => [
          card.settled?.by,
          ...(card.quorum?.votes ?? []).map((vote) => vote.personId),
        ]),
        ...feedbackPeople(feedback),
      ]),
      inboxUrl: await inboxUrl(ctx),
      chatUrl: urlFor('agent_chat.show', { id }),
    })
  }

  /**
   * A person's message (`{ text, agent? }`): starts the conversation's next
   * turn. 201 with the turn's run; 409 E_TURN_LIVE while the last turn is
   * live; 422 for an empty or too long text, or an agent the chat may not
   * start.
   */
  async send(ctx: HttpContext) {
    const visitor = await visitorOf(ctx)
    const id = chatId(ctx)
    const body = ctx.request.body()
    const text = messageText(body)
    const agent = this.#agent(body.agent ?? this.#options.agents[0])
    const run = await visitor.agents.converse(id, { agent, owner: visitor.person, text })
    ctx.response.status(201)
    return { conversationId: id, runId: run.id, ownerId: run.ownerId }
  }

  /** An agent a chat may start, or E_INVALID_MESSAGE */
  #agent(name: unknown): string {
    if (typeof name === 'string' && this.#options.agents.includes(name)) return name
    throw new InvalidMessageException([
      {
        field: 'agent',
        message: `must be one of the agents a chat may start: ${this.#options.agents.join(', ')}`,
        rule: 'agent',
        meta: { agents: this.#options.agents },
      },
    ])
  }
}

/** The fields a message may carry: nothing else, so no approval rides along */
const MESSAGE_FIELDS = new Set(['text', 'agent'])

/**
 * A message's text, trimmed: 1 to MAX_MESSAGE_LENGTH characters, well
 * formed, no control characters but tabs and line breaks (PostgreSQL
 * refuses a NUL in text). E_INVALID_MESSAGE naming the field otherwise,
 * and for a field a message does not take.
 */
function messageText(body: Record<string, unknown>): string {
  const unknown = Object.keys(body).find((field) => !MESSAGE_FIELDS.has(field))
  if (unknown !== undefined) {
    throw new InvalidMessageException([
      {
        field: unknown,
        message: 'is not a field of a chat message: send text (and agent)',
        rule: 'unknown',
      },
    ])
  }
  const text = typeof body.text === 'string' ? body.text.trim() : ''
  const printable = PRINTABLE.test(text.replace(/[\t\n\r]/g, '')) && text.isWellFormed()
  if (text === '' || text.length > MAX_MESSAGE_LENGTH || !printable) {
    throw new InvalidMessageException([
      {
        field: 'text',
        message: `must be a message of 1 to ${MAX_MESSAGE_LENGTH} characters, without control characters but tabs and line breaks`,
        rule: 'text',
        meta: { max: MAX_MESSAGE_LENGTH },
      },
    ])
  }
  return text
}

/**
 * A conversation as its page shows it: every turn's messages, its head, and
 * the rows its turns opened for a person, as the inbox's cards.
 */
async function chatState(visitor: Visitor, conversation: AgentConversation): Promise<ChatState> {
  const turns = await readTurns(conversation.id)
  const runs = new Map(turns.map(({ run }) => [run.id, run]))
  const rows =
    runs.size === 0
      ? []
      : await ToolCall.query()
          .whereIn('run_id', [...runs.keys()])
          .whereNot('status', 'auto')
          .orderBy('created_at', 'asc')
          .orderBy('sequence', 'asc')
  const votes = await quorumVotes(rows)
  const changes = await changedRows(visitor.agents, rows, runs)
  const head = turns.at(-1)?.run
  return {
    conversationId: conversation.id,
    agent: conversation.agent,
    ownerId: conversation.ownerId,
    messages: chatMessages(turns.map(({ turn }) => turn)),
    head: head ? { runId: head.id, status: head.status } : null,
    rows: rows.map((row) => {
      const run = row.runId ? runs.get(row.runId) : undefined
      const schema =
        row.kind === 'action' && row.status === 'pending'
          ? visitor.agents.inputSchema(run?.agent, row.toolName)
          : undefined
      return rowCard(row, schema, votes.get(row.id), changes.get(row.id))
    }),
  }
}
