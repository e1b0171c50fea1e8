/*
 * Transactional actions and idempotency keys in one process
 * (docs/design.md §5.4, §5.5): the handler's writes, the row's result and
 * its effects go through one transaction on the run's connection; a
 * handler that throws leaves nothing of its writes; a passing database
 * error runs it again with the same key; effects run after the commit,
 * and one that fails is delivered again by recovery with the same key.
 * Every handler, transactional or not, gets the call's key. The crash
 * tests with real processes are tests/runtime/exactly_once.spec.ts.
 */

import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { statementsOf } from '../helpers/statements.ts'
import { call, createAgents, rowsOf, say, scriptedModel, toolResultOf } from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool, type ToolContext } from '../../src/runtime/define_tool.ts'
import { AgentEffect } from '../../src/persistence/models/agent_effect.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { callKey, effectKey } from '../../src/runtime/effects/keys.ts'

type Seen = { key: string; attempt: number; committed: string | null; entries: number }

/**
 * A bank whose `transfer` action writes a ledger entry in its transaction
 * and asks for one `notify` effect; what `failWith` returns is thrown by
 * the handler after its write (once per value), and `notify` throws while
 * `notifyFails` says so. Every handler start and every delivery is
 * recorded with the key it got.
 */
function bank(db: Database) {
  const starts: string[] = []
  const deliveries: Seen[] = []
  const state = { failWith: [] as Error[], notifyFails: 0 }
  const transfer = defineTool({
    name: 'transfer',
    description: 'Move money',
    kind: 'action',
    needsApproval: false,
    transactional: true,
    input: vine.object({ amount: vine.number(), effect: vine.string().optional() }),
    effects: {
      notify: async (data: { amount: number }, context) => {
        // After the commit: another connection sees the row's result and the entry
        const row = await ToolCall.findOrFail(context.rowId)
        const entries = await db.from('bank_ledger').count('* as total')
        deliveries.push({
          key: context.idempotencyKey,
          attempt: context.attempt,
          committed: row.execution,
          entries: Number(entries[0].total),
        })
        if (state.notifyFails > 0) {
          state.notifyFails--
          throw new Error(`notify failed for ${data.amount}`)
        }
      },
    },
    handle: async ({ amount, effect }, { trx, idempotencyKey, after }) => {
      starts.push(idempotencyKey)
      await trx.insertQuery().table('bank_ledger').insert({ amount, key: idempotencyKey })
      const failure = state.failWith.shift()
      if (failure) throw failure
      after((effect ?? 'notify') as 'notify', { amount })
      return `moved ${amount}`
    },
  })
  return { transfer, starts, deliveries, state }
}

function agentWith(
  tools: ReturnType<typeof defineTool>[],
  steps: Parameters<typeof scriptedModel>[0]
) {
  return defineAgent({ name: 'banker', model: scriptedModel(steps), instructions: 'Bank.', tools })
}

