import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createActionRow, createAskRow, createRun, DEPLOY_QUESTIONS } from '../helpers/rows.ts'
import { RowSettler } from '../../src/inbox/row_settler.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import {
  AlreadySettledException,
  InvalidReplyException,
  ReplyMismatchException,
} from '../../src/errors.ts'
import type { QuestionOutcome, DecisionOutcome } from '../../src/questions/types.ts'

test.group(`RowSettler | ${dbName()}`, (group) => {
  let terminate: () => Promise<void>
  group.setup(async () => {
    const testApp = await createTestApp()
    terminate = testApp.terminate
    return () => terminate()
  })

  test('settles answers: outcome, raw reply and audit fields are stored', async ({ assert }) => {
    const row = await createAskRow()
    const settled = await new RowSettler().settle(
      row.id,
      { answers: { db: ['mysql'] } },
      { by: 'user:1', via: 'web' }
    )

    assert.equal(settled.status, 'answered')
    assert.equal(settled.answeredBy, 'user:1')
    assert.equal(settled.answeredVia, 'web')
    assert.isTrue(DateTime.isDateTime(settled.settledAt))
    assert.deepEqual(settled.reply, { answers: { db: ['mysql'] } })

    const outcome = settled.outcome as QuestionOutcome
    assert.equal(outcome.kind, 'answers')
    assert.deepEqual(outcome.answers, { db: ['mysql'], replicas: ['2'] })
    assert.deepEqual(outcome.defaulted, ['replicas'])
    assert.isFalse(outcome.skipped)
    assert.include(outcome.text, 'MySQL')

    const reloaded = await ToolCall.findOrFail(row.id)
    assert.deepEqual(reloaded.outcome, settled.outcome)
  })

  test('skip proceeds on every default', async ({ assert }) => {
    const row = await createAskRow()
    const settled = await new RowSettler().settle(
      row.id,
      { answers: {}, skip: true },
      { by: 'user:1', via: 'api' }
    )
    const outcome = settled.outcome as QuestionOutcome
    assert.isTrue(outcome.skipped)
    assert.deepEqual(outcome.answers, { db: ['pg'], replicas: ['2'] })
  })

  test('approve sent to a question set accepts the defaults', async ({ assert }) => {
    const row = await createAskRow({ kind: 'intake', toolName: 'intake' })
    const settled = await new RowSettler().settle(
      row.id,
      { approved: true },
      { by: 'user:1', via: 'web' }
    )
    assert.equal(settled.status, 'answered')
    assert.deepEqual((settled.outcome as QuestionOutcome).answers, {
      db: ['pg'],
      replicas: ['2'],
    })
  })

  test('approves and rejects an action with its reason', async ({ assert }) => {
    const settler = new RowSettler()
    const toApprove = await createActionRow()
    const approved = await settler.settle(
      toApprove.id,
      { approved: true },
      { by: 'user:1', via: 'web' }
    )
    assert.equal(approved.status, 'approved')
    assert.isTrue((approved.outcome as DecisionOutcome).approved)

    const toReject = await createActionRow()
    const rejected = await settler.settle(
      toReject.id,
      { approved: false, reason: 'Not on a Friday' },
      { by: 'user:1', via: 'web' }
    )
    assert.equal(rejected.status, 'rejected')
    assert.equal((rejected.outcome as DecisionOutcome).reason, 'Not on a Friday')
    assert.include((rejected.outcome as DecisionOutcome).text, 'Not on a Friday')
  })

  test('answers sent to an approval are refused, and the row stays pending', async ({ assert }) => {
    const row = await createActionRow()
    await assert.rejects(
      () => new RowSettler().settle(row.id, { answers: { x: ['y'] } }, { by: 'u', via: 'web' }),
      ReplyMismatchException
    )
    const unchanged = await ToolCall.findOrFail(row.id)
    assert.equal(unchanged.status, 'pending')
  })

  test('a malformed reply gets field errors, and the row stays pending', async ({ assert }) => {
    const row = await createAskRow()
    const error = await new RowSettler()
      .settle(row.id, { answers: { db: ['mongo'], replicas: ['0'] } }, { by: 'u', via: 'web' })
      .catch((e) => e)
    assert.instanceOf(error, InvalidReplyException)
    assert.equal(error.status, 422)
    const paths = (error as InvalidReplyException).errors.map((issue) => issue.path)
    assert.includeMembers(paths, ['answers.db.0', 'answers.replicas.0'])
    const unchanged = await ToolCall.findOrFail(row.id)
    assert.equal(unchanged.status, 'pending')

    const shapeError = await new RowSettler()
      .settle(row.id, { approved: 'maybe' }, { by: 'u', via: 'web' })
      .catch((e) => e)
    assert.instanceOf(shapeError, InvalidReplyException)
  })

  test('edited args are re-validated by the hook and stored in the outcome', async ({ assert }) => {
    const settler = new RowSettler({
      validateEditedInput: async (_row, input: any) => {
        if (typeof input?.branch !== 'string') {
          throw new InvalidReplyException([{ path: 'editedInput.branch', message: 'required' }])
        }
        return { branch: input.branch, force: Boolean(input.force) }
      },
    })
    const row = await createActionRow()
    await assert.rejects(
      () => settler.settle(row.id, { approved: true, editedInput: {} }, { by: 'u', via: 'web' }),
      InvalidReplyException
    )
    const settled = await settler.settle(
      row.id,
      { approved: true, editedInput: { branch: 'release' } },
      { by: 'u', via: 'web' }
    )
    assert.deepEqual((settled.outcome as DecisionOutcome).editedInput, {
      branch: 'release',
      force: false,
    })

    const withoutHook = await createActionRow()
    await assert.rejects(
      () =>
        new RowSettler().settle(
          withoutHook.id,
          { approved: true, editedInput: { branch: 'x' } },
          { by: 'u', via: 'web' }
        ),
      InvalidReplyException
    )
  })

  test('a second settle gets a conflict naming who settled it and when', async ({ assert }) => {
    const row = await createAskRow()
    const settler = new RowSettler()
    await settler.settle(row.id, { answers: { db: ['sqlite'] } }, { by: 'ada', via: 'terminal' })
    const error = await settler
      .settle(row.id, { answers: { db: ['pg'] } }, { by: 'bob', via: 'web' })
      .catch((e) => e)

    assert.instanceOf(error, AlreadySettledException)
    assert.equal(error.status, 409)
    assert.equal(error.code, 'E_ALREADY_SETTLED')
    assert.equal(error.settledBy, 'ada')
    assert.equal(error.settledVia, 'terminal')
    assert.instanceOf(error.settledAt, Date)
    assert.include(error.message, 'ada')
    const stored = await ToolCall.findOrFail(row.id)
    assert.deepEqual(stored.reply, { answers: { db: ['sqlite'] } })
  })

  test('unknown rows are not found', async ({ assert }) => {
    const error = await new RowSettler()
      .settle('00000000-0000-0000-0000-000000000000', { approved: true }, { by: 'u', via: 'web' })
      .catch((e) => e)
    assert.equal(error.code, 'E_NOT_FOUND')
    assert.equal(error.status, 404)
  })

  test('a late reply to an expired row is refused and the row settles by its policy', async ({
    assert,
  }) => {
    const row = await createAskRow({ expiresAt: DateTime.now().minus({ minutes: 1 }) })
    const error = await new RowSettler()
      .settle(row.id, { answers: { db: ['mysql'] } }, { by: 'u', via: 'web' })
      .catch((e) => e)
    assert.equal(error.code, 'E_EXPIRED')
    assert.equal(error.status, 410)

    const expired = await ToolCall.findOrFail(row.id)
    assert.equal(expired.status, 'expired')
    assert.equal(expired.answeredVia, 'expiry')
    const outcome = expired.outcome as QuestionOutcome
    assert.isTrue(outcome.expired)
    assert.deepEqual(outcome.answers, { db: ['pg'], replicas: ['2'] })

    const again = await new RowSettler()
      .settle(row.id, { answers: { db: ['mysql'] } }, { by: 'u', via: 'web' })
      .catch((e) => e)
    assert.equal(again.code, 'E_EXPIRED')
  })

  test('an expiring approval is rejected, never approved', async ({ assert }) => {
    const row = await createActionRow({ expiresAt: DateTime.now().minus({ seconds: 1 }) })
    assert.isTrue(await new RowSettler().expire(row))
    const expired = await ToolCall.findOrFail(row.id)
    assert.equal(expired.status, 'expired')
    assert.isFalse((expired.outcome as DecisionOutcome).approved)
    assert.isFalse(await new RowSettler().expire(expired))
  })

  test('a reply to a cancelled row gets a clear error', async ({ assert }) => {
    const row = await createAskRow({ status: 'cancelled' })
    const error = await new RowSettler()
      .settle(row.id, { answers: {} }, { by: 'u', via: 'web' })
      .catch((e) => e)
    assert.equal(error.code, 'E_CANCELLED')
    assert.equal(error.status, 410)
  })

  test('{count} concurrent settles of one row: exactly one wins')
    .with([{ count: 24 }])
    .run(async ({ assert }, { count }) => {
      const row = await createAskRow()
      const settler = new RowSettler()
      const choices = ['pg', 'mysql', 'sqlite']
      const attempts = Array.from({ length: count }, (_, index) => ({
        by: `person:${index}`,
        reply: { answers: { db: [choices[index % 3]], replicas: [String((index % 9) + 1)] } },
      }))

      const results = await Promise.allSettled(
        attempts.map(({ by, reply }) => settler.settle(row.id, reply, { by, via: 'api' }))
      )
      const wins = results.filter((result) => result.status === 'fulfilled')
      const conflicts = results.filter(
        (result) => result.status === 'rejected' && result.reason instanceof AlreadySettledException
      )
      assert.lengthOf(wins, 1)
      assert.lengthOf(conflicts, count - 1)

      const stored = await ToolCall.findOrFail(row.id)
      const winner = attempts.find(({ by }) => by === stored.answeredBy)!
      assert.exists(winner)
      assert.deepEqual(stored.reply, winner.reply)
      assert.deepEqual((stored.outcome as QuestionOutcome).answers, winner.reply.answers)
      for (const conflict of conflicts) {
        assert.equal((conflict as PromiseRejectedResult).reason.settledBy, winner.by)
      }
    })
})

