/*
 * The chat over real HTTP (docs/guides/chat.md, docs/design.md §12): a
 * message starts a conversation's turn, a streaming run whose reply and
 * rows the chat's JSON shows (the inbox's cards, digests included); a
 * follow-up is sent the earlier turns; one turn at a time (409 while the
 * head is live or when two messages race); a conversation is its owner's
 * (404 to anyone else); and the chat holds no approval of its own: a
 * forged, replayed or foreign settle through the reply route settles
 * nothing. Turns are conditional writes in the database: every database.
 */

import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import { defineConfig as defineTransmitConfig } from '@adonisjs/transmit'
import type { ApplicationService } from '@adonisjs/core/types'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { chatAgent } from '../helpers/chat.ts'
import { deployTools } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import type { UIMessage, UIMessageChunk } from 'ai'
import { registerChatRoutes } from '../../src/http/register_routes.ts'
import { AgentChatTransport } from '../../src/chat/client.ts'
import { openTransmitStream } from '../helpers/transmit.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { AgentConversation } from '../../src/persistence/models/agent_conversation.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { Agents } from '../../src/runtime/agents.ts'

const person = (name: string) => ({
  'x-person': name,
  'accept': 'application/json',
  'content-type': 'application/json',
})

/** How many turns a conversation started */
async function turnsOf(chatId: string) {
  const runs = await AgentRun.query().where('conversation_id', chatId)
  return runs.length
}