/** A statement as `<verb> <table>` */
function shape(sql: string): string {
  const verb = sql.trim().split(/\s/)[0]
  const table = /(?:into|update|from)\s+[`"]?(\w+)/.exec(sql)?.[1] ?? ''
  return `${verb} ${table}`.trim()
}

test.group(`Transactional actions | ${dbName()}`, (group) => {
  let db: Database
  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    await db.connection().schema.dropTableIfExists('bank_ledger')
    await db.connection().schema.createTable('bank_ledger', (table) => {
      table.increments('id')
      table.integer('amount').notNullable()
      table.string('key', 36).notNullable()
    })
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    await db.from('bank_ledger').delete()
  })

  test('the handler writes, the row is marked and the effect recorded in one transaction; the effect runs after its commit', async ({
    assert,
  }) => {
    const { transfer, starts, deliveries } = bank(db)
    const agents = createAgents({
      agents: [agentWith([transfer], [[call('t1', 'transfer', { amount: 5 })], [say('Done.')]])],
    })
    let runId = ''
    const statements = await statementsOf(db, async () => {
      const run = await agents.start('banker', { input: 'move 5', owner: 'u1' })
      runId = run.id
      await agents.idle()
    })

    const [row] = await rowsOf(runId)
    assert.equal(row.execution, 'succeeded')
    assert.isTrue(row.transactional)
    assert.equal(row.executionAttempts, 1)
    assert.equal(row.idempotencyKey, callKey(runId, 1, 't1'))
    assert.deepEqual(starts, [row.idempotencyKey])
    assert.deepEqual(row.result, { value: 'moved 5' })
    assert.isNotNull(row.startedAt)
    assert.isNotNull(row.executedAt)

    // The ledger entry's transaction is the one that claimed and marked the row and wrote the effect
    const insert = statements.find((statement) => shape(statement.sql) === 'insert bank_ledger')!
    assert.isDefined(insert.__knexTxId)
    const inTransaction = statements
      .filter((statement) => statement.__knexTxId === insert.__knexTxId)
      .map((statement) => shape(statement.sql))
      .filter((statement) => /agent_|bank_/.test(statement))
    assert.deepEqual(inTransaction, [
      'update agent_tool_calls',
      'insert bank_ledger',
      'update agent_tool_calls',
      'insert agent_effects',
    ])
    // Outside it, one update of the row: the count of starts, before the transaction
    const rowUpdates = statements.filter(
      (statement) => shape(statement.sql) === 'update agent_tool_calls'
    )
    assert.lengthOf(rowUpdates, 3)
    assert.isUndefined(rowUpdates[0].__knexTxId)
    assert.match(rowUpdates[0].sql, /execution_attempts/)

    // Delivered once, after the commit, with the effect's own key
    const [effect] = await AgentEffect.query().where('row_id', row.id)
    assert.equal(effect.status, 'done')
    assert.equal(effect.idempotencyKey, effectKey(row.idempotencyKey!, 0))
    assert.deepEqual(deliveries, [
      { key: effect.idempotencyKey, attempt: 1, committed: 'succeeded', entries: 1 },
    ])
  })

  test('a handler that throws leaves none of its writes: the call fails, no effect is recorded', async ({
    assert,
  }) => {
    const { transfer, starts, deliveries, state } = bank(db)
    state.failWith.push(new Error('Insufficient funds'))
    const model = scriptedModel([[call('t1', 'transfer', { amount: 7 })], [say('Could not.')]])
    const agents = createAgents({
      agents: [defineAgent({ name: 'banker', model, instructions: 'Bank.', tools: [transfer] })],
    })
    const run = await agents.start('banker', { input: 'move 7', owner: 'u1' })
    await agents.idle()

    const [row] = await rowsOf(run.id)
    assert.equal(row.execution, 'failed')
    assert.deepEqual(row.result, { error: 'Insufficient funds' })
    assert.equal(row.executionAttempts, 1)
    assert.lengthOf(starts, 1)
    assert.lengthOf(await db.from('bank_ledger'), 0, 'its insert rolled back')
    assert.lengthOf(await AgentEffect.query().where('row_id', row.id), 0)
    assert.deepEqual(deliveries, [])
    const read = toolResultOf(model.doGenerateCalls[1], 't1')
    assert.equal(read.type, 'error-text')
    assert.include(read.value, 'Insufficient funds')
  })

  test('a passing database error rolls the start back and the retried drive runs it again, with the same key', async ({
    assert,
  }) => {
    const { transfer, starts, state } = bank(db)
    // What a deadlock looks like to the driver (PostgreSQL's code; SQLite's and MySQL's are alike)
    state.failWith.push(Object.assign(new Error('deadlock detected'), { code: '40P01' }))
    const agents = createAgents({
      agents: [agentWith([transfer], [[call('t1', 'transfer', { amount: 9 })], [say('Done.')]])],
    })
    const run = await agents.start('banker', { input: 'move 9', owner: 'u1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    const [row] = await rowsOf(run.id)
    assert.equal(row.execution, 'succeeded')
    assert.equal(row.executionAttempts, 2, 'two starts, the first rolled back')
    assert.deepEqual(starts, [row.idempotencyKey, row.idempotencyKey])
    const ledger = await db.from('bank_ledger')
    assert.deepEqual(
      ledger.map((entry) => [entry.amount, entry.key]),
      [[9, row.idempotencyKey]]
    )
  })

  test('an effect that fails is delivered again by recovery with the same key, until it is given up', async ({
    assert,
  }) => {
    const { transfer, deliveries, state } = bank(db)
    state.notifyFails = 1
    const agents = createAgents({
      agents: [
        agentWith(
          [transfer],
          [
            [call('t1', 'transfer', { amount: 1 })],
            [call('t2', 'transfer', { amount: 2 })],
            [say('Done.')],
            // The second run's
            [call('t1', 'transfer', { amount: 1 })],
            [say('Done.')],
          ]
        ),
      ],
      effectRetry: { backoff: 1, attempts: 2 },
    })
    const run = await agents.start('banker', { input: 'move', owner: 'u1' })
    await agents.idle()

    // The run went on; the first call's effect waits for its retry
    await run.refresh()
    assert.equal(run.status, 'completed')
    const [first, second] = await rowsOf(run.id)
    const [effect] = await AgentEffect.query().where('row_id', first.id)
    assert.equal(effect.status, 'pending')
    assert.equal(effect.lastError, 'notify failed for 1')

    // Recovery delivers it once its wait is over (1 ms), with the same key
    const untilSettled = async (pending: AgentEffect) => {
      while (pending.status === 'pending') {
        await agents.recover()
        await agents.idle()
        await pending.refresh()
      }
    }
    await untilSettled(effect)
    assert.equal(effect.status, 'done')
    assert.equal(effect.attempts, 2)
    assert.isNull(effect.lastError)
    const [secondEffect] = await AgentEffect.query().where('row_id', second.id)
    assert.deepEqual(
      deliveries.map((delivery) => [delivery.key, delivery.attempt]),
      [
        [effect.idempotencyKey, 1],
        [secondEffect.idempotencyKey, 1],
        [effect.idempotencyKey, 2],
      ]
    )

    // One that keeps failing is given up after its attempts, with its last error
    state.notifyFails = 2
    const again = await agents.start('banker', { input: 'move', owner: 'u1' })
    await agents.idle()
    const [failing] = await rowsOf(again.id)
    const [given] = await AgentEffect.query().where('row_id', failing.id)
    await untilSettled(given)
    assert.equal(given.status, 'failed')
    assert.equal(given.attempts, 2)
    assert.equal(given.lastError, 'notify failed for 1')
  })

  test('an effect the tool does not have fails the call and rolls its writes back', async ({
    assert,
  }) => {
    const { transfer } = bank(db)
    const agents = createAgents({
      agents: [
        agentWith(
          [transfer],
          [[call('t1', 'transfer', { amount: 3, effect: 'nope' })], [say('Done.')]]
        ),
      ],
    })
    const run = await agents.start('banker', { input: 'move 3', owner: 'u1' })
    await agents.idle()
    const [row] = await rowsOf(run.id)
    assert.equal(row.execution, 'failed')
    assert.include((row.result as { error: string }).error, 'has no effect "nope"')
    assert.lengthOf(await db.from('bank_ledger'), 0)
  })

  test('every handler gets its call key: reads and plain actions too, the same per call, another per run and attempt', async ({
    assert,
  }) => {
    const seen: Array<[string, ToolContext]> = []
    const look = defineTool({
      name: 'look',
      description: 'Look',
      kind: 'read',
      input: vine.object({}),
      handle: (_input, context) => void seen.push(['look', context]),
    })
    const ship = defineTool({
      name: 'ship',
      description: 'Ship',
      kind: 'action',
      input: vine.object({}),
      handle: (_input, context) => void seen.push(['ship', context]),
    })
    const script = () => [[call('c1', 'look', {}), call('c2', 'ship', {})], [say('Done.')]]
    const agents = createAgents({
      agents: [
        defineAgent({
          name: 'shipper',
          model: scriptedModel([...script(), ...script()]),
          instructions: 'Ship.',
          tools: [look, ship],
        }),
      ],
    })
    const runs = []
    for (const input of ['one', 'two']) {
      const run = await agents.start('shipper', { input, owner: 'u1' })
      await agents.idle()
      const [, shipRow] = await rowsOf(run.id)
      await agents.inbox.settle(shipRow.id, { approved: true }, { by: 'ada', via: 'web' })
      await agents.idle()
      runs.push({ run, shipRow: await ToolCall.findOrFail(shipRow.id) })
    }

    assert.deepEqual(
      seen.map(([name, context]) => [name, context.idempotencyKey]),
      runs.flatMap(({ run }) => [
        ['look', callKey(run.id, 1, 'c1')],
        ['ship', callKey(run.id, 1, 'c2')],
      ])
    )
    assert.lengthOf(new Set(seen.map(([, context]) => context.idempotencyKey)), 4)
    for (const { run, shipRow } of runs) {
      assert.equal(shipRow.execution, 'succeeded')
      assert.isFalse(shipRow.transactional)
      assert.equal(shipRow.idempotencyKey, callKey(run.id, 1, 'c2'), 'stored with the row')
      assert.equal(shipRow.executionAttempts, 1)
    }
    // The handler is told who approved it; a read batched with its response has no row yet
    const [, shipped] = seen[1]
    assert.deepEqual(
      { ...shipped.row!, approvedAt: typeof shipped.row!.approvedAt },
      {
        id: runs[0].shipRow.id,
        sequence: 2,
        approvedBy: 'ada',
        approvedVia: 'web',
        approvedAt: 'object',
      }
    )
    assert.isNull(seen[0][1].row)
    assert.deepEqual(shipped.run, {
      id: runs[0].run.id,
      agent: 'shipper',
      ownerId: 'u1',
      attempt: 1,
      input: 'one',
    })
    // A key is shaped as a UUID (version 8), within what payment APIs accept
    assert.match(
      shipped.idempotencyKey,
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    )
    assert.notEqual(callKey(runs[0].run.id, 2, 'c2'), callKey(runs[0].run.id, 1, 'c2'))
  })

  test('only actions are transactional, and only transactional actions have effects', ({
    assert,
  }) => {
    const input = vine.object({})
    assert.throws(
      () =>
        defineTool({
          name: 'peek',
          description: 'Peek',
          kind: 'read' as 'action',
          transactional: true,
          input,
          handle: () => null,
        }),
      'Tool "peek": only an action can be transactional (a read has no writes to commit)'
    )
    assert.throws(
      () =>
        defineTool({
          name: 'send',
          description: 'Send',
          kind: 'action',
          input,
          ...({ effects: { mail: () => null } } as object),
          handle: () => null,
        }),
      'Tool "send": effects follow a commit, so they need `transactional: true`'
    )
  })
})
