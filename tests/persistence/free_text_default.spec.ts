/*
 * One question left on its defaults settles to the same values through
 * every channel. The question: an option question that allows free text,
 * whose default is free text (`Europe/Lisbon`), which the validator
 * accepts. Once the terminal said "Enter keeps Europe/Lisbon" and settled
 * `[]`, the page's Confirm settled `['Europe/Lisbon']`, and Skip and expiry
 * settled `[]`: each channel had its own copy of "which defaults hold".
 * Every row here is settled in the database by the row settler.
 */

import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createAskRow } from '../helpers/rows.ts'
import { RowSettler } from '../../src/inbox/row_settler.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { settleFromTerminal, type LineReader } from '../../src/channels/terminal.ts'
import {
  elicitationResultFromOutcome,
  questionSetFromElicitation,
  type ElicitationRequest,
} from '../../src/mcp/main.ts'
import { validateQuestionSet } from '../../src/questions/validate.ts'
import { effectiveDefaults } from '../../src/questions/defaults.ts'
import type { QuestionOutcome, QuestionSet } from '../../src/questions/types.ts'
import { answersReply, initialForm } from '../../stubs/inertia/agent_inbox/form_state.ts'

const TZ: QuestionSet = {
  questions: [
    {
      id: 'tz',
      prompt: 'Which time zone should the reports use?',
      allowFreeText: true,
      options: [
        { value: 'UTC', label: 'UTC' },
        { value: 'America/New_York', label: 'New York' },
      ],
      defaults: ['Europe/Lisbon'],
    },
  ],
}

const EXPECTED = { tz: ['Europe/Lisbon'] }

function answersOf(row: ToolCall) {
  return (row.outcome as QuestionOutcome).answers
}

test.group(`A free-text default through every channel | ${dbName()}`, (group) => {
  let terminate: () => Promise<void>
  group.setup(async () => {
    const testApp = await createTestApp()
    terminate = testApp.terminate
    return () => terminate()
  })

  test('the validator accepts the question', async ({ assert }) => {
    const result = await validateQuestionSet(TZ)
    assert.isTrue(result.ok)
    assert.deepEqual(effectiveDefaults(TZ.questions[0]), EXPECTED.tz)
  })

  test('web: Confirm on the untouched card', async ({ assert }) => {
    const row = await createAskRow({ request: TZ })
    const reply = answersReply(TZ, initialForm(TZ))
    const settled = await new RowSettler().settle(row.id, reply, { by: 'user:1', via: 'web' })
    assert.deepEqual(answersOf(settled), EXPECTED)
  })

  test('web: Skip', async ({ assert }) => {
    const row = await createAskRow({ request: TZ })
    const settled = await new RowSettler().settle(
      row.id,
      { answers: {}, skip: true },
      { by: 'user:1', via: 'web' }
    )
    assert.deepEqual(answersOf(settled), EXPECTED)
  })

  test('terminal: Enter keeps the default', async ({ assert }) => {
    const row = await createAskRow({ request: TZ })
    const lines = ['']
    const reader: LineReader = {
      async ask() {
        return lines.length > 0 ? lines.shift()! : null
      },
      close() {},
    }
    const written: string[] = []
    const settlement = await settleFromTerminal(
      new RowSettler(),
      { id: row.id, kind: 'ask', toolName: 'ask', request: TZ },
      reader,
      (line) => written.push(line),
      'terminal:ada'
    )
    assert.deepEqual(settlement, { result: 'settled', status: 'answered' })
    assert.include(written.join('\n'), 'Enter keeps Europe/Lisbon')
    assert.deepEqual(answersOf(await ToolCall.findOrFail(row.id)), EXPECTED)
  })

  test('expiry on the defaults policy', async ({ assert }) => {
    const row = await createAskRow({ request: TZ, onExpiry: 'defaults' })
    assert.isTrue(await new RowSettler().expire(row))
    const expired = await ToolCall.findOrFail(row.id)
    assert.equal(expired.status, 'expired')
    assert.deepEqual(answersOf(expired), EXPECTED)
  })

  test('MCP: a free string with that default, approved in the inbox', async ({ assert }) => {
    // MCP has no "options or your own words": the nearest it asks is a free string with a default
    const request: ElicitationRequest = {
      message: 'Reports',
      requestedSchema: {
        type: 'object',
        properties: {
          tz: {
            type: 'string',
            title: 'Which time zone should the reports use?',
            default: 'Europe/Lisbon',
          },
        },
        required: ['tz'],
      },
    }
    const set = questionSetFromElicitation(request)
    assert.deepEqual(effectiveDefaults(set.questions[0]), EXPECTED.tz)

    const row = await createAskRow({ request: set })
    const settled = await new RowSettler().settle(
      row.id,
      { approved: true },
      { by: 'user:1', via: 'mcp' }
    )
    const outcome = settled.outcome as QuestionOutcome
    assert.deepEqual(outcome.answers, EXPECTED)
    const accepted = { action: 'accept', content: { tz: 'Europe/Lisbon' } }
    assert.deepEqual(elicitationResultFromOutcome(request, outcome), accepted)
    assert.deepEqual(
      elicitationResultFromOutcome(request, { kind: 'decision', approved: true }),
      accepted
    )
  })
})
