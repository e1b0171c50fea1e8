/*
 * The MCP server's pure parts (src/mcp_server/results.ts, tools.ts and
 * typedAnswers in src/mcp/to_result.ts): what an outside agent receives of
 * a row, and how its calls are checked before anything is opened.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { typedAnswers } from '../../src/mcp/to_result.ts'
import { rowResult, rowTask } from '../../src/mcp_server/results.ts'
import { approvalInput, askInput, toolList } from '../../src/mcp_server/tools.ts'
import type { QuestionSet } from '../../src/questions/types.ts'

const SET: QuestionSet = {
  questions: [
    {
      id: 'db',
      prompt: 'Database?',
      options: [
        { value: 'pg', label: 'PostgreSQL' },
        { value: 'my', label: 'MySQL' },
      ],
      defaults: ['pg'],
    },
    { id: 'n', prompt: 'Replicas?', input: { type: 'integer', min: 1 }, defaults: ['2'] },
    { id: 'on', prompt: 'Enabled?', input: { type: 'boolean' }, defaults: ['true'] },
    {
      id: 'tags',
      prompt: 'Tags?',
      multiple: true,
      options: [
        { value: 'a', label: 'A' },
        { value: 'b', label: 'B' },
      ],
      defaults: ['a'],
    },
    { id: 'name', prompt: 'Name?', input: { type: 'text' }, defaults: ['x'] },
  ],
}

const AT = DateTime.fromISO('2026-01-02T03:04:05Z')

function row(fields: Record<string, unknown>) {
  return {
    id: 'r1',
    kind: 'ask',
    status: 'pending',
    request: SET,
    outcome: null,
    createdAt: AT,
    settledAt: null,
    answeredBy: null,
    ...fields,
  } as any
}

test.group('MCP server results', () => {
  test('answers are typed per question; values that break a rule are left out', ({ assert }) => {
    assert.deepEqual(
      typedAnswers(SET, {
        db: ['my'],
        n: ['3'],
        on: ['false'],
        tags: ['b', 'a', 'zz'],
        name: ['Ada'],
      }),
      { db: 'my', n: 3, on: false, tags: ['b', 'a'], name: 'Ada' }
    )
    assert.deepEqual(typedAnswers(SET, { db: ['oracle'], n: ['0'] }), {})
  })

  test('a pending row is "still pending" with its id; its task is working', ({ assert }) => {
    const result = rowResult(row({}))
    assert.deepEqual(result.structuredContent, { id: 'r1', status: 'pending' })
    assert.include(result.content[0].text, 'get_answer')
    const task = rowTask(row({}), 500)
    assert.equal(task.status, 'working')
    assert.equal(task.taskId, 'r1')
    assert.equal(task.createdAt, '2026-01-02T03:04:05.000Z')
  })

  test('a settled question set gives its typed answers; an expired one says so', ({ assert }) => {
    const outcome = {
      kind: 'answers',
      answers: { db: ['my'], n: ['2'] },
      questions: [],
      defaulted: ['n'],
      skipped: false,
      expired: false,
      answeredBy: '1',
      answeredVia: 'web',
      text: 'Answered',
    }
    const answered = rowResult(row({ status: 'answered', outcome, settledAt: AT }))
    assert.equal(answered.structuredContent.status, 'answered')
    assert.deepEqual(answered.structuredContent.answers, { db: 'my', n: 2 })
    assert.equal(
      rowTask(row({ status: 'answered', outcome, settledAt: AT }), 1).status,
      'completed'
    )
    const expired = rowResult(
      row({ status: 'expired', outcome: { ...outcome, expired: true }, settledAt: AT })
    )
    assert.equal(expired.structuredContent.status, 'expired')
  })

  test('a decision gives approved or rejected with its reason; a withdrawn row is cancelled', ({
    assert,
  }) => {
    const outcome = {
      kind: 'decision',
      approved: false,
      reason: 'No',
      expired: false,
      answeredBy: '2',
      answeredVia: 'web',
      text: 'Rejected',
    }
    const rejected = rowResult(row({ kind: 'action', status: 'rejected', outcome }))
    assert.deepEqual(rejected.structuredContent, {
      id: 'r1',
      status: 'rejected',
      approved: false,
      reason: 'No',
      answeredBy: '2',
      answeredVia: 'web',
    })
    const cancelled = row({ status: 'cancelled' })
    assert.equal(rowResult(cancelled).structuredContent.status, 'cancelled')
    assert.equal(rowTask(cancelled, 1).status, 'cancelled')
  })
})

test.group('MCP server tool inputs', () => {
  test('ask_human takes the ask tool’s schema, and names the path of a problem', async ({
    assert,
  }) => {
    const [ask] = toolList({})
    assert.property((ask.inputSchema as any).properties, 'questions')
    assert.property((ask.inputSchema as any).properties, 'to')
    const bad = await askInput({ questions: [{ ...SET.questions[0], defaults: ['oracle'] }] }, {})
    assert.include((bad as { error: string }).error, 'questions[0].defaults')
    assert.include((bad as { error: string }).error, 'call ask_human again')
    const good = await askInput({ questions: [SET.questions[0]], to: 'grace' }, {})
    assert.deepEqual(good, { set: { questions: [SET.questions[0]] }, to: 'grace' })
  })

  test('request_approval needs a title and a summary, and keeps `client` for itself', ({
    assert,
  }) => {
    assert.deepEqual(
      approvalInput({ title: 'db:migrate', summary: 'Run it', arguments: { env: 'prod' } }),
      {
        title: 'db:migrate',
        summary: 'Run it',
        arguments: { env: 'prod' },
        irreversible: false,
        to: null,
      }
    )
    const error = (input: unknown) => (approvalInput(input) as { error: string }).error
    assert.include(error({ summary: 'x' }), 'title: is required')
    assert.include(
      error({ title: 't', summary: 's', arguments: { client: 'me' } }),
      'arguments.client'
    )
    assert.include(
      error({ title: 't', summary: 's', arguments: [1] }),
      'arguments: must be an object'
    )
    assert.include(error({ title: 't', summary: 's', irreversible: 'yes' }), 'irreversible')
    assert.include(error({ title: 't', summary: 's', to: 7 }), 'to: must be a name')
    assert.include(error({ title: 'a\u0000b', summary: 's' }), 'title: must be one line')
    assert.include(error({ title: 't', summary: 's\u0000' }), 'summary: must not contain NUL')
    assert.include(
      error({ title: 't', summary: 's', arguments: { a: 'x\u0000' } }),
      'arguments: must not contain NUL'
    )
  })
})
