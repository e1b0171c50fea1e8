/*
 * The chat transport's pure part (src/chat/client.ts): a turn's live
 * messages as AI SDK UI message chunks. A step's text is one text part per
 * stream (a step called again after a crash streams under another), ended
 * by its commit or by the turn's end; the turn ends on a wait, a
 * completion, a failure (an error chunk first) or a cancel, once; other
 * runs' messages change nothing; a waiting head whose rows are all settled
 * is followed as running. The transport's I/O, on a fake channel and
 * fetch: the channel subscribed once and live before a message is posted,
 * what a turn says before its POST answers kept for its stream, a refused
 * message's error, and reconnecting only to a live head, which a channel
 * back after a loss reads again.
 */

import { test } from '@japa/runner'
import type { UIMessage, UIMessageChunk } from 'ai'
import {
  AgentChatTransport,
  ChatRequestError,
  headStatus,
  TurnChunks,
} from '../../src/chat/client.ts'

const delta = (runId: string, stream: string, text: string) => ({
  type: 'step:delta',
  runId,
  step: 1,
  stream,
  text,
  toolInputs: [],
})

test.group('Page | chat turn chunks', () => {
  test('deltas of a stream make one text part, ended by its commit; the run completing ends the turn', ({
    assert,
  }) => {
    const turn = new TurnChunks('r1')
    assert.deepEqual(turn.start(), [{ type: 'start', messageId: 'r1:assistant' }])
    assert.deepEqual(turn.read(delta('r1', 's1', 'Hel')), [
      { type: 'text-start', id: 's1' },
      { type: 'text-delta', id: 's1', delta: 'Hel' },
    ])
    assert.deepEqual(turn.read(delta('r1', 's1', 'lo')), [
      { type: 'text-delta', id: 's1', delta: 'lo' },
    ])
    // Another run's messages, and a message of no kind, change nothing
    assert.deepEqual(turn.read(delta('r2', 's1', 'x')), [])
    assert.deepEqual(turn.read({ type: 'row:created', runId: 'r1', rowId: 'w' }), [])
    assert.deepEqual(turn.read(null), [])
    assert.deepEqual(turn.read({ type: 'step:committed', runId: 'r1', step: 1, stream: 's1' }), [
      { type: 'text-end', id: 's1' },
    ])
    assert.deepEqual(turn.read({ type: 'run:status', runId: 'r1', status: 'running' }), [])
    assert.isFalse(turn.ended)
    assert.deepEqual(turn.read({ type: 'run:status', runId: 'r1', status: 'completed' }), [
      { type: 'finish' },
    ])
    assert.isTrue(turn.ended)
    // Once ended, nothing more
    assert.deepEqual(turn.read(delta('r1', 's2', 'late')), [])
    assert.deepEqual(turn.status('failed'), [])
  })

  test('a step called again streams a part of its own; a failure ends with an error, an open part closed first', ({
    assert,
  }) => {
    const turn = new TurnChunks('r1')
    turn.read(delta('r1', 'dead', 'Half'))
    assert.deepEqual(turn.read(delta('r1', 'again', 'Whole')), [
      { type: 'text-end', id: 'dead' },
      { type: 'text-start', id: 'again' },
      { type: 'text-delta', id: 'again', delta: 'Whole' },
    ])
    assert.deepEqual(turn.status('failed', 'The provider refused'), [
      { type: 'text-end', id: 'again' },
      { type: 'error', errorText: 'The provider refused' },
      { type: 'finish' },
    ])
  })

  test('a wait ends the turn; a waiting head with nothing pending is followed as running', ({
    assert,
  }) => {
    const turn = new TurnChunks('r1')
    assert.deepEqual(turn.read({ type: 'run:status', runId: 'r1', status: 'waiting' }), [
      { type: 'finish' },
    ])
    const head = { runId: 'r1', status: 'waiting' as const }
    assert.equal(headStatus({ head, rows: [{ runId: 'r1', status: 'pending' }] }), 'waiting')
    assert.equal(headStatus({ head, rows: [{ runId: 'r1', status: 'answered' }] }), 'running')
    // A pending row of an earlier turn is not this turn's wait
    assert.equal(headStatus({ head, rows: [{ runId: 'r0', status: 'pending' }] }), 'running')
    assert.equal(headStatus({ head: { runId: 'r1', status: 'completed' }, rows: [] }), 'completed')
    assert.isNull(headStatus({ head: null, rows: [] }))
  })
})

/**
 * A fake server for the transport's I/O: the chat channel's subscription
 * (live at once) and `fetch`, answering the chat's JSON with `state` and a
 * message with `posted` (after `beforeAnswer`, which can say things on the
 * channel before the POST answers, as a fast turn does). `log` keeps the
 * order of what the transport did.
 */
function fakeServer(
  state: () => { status: number; body: unknown },
  posted: { status: number; body: unknown }
) {
  const log: string[] = []
  const sent: { headers: Record<string, string>; body: unknown }[] = []
  let say: (message: unknown) => void = () => {}
  const server = {
    log,
    sent,
    say: (message: unknown) => say(message),
    beforeAnswer: () => {},
    subscribe: (channel: string, onMessage: (message: unknown) => void) => {
      log.push(`subscribe ${channel}`)
      say = onMessage
      queueMicrotask(() => onMessage(null))
      return () => log.push(`unsubscribe ${channel}`)
    },
    fetch: (async (url: string, init?: RequestInit) => {
      const answer = (out: { status: number; body: unknown }) =>
        new Response(JSON.stringify(out.body), { status: out.status })
      if (init?.method === 'POST') {
        log.push(`POST ${url}`)
        sent.push({
          headers: init.headers as Record<string, string>,
          body: JSON.parse(String(init.body)),
        })
        server.beforeAnswer()
        return answer(posted)
      }
      log.push(`GET ${url}`)
      return answer(state())
    }) as typeof fetch,
  }
  return server
}

