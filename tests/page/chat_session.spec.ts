/*
 * The chat page's logic without a framework (stubs/inertia/agent_inbox/
 * chat_session.ts): each turn's cards after its last message (cards of a
 * turn no message names last), the input box closed while a turn is live
 * and why, the pending cards as the inbox session takes them, a message's
 * text parts, and Shield's CSRF header from its cookie.
 */

import { test } from '@japa/runner'
import type { UIMessage } from 'ai'
import type { ChatState, RowCard } from '../../src/types/main.ts'
import {
  chatItems,
  composerState,
  headIsLive,
  messageText,
  pendingGroups,
  xsrfHeaders,
} from '../../stubs/inertia/agent_inbox/chat_session.ts'

const message = (id: string, role: 'user' | 'assistant', ...texts: string[]): UIMessage => ({
  id,
  role,
  parts: texts.map((text) => ({ type: 'text', text })),
})

const card = (id: string, runId: string, status: RowCard['status'] = 'pending'): RowCard => ({
  id,
  runId,
  toolCallId: `call-${id}`,
  digest: 'd',
  kind: 'ask',
  status,
  toolName: 'ask',
  createdAt: null,
  expiresAt: null,
  onExpiry: 'defaults',
  questionSet: { questions: [] },
})

const chat = (status: string, rows: RowCard[] = []): ChatState => ({
  conversationId: 'c',
  agent: 'chatter',
  ownerId: '1',
  messages: [],
  head: { runId: 'r2', status: status as NonNullable<ChatState['head']>['status'] },
  rows,
})

test.group('Page | chat session', () => {
  test("each turn's cards follow its last message; a turn no message names comes last", ({
    assert,
  }) => {
    const items = chatItems(
      [
        message('r1:user', 'user', 'ask me'),
        message('r1:assistant', 'assistant', 'One question first.'),
        message('r2:user', 'user', 'deploy'),
      ],
      [card('a', 'r1'), card('b', 'r2'), card('c', 'r9')]
    )
    assert.deepEqual(
      items.map((item) =>
        item.kind === 'message' ? item.message.id : `cards ${item.cards.map((one) => one.id)}`
      ),
      ['r1:user', 'r1:assistant', 'cards a', 'r2:user', 'cards b', 'cards c']
    )
  })

  test('the input box is closed while a turn is live, and says why', ({ assert }) => {
    assert.deepEqual(composerState(null, false), { open: true, note: null })
    assert.deepEqual(composerState(null, true), { open: false, note: 'The agent is answering…' })
    assert.deepEqual(composerState(chat('waiting', [card('a', 'r2')]), false), {
      open: false,
      note: 'Answer what the agent asked above to go on.',
    })
    // Waiting with its row settled: about to go on, so live
    assert.isFalse(composerState(chat('waiting', [card('a', 'r2', 'answered')]), false).open)
    assert.isTrue(headIsLive(chat('waiting', [card('a', 'r2', 'answered')])))
    assert.isTrue(composerState(chat('completed'), false).open)
    assert.isTrue(composerState(chat('failed'), false).open)
    assert.isFalse(headIsLive(chat('completed')))
  })

  test('pending cards as one group; text parts; the CSRF header', ({ assert }) => {
    const pending = card('a', 'r2')
    assert.deepEqual(pendingGroups(chat('waiting', [pending, card('b', 'r1', 'answered')])), [
      { run: null, rows: [pending] },
    ])
    assert.deepEqual(pendingGroups(null), [])
    assert.equal(messageText(message('m', 'assistant', 'One.', 'Two.')), 'One.\nTwo.')
    assert.deepEqual(xsrfHeaders('a=1; XSRF-TOKEN=abc%3D%3D; b=2'), { 'x-xsrf-token': 'abc==' })
    assert.deepEqual(xsrfHeaders('a=1'), {})
  })
})
