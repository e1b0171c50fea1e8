import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createActionRow, createAskRow, rowsAgent } from '../helpers/rows.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { defineConfig } from '../../src/define_config.ts'
import type { ApplicationService } from '@adonisjs/core/types'
import type { QuestionOutcome } from '../../src/questions/types.ts'

test.group(`Inbox | ${dbName()}`, (group) => {
  let app: ApplicationService
  group.setup(async () => {
    // The rows' runs belong to an agent of the app (tests/helpers/rows.ts)
    const testApp = await createTestApp({
      agents: defineConfig({ agents: [rowsAgent()], limits: { askBudget: 2 } }),
    })
    app = testApp.app
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('the provider binds one inbox built from config/agents.ts', async ({ assert }) => {
    const inbox = await app.container.make('agents.inbox')
    assert.instanceOf(inbox, Inbox)
    assert.strictEqual(await app.container.make('agents.inbox'), inbox)
  })

  test("pending lists only the owner's pending rows, oldest first", async ({ assert }) => {
    const inbox = await app.container.make('agents.inbox')
    // created second, but dated earlier: order must follow created_at, not insertion
    const newer = await createActionRow()
    const older = await createAskRow({ createdAt: DateTime.now().minus({ minutes: 5 }) })
    await createAskRow({ ownerId: 'user:2' })
    await createAskRow({ status: 'answered' })

    const rows = await inbox.pending('user:1')
    assert.deepEqual(
      rows.map((row) => row.id),
      [older.id, newer.id]
    )
    assert.lengthOf(await inbox.pending('user:1', { limit: 1 }), 1)
    const found = await inbox.find(newer.id)
    assert.equal(found?.kind, 'action')
  })

  test('settle goes through the row settler and records the channel', async ({ assert }) => {
    const inbox = await app.container.make('agents.inbox')
    const row = await createAskRow()
    const settled = await inbox.settle(
      row.id,
      { answers: { db: ['sqlite'] } },
      { by: 'user:1', via: 'api' }
    )
    assert.equal(settled.answeredVia, 'api')
    assert.deepEqual((settled.outcome as QuestionOutcome).answers.db, ['sqlite'])
  })

  test('sweepExpired settles due rows by their policy and leaves the rest', async ({ assert }) => {
    const now = DateTime.now()
    const inbox = new Inbox({ now: () => now })
    const due = await createAskRow({ expiresAt: now.minus({ minutes: 1 }) })
    const dueAction = await createActionRow({
      expiresAt: now.minus({ seconds: 5 }),
      onExpiry: 'reject',
    })
    const later = await createAskRow({ expiresAt: now.plus({ hours: 1 }) })
    const never = await createAskRow()

    const swept = await inbox.sweepExpired()
    assert.sameMembers(
      swept.map((row) => row.id),
      [due.id, dueAction.id]
    )
    const statuses = await ToolCall.query().whereIn('id', [
      due.id,
      dueAction.id,
      later.id,
      never.id,
    ])
    const byId = Object.fromEntries(statuses.map((row) => [row.id, row]))
    assert.equal(byId[due.id].status, 'expired')
    assert.equal(byId[due.id].answeredVia, 'expiry')
    assert.isTrue((byId[due.id].outcome as QuestionOutcome).expired)
    assert.equal(byId[dueAction.id].status, 'expired')
    assert.equal(byId[later.id].status, 'pending')
    assert.equal(byId[never.id].status, 'pending')
    assert.lengthOf(await inbox.sweepExpired(), 0)
  })
})

test.group('defineConfig', () => {
  test('refuses limits that are not whole numbers, or min options above max', ({ assert }) => {
    assert.throws(() => defineConfig({ limits: { maxQuestions: 1.5 } }), /limits.maxQuestions/)
    assert.throws(() => defineConfig({ limits: { askBudget: -1 } }), /limits.askBudget/)
    assert.throws(() => defineConfig({ limits: { minOptions: 5, maxOptions: 3 } }), /minOptions/)
  })

  test('resolves with the defaults filled in', async ({ assert }) => {
    const provider = defineConfig({ limits: { askBudget: 1 } })
    const resolved = await provider.resolver({} as ApplicationService)
    assert.equal(resolved.limits.askBudget, 1)
    assert.equal(resolved.limits.maxQuestions, 4)
  })
})