/** Every chunk of a stream, to its end */
async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

const user = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
})

test.group('Page | chat transport', () => {
  test("a message is posted after the chat's channel is live; what the turn says before the POST answers is not lost", async ({
    assert,
  }) => {
    const head = { runId: 'r1', status: 'running' }
    const server = fakeServer(() => ({ status: 200, body: { head, rows: [] } }), {
      status: 201,
      body: { conversationId: 'c1', runId: 'r1', ownerId: 'user:1' },
    })
    // The turn streams its first piece before its POST answers
    server.beforeAnswer = () => server.say(delta('r1', 's1', 'Hi'))
    const transport = new AgentChatTransport({
      chatId: 'c1',
      chatUrl: '/chat/c1',
      person: 'user:1',
      agent: 'chatter',
      subscribe: server.subscribe,
      headers: () => ({ 'x-xsrf-token': 'token' }),
      fetch: server.fetch,
      pollInterval: 60_000,
    })
    const stream = await transport.sendMessages({
      messages: [user('m1', 'first'), user('m2', 'hello again')],
      abortSignal: undefined,
    })
    assert.deepEqual(server.log.slice(0, 2), [
      'subscribe agent_inbox/chats/user:1/c1',
      'POST /chat/c1/messages',
    ])
    assert.deepEqual(server.sent[0].body, { text: 'hello again', agent: 'chatter' })
    assert.equal(server.sent[0].headers['x-xsrf-token'], 'token')
    server.say(delta('r1', 's1', ' there'))
    server.say({ type: 'step:committed', runId: 'r1', step: 1, stream: 's1' })
    server.say({ type: 'run:status', runId: 'r1', status: 'waiting' })
    assert.deepEqual(await chunksOf(stream), [
      { type: 'start', messageId: 'r1:assistant' },
      { type: 'text-start', id: 's1' },
      { type: 'text-delta', id: 's1', delta: 'Hi' },
      { type: 'text-delta', id: 's1', delta: ' there' },
      { type: 'text-end', id: 's1' },
      { type: 'finish' },
    ])
    transport.close()
    assert.equal(server.log.at(-1), 'unsubscribe agent_inbox/chats/user:1/c1')
  })

  test('a refused message throws its status and the first error code', async ({ assert }) => {
    const server = fakeServer(() => ({ status: 200, body: { head: null, rows: [] } }), {
      status: 409,
      body: {
        errors: [{ code: 'E_TURN_LIVE', message: 'A turn is live', meta: { headRunId: 'r0' } }],
      },
    })
    const transport = new AgentChatTransport({
      chatId: 'c1',
      chatUrl: '/chat/c1',
      person: 'user:1',
      subscribe: server.subscribe,
      fetch: server.fetch,
    })
    try {
      await transport.sendMessages({ messages: [user('m1', 'hi')], abortSignal: undefined })
      assert.fail('the message was not refused')
    } catch (error) {
      assert.instanceOf(error, ChatRequestError)
      assert.equal((error as ChatRequestError).status, 409)
      assert.equal((error as ChatRequestError).code, 'E_TURN_LIVE')
      assert.equal((error as ChatRequestError).message, 'A turn is live')
    }
    assert.deepEqual(server.sent[0].body, { text: 'hi' })
    transport.close()
  })

  test('reconnecting: no stream for no chat, a finished head or a wait; a live head followed until the channel, back, finds it ended', async ({
    assert,
  }) => {
    let state: { status: number; body: unknown } = { status: 404, body: {} }
    const server = fakeServer(() => state, { status: 500, body: {} })
    const transport = new AgentChatTransport({
      chatId: 'c1',
      chatUrl: '/chat/c1',
      person: 'user:1',
      subscribe: server.subscribe,
      fetch: server.fetch,
      pollInterval: 60_000,
    })
    assert.isNull(await transport.reconnectToStream({}))
    state = { status: 200, body: { head: { runId: 'r1', status: 'completed' }, rows: [] } }
    assert.isNull(await transport.reconnectToStream({}))
    state = {
      status: 200,
      body: {
        head: { runId: 'r1', status: 'waiting' },
        rows: [{ runId: 'r1', status: 'pending' }],
      },
    }
    assert.isNull(await transport.reconnectToStream({}))
    // Settled, not yet going on: followed as running
    state = { status: 200, body: { head: { runId: 'r1', status: 'waiting' }, rows: [] } }
    const stream = await transport.reconnectToStream({})
    assert.isNotNull(stream)
    server.say(delta('r1', 's2', 'On'))
    // The channel was lost and is back; meanwhile the turn completed unseen
    state = { status: 200, body: { head: { runId: 'r1', status: 'completed' }, rows: [] } }
    server.say(null)
    assert.deepEqual(await chunksOf(stream!), [
      { type: 'start', messageId: 'r1:assistant' },
      { type: 'text-start', id: 's2' },
      { type: 'text-delta', id: 's2', delta: 'On' },
      { type: 'text-end', id: 's2' },
      { type: 'finish' },
    ])
    // The channel is subscribed once, whatever the number of streams
    assert.lengthOf(
      server.log.filter((line) => line.startsWith('subscribe')),
      1
    )
    transport.close()
  })
})