test.group(`Tables | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('a row id that is not a UUID is not found, without a query', async ({ assert }) => {
    const inbox = new Inbox()
    for (const id of ['\u0000', 'x'.repeat(5000), '']) {
      assert.isNull(await inbox.find(id))
      const error = await inbox
        .settle(id, { answers: {}, skip: true }, { by: 'user:1', via: 'api' })
        .catch((caught) => caught)
      assert.equal(error.code, 'E_NOT_FOUND')
    }
  })

  test('a reply with a ReDoS value to a row stored with a nested pattern returns', async ({
    assert,
  }) => {
    // Stored before patterns were checked: rows hold whatever was opened
    const row = await createAskRow({
      request: {
        questions: [
          {
            id: 'code',
            prompt: 'Code?',
            input: { type: 'text', pattern: '^(a+)+$' },
            defaults: ['aaaa'],
          },
        ],
      },
    })
    const settler = new RowSettler()
    const evil = { answers: { code: ['a'.repeat(40) + '!'] } }
    const error = await settler.settle(row.id, evil, { by: 'user:1', via: 'api' }).catch((e) => e)
    assert.instanceOf(error, InvalidReplyException)
    assert.deepEqual((error as InvalidReplyException).errors, [
      { path: 'answers.code.0', rule: 'value', message: 'must match the pattern ^(a+)+$' },
    ])

    const settled = await settler.settle(
      row.id,
      { answers: { code: ['a'.repeat(40)] } },
      { by: 'user:1', via: 'api' }
    )
    assert.deepEqual((settled.outcome as QuestionOutcome).answers, { code: ['a'.repeat(40)] })
  })

  test('JSON payloads round-trip through text columns', async ({ assert }) => {
    const row = await createAskRow()
    const reloaded = await ToolCall.findOrFail(row.id)
    assert.deepEqual(reloaded.request, DEPLOY_QUESTIONS)
    assert.equal(reloaded.onExpiry, 'defaults')
    assert.isNull(reloaded.reply)
  })

  test('a row sequence is unique within its run', async ({ assert }) => {
    const row = await createAskRow()
    await assert.rejects(() =>
      ToolCall.create({
        runId: row.runId,
        sequence: row.sequence,
        toolName: 'x',
        kind: 'read',
        status: 'auto',
        request: {},
      })
    )
  })

  test('journal keys are unique per run, not across runs', async ({ assert }) => {
    const run = await createRun()
    const other = await createRun()
    await JournalRow.create({
      runId: run.id,
      sequence: 1,
      key: 'step:1:response',
      kind: 'model-response',
      payload: { text: 'hi' },
    })
    await JournalRow.create({
      runId: other.id,
      sequence: 1,
      key: 'step:1:response',
      kind: 'model-response',
      payload: {},
    })
    await assert.rejects(() =>
      JournalRow.create({
        runId: run.id,
        sequence: 2,
        key: 'step:1:response',
        kind: 'model-response',
        payload: {},
      })
    )
    const saved = await JournalRow.query().where('run_id', run.id).firstOrFail()
    assert.deepEqual(saved.payload, { text: 'hi' })
  })
})
