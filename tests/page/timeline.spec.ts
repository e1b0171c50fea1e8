/*
 * How the run page tells a timeline's entries, shared by the React and Vue
 * pages (stubs/inertia/agent_inbox/timeline.ts and words.ts): answers by
 * their labels with defaults marked, a skip and an expiry, a rejection's
 * reason, edited args as the fields they changed, what a tool returned or its error, an interrupted
 * call, who settled by name, and how a run ended (its final answer, or its
 * error code).
 */

import { test } from '@japa/runner'
import type { RowCard, TimelineEntry } from '../../src/types/main.ts'
import { showEntry, sightNote } from '../../stubs/inertia/agent_inbox/timeline.ts'
import { formatTime } from '../../stubs/inertia/agent_inbox/words.ts'

const people = { '1': 'Ada Lovelace' }
const context = { people, owner: '1', attempt: 2 }

const questions: RowCard = {
  id: 'q1',
  runId: 'r1',
  digest: 'digest-q1',
  kind: 'ask',
  status: 'expired',
  toolName: 'ask',
  toolCallId: null,
  createdAt: null,
  expiresAt: null,
  onExpiry: 'defaults',
  questionSet: {
    questions: [
      {
        id: 'db',
        prompt: 'Which database?',
        options: [
          { value: 'pg', label: 'PostgreSQL' },
          { value: 'my', label: 'MySQL' },
        ],
        defaults: ['pg'],
      },
    ],
  },
  settled: {
    by: null,
    via: 'expiry',
    at: null,
    outcome: {
      kind: 'answers',
      answers: { db: ['pg'] },
      resolutions: {},
      defaulted: ['db'],
      skipped: false,
      expired: true,
      answeredBy: null,
      answeredVia: 'expiry',
      text: '',
    } as never,
  },
}

function call(row: RowCard | null, fields: Partial<Extract<TimelineEntry, { type: 'call' }>>) {
  return {
    type: 'call',
    at: null,
    step: 1,
    attempt: 2,
    toolName: row?.toolName ?? 'lookup',
    row,
    args: null,
    execution: null,
    result: null,
    output: null,
    action: null,
    ...fields,
  } as TimelineEntry
}