test.group(`Chat over HTTP | ${dbName()}`, (group) => {
  let app: ApplicationService
  let agents: Agents
  let baseUrl: string
  const tools = deployTools()
  // What each streamed step waits for before its first piece (a test keeps a turn live)
  let hold: Promise<void> = Promise.resolve()
  const streams: { close(): void }[] = []

  group.setup(async () => {
    const httpApp = await createHttpApp({
      providers: [() => import('@adonisjs/transmit/transmit_provider')],
      config: { transmit: defineTransmitConfig({ pingInterval: false, transport: null }) },
      agents: defineConfig({
        agents: [chatAgent(tools.deploy, () => hold)],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
      preload: async (booted) => {
        const transmit = await booted.container.make('transmit')
        transmit.registerRoutes()
        registerChatRoutes(await booted.container.make('router'), { agents: ['chatter'] })
      },
    })
    app = httpApp.app
    baseUrl = httpApp.baseUrl
    agents = await app.container.make('agents.runtime')
    return () => httpApp.terminate()
  })

  group.each.teardown(async () => {
    hold = Promise.resolve()
    await agents.idle()
    for (const stream of streams.splice(0)) stream.close()
  })

  async function send(chatId: string, who: string, body: Record<string, unknown>) {
    const response = await fetch(`${baseUrl}/chat/${chatId}/messages`, {
      method: 'POST',
      headers: person(who),
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  async function read(chatId: string, who: string) {
    const response = await fetch(`${baseUrl}/chat/${chatId}`, { headers: person(who) })
    return { status: response.status, body: (await response.json()) as any }
  }

  async function reply(rowId: string, who: string, body: Record<string, unknown>) {
    const response = await fetch(`${baseUrl}/inbox/rows/${rowId}/reply`, {
      method: 'POST',
      headers: person(who),
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  test('a message starts a streamed turn; a follow-up is sent the earlier turns', async ({
    assert,
  }) => {
    const chatId = randomUUID()
    const first = await send(chatId, 'ada', { text: 'Hello there', agent: 'chatter' })
    assert.equal(first.status, 201)
    assert.deepEqual(first.body, {
      conversationId: chatId,
      runId: first.body.runId,
      ownerId: 'ada',
    })
    await agents.idle()

    const second = await send(chatId, 'ada', { text: 'And again' })
    assert.equal(second.status, 201)
    await agents.idle()

    const { status, body: chat } = await read(chatId, 'ada')
    assert.equal(status, 200)
    assert.deepInclude(chat, { conversationId: chatId, agent: 'chatter', ownerId: 'ada' })
    assert.deepEqual(chat.head, { runId: second.body.runId, status: 'completed' })
    const said = chat.messages.map((message: any) => [
      message.id,
      message.role,
      message.parts.map((part: any) => part.text).join(''),
    ])
    // The second turn's model was sent the first turn, its reply included
    assert.deepEqual(said, [
      [`${first.body.runId}:user`, 'user', 'Hello there'],
      [`${first.body.runId}:assistant`, 'assistant', 'Turn 1. You said: Hello there'],
      [`${second.body.runId}:user`, 'user', 'And again'],
      [
        `${second.body.runId}:assistant`,
        'assistant',
        'Turn 2. You said: Hello there | And again. I said before: Turn 1. You said: Hello there',
      ],
    ])
    const runs = await AgentRun.query()
      .where('conversation_id', chatId)
      .orderBy('conversation_turn')
    assert.deepEqual(
      runs.map((run) => [run.conversationTurn, run.status, run.input]),
      [
        [1, 'completed', 'Hello there'],
        [2, 'completed', 'And again'],
      ]
    )
    const conversation = await AgentConversation.findOrFail(chatId)
    assert.deepInclude(conversation.$attributes, { headRunId: second.body.runId, turns: 2 })
  })

  test('a question inline: the inbox card with its default, settled through the reply route; one turn at a time', async ({
    assert,
  }) => {
    const chatId = randomUUID()
    const started = await send(chatId, 'ada', { text: 'ask me', agent: 'chatter' })
    await agents.idle()

    let { body: chat } = await read(chatId, 'ada')
    assert.deepEqual(chat.head, { runId: started.body.runId, status: 'waiting' })
    assert.lengthOf(chat.rows, 1)
    const [card] = chat.rows
    assert.deepInclude(card, { kind: 'ask', status: 'pending', toolCallId: 'q1' })
    assert.deepEqual(card.questionSet.questions[0].defaults, ['pg'])
    // The same card the inbox shows, digest included
    const inbox = await fetch(`${baseUrl}/inbox/rows/${card.id}`, { headers: person('ada') })
    const shown = (await inbox.json()) as any
    assert.deepEqual(card, shown.row)

    // While the turn waits on its row, a message starts nothing
    const early = await send(chatId, 'ada', { text: 'Hello?' })
    assert.equal(early.status, 409)
    assert.equal(early.body.errors[0].code, 'E_TURN_LIVE')
    assert.equal(early.body.errors[0].meta.headRunId, started.body.runId)
    assert.equal(await turnsOf(chatId), 1)

    // Confirming the default, as the inline card does
    const confirmed = await reply(card.id, 'ada', { answers: { db: ['pg'] }, digest: card.digest })
    assert.equal(confirmed.status, 200)
    await agents.idle()
    ;({ body: chat } = await read(chatId, 'ada'))
    assert.equal(chat.head.status, 'completed')
    assert.deepInclude(chat.rows[0], { status: 'answered' })
    assert.equal(chat.rows[0].settled.by, 'ada')
    const reply1 = chat.messages[1].parts
    assert.deepInclude(reply1[1], {
      type: 'dynamic-tool',
      toolCallId: 'q1',
      state: 'output-available',
    })
    assert.include(reply1.at(-1).text, 'Which database?\n   Answer: PostgreSQL')
    const thanks = await send(chatId, 'ada', { text: 'Thanks' })
    assert.equal(thanks.status, 201)
  })

  test('messages at once: one turn starts, the others get 409', async ({ assert }) => {
    const chatId = randomUUID()
    await send(chatId, 'ada', { text: 'Hello there', agent: 'chatter' })
    await agents.idle()
    // Each would wait on a question: the turn that starts stays live
    const sent = await Promise.all(
      Array.from({ length: 8 }, () => send(chatId, 'ada', { text: 'ask me' }))
    )
    const statuses = sent.map((one) => one.status).sort()
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409])
    await agents.idle()
    const runs = await AgentRun.query()
      .where('conversation_id', chatId)
      .orderBy('conversation_turn')
    assert.deepEqual(
      runs.map((run) => run.conversationTurn),
      [1, 2]
    )
    // The first message of a new conversation, twice at once: one conversation, one turn
    const fresh = randomUUID()
    const firsts = await Promise.all(
      Array.from({ length: 4 }, () => send(fresh, 'ada', { text: 'ask me', agent: 'chatter' }))
    )
    assert.deepEqual(firsts.map((one) => one.status).sort(), [201, 409, 409, 409])
    assert.equal(await turnsOf(fresh), 1)
  })

  test("another person's conversation is none: 404 to read or write, nothing started", async ({
    assert,
  }) => {
    const chatId = randomUUID()
    await send(chatId, 'ada', { text: 'Hello there', agent: 'chatter' })
    await agents.idle()
    const bob = await read(chatId, 'bob')
    assert.equal(bob.status, 404)
    assert.equal(bob.body.errors[0].code, 'E_NOT_FOUND')
    const written = await send(chatId, 'bob', { text: 'Let me in', agent: 'chatter' })
    assert.equal(written.status, 404)
    assert.equal(await turnsOf(chatId), 1)
    // A guest is refused at the door; an unknown conversation reads as none
    const guest = await fetch(`${baseUrl}/chat/${chatId}`, {
      headers: { accept: 'application/json' },
    })
    assert.equal(guest.status, 403)
    const unknown = await read(randomUUID(), 'ada')
    assert.equal(unknown.status, 404)
    const malformed = await read('not a chat id', 'ada')
    assert.equal(malformed.status, 404)
  })

  test('bad messages are 422 with field errors and start nothing', async ({ assert }) => {
    const chatId = randomUUID()
    const cases = [
      [{ text: '   ', agent: 'chatter' }, 'text'],
      [{ agent: 'chatter' }, 'text'],
      [{ text: 'x'.repeat(20_001), agent: 'chatter' }, 'text'],
      [{ text: 'Hi', agent: 'payroll' }, 'agent'],
      [{ text: 'Hi', agent: ['chatter'] }, 'agent'],
      [{ text: 'a\u0000b', agent: 'chatter' }, 'text'],
      [{ text: '\ud800', agent: 'chatter' }, 'text'],
      [{ text: ['Hi'], agent: 'chatter' }, 'text'],
      [{ text: 'Hi', agent: 'chatter', approved: true }, 'approved'],
    ] as const
    for (const [body, field] of cases) {
      const sent = await send(chatId, 'ada', body)
      assert.equal(sent.status, 422, JSON.stringify(body).slice(0, 80))
      assert.equal(sent.body.errors[0].code, 'E_INVALID_MESSAGE')
      assert.equal(sent.body.errors[0].field, field)
    }
    assert.isNull(await AgentConversation.find(chatId))
  })

  test('the chat holds no approval: forged, replayed and foreign settles settle nothing', async ({
    assert,
  }) => {
    const chatId = randomUUID()
    const started = await send(chatId, 'ada', { text: 'deploy main', agent: 'chatter' })
    await agents.idle()
    const { body: chat } = await read(chatId, 'ada')
    const [card] = chat.rows
    assert.deepInclude(card, { kind: 'action', status: 'pending', toolCallId: 'd1' })

    // A message can carry no approval: a field it does not take is refused
    const smuggled = await send(chatId, 'ada', {
      text: 'approve it',
      approved: true,
      rowId: card.id,
      digest: card.digest,
    })
    assert.equal(smuggled.status, 422)
    assert.equal(smuggled.body.errors[0].field, 'approved')
    // A row the chat did not open, an old view digest, another person
    const unopened = await reply(randomUUID(), 'ada', { approved: true, digest: card.digest })
    assert.equal(unopened.status, 404)
    const stale = await reply(card.id, 'ada', { approved: true, digest: 'f'.repeat(64) })
    assert.equal(stale.status, 409)
    assert.equal(stale.body.errors[0].code, 'E_STALE_VIEW')
    const mallory = await reply(card.id, 'mallory', { approved: true, digest: card.digest })
    assert.equal(mallory.status, 403)
    const row = await ToolCall.findOrFail(card.id)
    assert.equal(row.status, 'pending')
    assert.deepEqual(tools.executions, [])

    // Approved once; the same reply replayed is a conflict, and the action ran once
    const approved = await reply(card.id, 'ada', { approved: true, digest: card.digest })
    assert.equal(approved.status, 200)
    const replayed = await reply(card.id, 'ada', { approved: true, digest: card.digest })
    assert.equal(replayed.status, 409)
    assert.equal(replayed.body.errors[0].code, 'E_ALREADY_SETTLED')
    await agents.idle()
    assert.deepEqual(tools.executions, [{ branch: 'main', force: false }])
    const run = await AgentRun.findOrFail(started.body.runId)
    assert.equal(run.status, 'completed')
  })

  test('the transport streams a turn from Transmit; a question ends it, and a reconnect after the settle streams the rest', async ({
    assert,
  }) => {
    const chatId = randomUUID()
    const live = await openTransmitStream(baseUrl, person('ada'))
    streams.push(live)
    const channels: string[] = []
    const subscribe = (channel: string, onMessage: (message: unknown) => void) => {
      channels.push(channel)
      const off = live.listen((message) => {
        if (message.channel === channel) onMessage(message.payload)
      })
      void live.subscribe(channel, person('ada')).then((status) => {
        assert.equal(status, 204)
        onMessage(null)
      })
      return () => void off()
    }
    const transport = new AgentChatTransport({
      chatId,
      chatUrl: `${baseUrl}/chat/${chatId}`,
      person: 'ada',
      agent: 'chatter',
      subscribe,
      pollInterval: 60_000,
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...(init?.headers as object), 'x-person': 'ada' } }),
    })
    const said = (text: string): UIMessage[] => [
      { id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] },
    ]
    const textOf = (chunks: UIMessageChunk[]) =>
      chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('')

    const first = await Array.fromAsync(
      await transport.sendMessages({ messages: said('Hello there'), abortSignal: undefined })
    )
    const kinds = [...new Set(first.map((chunk) => chunk.type))]
    assert.deepEqual(kinds, ['start', 'text-start', 'text-delta', 'text-end', 'finish'])
    // The first piece at once, the rest batched: in pieces, before the step commits
    assert.isAtLeast(first.filter((chunk) => chunk.type === 'text-delta').length, 2)
    assert.equal(textOf(first), 'Turn 1. You said: Hello there')
    await agents.idle()
    // Finished: nothing to reconnect to
    assert.isNull(await transport.reconnectToStream({}))

    // A question: the stream ends while the turn waits on its row
    const asked = await Array.fromAsync(
      await transport.sendMessages({ messages: said('ask me'), abortSignal: undefined })
    )
    assert.equal(textOf(asked), 'One question first.')
    assert.equal(asked.at(-1)?.type, 'finish')
    await agents.idle()
    assert.isNull(await transport.reconnectToStream({}))

    // Answered in the inbox: the page reconnects, and the rest of the turn streams
    const { body: chat } = await read(chatId, 'ada')
    const row = chat.rows.find((card: any) => card.status === 'pending')
    // The rest of the turn waits until the page has reconnected
    let release = () => {}
    hold = new Promise<void>((resolve) => (release = resolve))
    const answered = await reply(row.id, 'ada', { answers: { db: ['mysql'] }, digest: row.digest })
    assert.equal(answered.status, 200)
    const resumed = await transport.reconnectToStream({})
    assert.isNotNull(resumed)
    release()
    const rest = await Array.fromAsync(resumed!)
    assert.include(textOf(rest), 'Noted: The person answered your questions.')
    assert.equal(rest.at(-1)?.type, 'finish')
    // One subscription, the chat's own channel, subscribed before the first message
    assert.deepEqual(channels, [`agent_inbox/chats/ada/${chatId}`])
    transport.close()
  })

  test("a chat's channel is its person's own", async ({ assert }) => {
    const chatId = randomUUID()
    const bob = await openTransmitStream(baseUrl, person('bob'))
    streams.push(bob)
    assert.equal(await bob.subscribe(`agent_inbox/chats/ada/${chatId}`), 400)
    assert.equal(await bob.subscribe(`agent_inbox/chats/bob/${chatId}`), 204)
  })
})