test.group('Run page | timeline words', () => {
  test('a question set nobody answered: the defaults, marked, and the expiry', ({ assert }) => {
    const shown = showEntry(call(questions, {}), context)
    assert.equal(shown.title, 'The agent asked a question')
    assert.deepEqual(shown.lines, [
      'Nobody answered in time: the defaults were used.',
      'Which database? PostgreSQL (default)',
      'By someone via expiry.',
    ])
    assert.deepEqual(shown.blocks, [])
    assert.equal(shown.status, 'expired')
  })

  test('an approval: a rejection with its reason; edited args and what the tool returned', ({
    assert,
  }) => {
    const approval = (outcome: object, status: RowCard['status']): RowCard => ({
      ...questions,
      id: 'a1',
      kind: 'action',
      status,
      toolName: 'deploy',
      questionSet: undefined,
      action: { summary: 'Deploy', args: { branch: 'main' } },
      settled: { by: '1', via: 'web', at: null, outcome: outcome as never },
    })
    const rejected = showEntry(
      call(
        approval(
          { kind: 'decision', approved: false, reason: 'Freeze', expired: false },
          'rejected'
        ),
        {
          args: { branch: 'main' },
        }
      ),
      context
    )
    assert.equal(rejected.title, 'Action deploy')
    assert.deepEqual(rejected.lines, ['Rejected', 'Reason: Freeze', 'By Ada Lovelace via web.'])
    assert.deepEqual(rejected.blocks, [{ label: 'Args', text: '{\n  "branch": "main"\n}' }])

    const edited = showEntry(
      call(
        approval(
          { kind: 'decision', approved: true, editedInput: { branch: 'hotfix' }, expired: false },
          'approved'
        ),
        {
          args: { branch: 'main' },
          execution: 'succeeded',
          result: { value: { deployed: 'hotfix' } },
        }
      ),
      context
    )
    assert.deepEqual(edited.lines, [
      'Approved',
      'With edited args:',
      'Branch: main → hotfix',
      'By Ada Lovelace via web.',
    ])
    assert.deepEqual(
      edited.blocks.map((block) => block.label),
      ['Args', 'Returned']
    )
    assert.include(edited.blocks[1].text, '"deployed": "hotfix"')
  })

  test('a call with no row: what the model read; a failed or interrupted tool; an earlier attempt', ({
    assert,
  }) => {
    const unknown = showEntry(
      call(null, { args: { q: 1 }, output: { type: 'error-text', value: 'No tool "lookup"' } }),
      context
    )
    assert.equal(unknown.title, 'Tool lookup')
    assert.deepEqual(unknown.blocks, [
      { label: 'Args', text: '{\n  "q": 1\n}' },
      { label: 'The model read', text: 'No tool "lookup"' },
    ])

    const read: RowCard = {
      ...questions,
      kind: 'read',
      status: 'auto',
      toolName: 'logs',
      questionSet: undefined,
      settled: undefined,
    }
    const failed = showEntry(
      call(read, { execution: 'failed', result: { error: 'timeout' } }),
      context
    )
    assert.deepEqual(failed.blocks, [{ label: 'Error', text: 'timeout' }])
    const interrupted = showEntry(call(read, { execution: 'interrupted', attempt: 1 }), context)
    assert.equal(interrupted.title, 'Tool logs (attempt 1)')
    assert.include(interrupted.lines.join(' '), 'Interrupted')
  })

  test('how an action ran: in its transaction, run again after a rollback, committed, with its key and its effects', ({
    assert,
  }) => {
    const approved: RowCard = {
      ...questions,
      id: 'a1',
      kind: 'action',
      status: 'approved',
      toolName: 'refund',
      questionSet: undefined,
      action: { summary: 'Refund', args: { orderId: 7 } },
      settled: {
        by: '1',
        via: 'web',
        at: null,
        outcome: { kind: 'decision', approved: true, expired: false } as never,
      },
    }
    const startedAt = '2026-01-02T10:00:00.000Z'
    const executedAt = '2026-01-02T10:00:03.000Z'
    const key = '7b1795b8-673c-80c7-a608-60388a7d5d3f'
    const action = {
      transactional: true,
      idempotencyKey: key,
      startedAt,
      executedAt,
      starts: 3,
      effects: [
        {
          name: 'notify',
          idempotencyKey: 'e-1',
          status: 'done' as const,
          attempts: 2,
          lastError: null,
          doneAt: executedAt,
        },
        {
          name: 'mail',
          idempotencyKey: 'e-2',
          status: 'pending' as const,
          attempts: 1,
          lastError: 'SMTP down',
          doneAt: null,
        },
        {
          name: 'sms',
          idempotencyKey: 'e-3',
          status: 'failed' as const,
          attempts: 10,
          lastError: 'Bad number',
          doneAt: null,
        },
      ],
    }
    const committed = showEntry(
      call(approved, { execution: 'succeeded', result: { value: 'refunded' }, action }),
      context
    )
    // Who approved it stays a line; how it ran is the facts
    assert.deepEqual(committed.lines, ['Approved', 'By Ada Lovelace via web.'])
    assert.deepEqual(committed.facts, [
      {
        label: 'Ran',
        value: 'In one transaction with its writes: they commit with its result, or not at all',
      },
      {
        label: 'Started',
        value: `${formatTime(startedAt)} · 3 starts: 2 starts rolled back when a process stopped, then run again`,
      },
      { label: 'Committed', value: formatTime(executedAt) },
      { label: 'Idempotency key', value: key },
      {
        label: 'After the commit: notify',
        value: `delivered ${formatTime(executedAt)} (2 attempts) · key e-1`,
      },
      {
        label: 'After the commit: mail',
        value: 'waiting to be delivered again (1 attempt so far; last error: SMTP down) · key e-2',
      },
      {
        label: 'After the commit: sms',
        value: 'given up after 10 attempts: Bad number · key e-3',
      },
    ])

    // Started, rolled back by a kill, not run again yet
    const rolledBack = showEntry(
      call(approved, { action: { ...action, starts: 1, executedAt: null, effects: [] } }),
      context
    )
    assert.deepEqual(
      rolledBack.facts.map((fact) => fact.label),
      ['Ran', 'Started', 'Rolled back', 'Idempotency key']
    )

    // A plain action killed while it ran: at most once, interrupted
    const plain = { ...action, transactional: false, starts: 1, effects: [] }
    const interrupted = showEntry(
      call(approved, { execution: 'interrupted', action: plain }),
      context
    )
    assert.include(interrupted.lines.join(' '), 'Interrupted')
    assert.deepEqual(interrupted.facts.slice(0, 3), [
      { label: 'Ran', value: 'Outside a transaction: at most once' },
      { label: 'Started', value: formatTime(startedAt) },
      { label: 'Interrupted', value: formatTime(executedAt) },
    ])
    // Entries that are not actions have no facts
    assert.deepEqual(showEntry(call(questions, {}), context).facts, [])
  })

  test("a pending row waits for its run's owner; a run ends with its answer or its error code", ({
    assert,
  }) => {
    const waiting = showEntry(
      call({ ...questions, status: 'pending', settled: undefined }, {}),
      context
    )
    // ...and tells its questions read-only, the defaults marked
    assert.deepEqual(waiting.lines, [
      'Waiting for Ada Lovelace.',
      'Which database? PostgreSQL (default) · MySQL',
    ])
    assert.equal(waiting.pendingRowId, 'q1')

    const end = (fields: object) =>
      showEntry(
        {
          type: 'end',
          at: null,
          text: null,
          errorCode: null,
          error: null,
          ...fields,
        } as TimelineEntry,
        context
      )
    assert.deepEqual(end({ status: 'completed', text: 'Done.' }).blocks, [
      { label: 'Final answer', text: 'Done.' },
    ])
    const failed = end({ status: 'failed', errorCode: 'E_PROVIDER', error: 'Invalid API key' })
    assert.equal(failed.title, 'The run failed')
    assert.deepEqual(failed.lines, ['E_PROVIDER', 'Invalid API key'])
    assert.equal(end({ status: 'cancelled' }).title, 'The run was cancelled')
  })
})

test.group('Run page | a timeline shown in part', () => {
  test('an approver who may not read the run is told they see their calls only, and whose it is', ({
    assert,
  }) => {
    assert.equal(
      sightNote('rows', 'Ada Lovelace'),
      "Only the calls you were asked to decide are shown: the run's input and its other steps stay with Ada Lovelace."
    )
    assert.isNull(sightNote('run', 'Ada Lovelace'))
    assert.isNull(sightNote(undefined, 'Ada Lovelace'))
  })
})
