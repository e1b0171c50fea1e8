/*
 * The inbox's queries are served by their indexes, on a table where most
 * rows are a run's read tools: the queries the package itself sends (the
 * pending and settled listings, the expiry sweep) are caught on the
 * connection and explained by the database. On PostgreSQL and SQLite the
 * inbox, expiry and history indexes are partial, so this also proves each
 * query carries its index's predicate.
 */

import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { analyzeTables, planOf, statementsOf, type SentStatement } from '../helpers/statements.ts'
import { DB_QUESTION } from '../helpers/runtime.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { listRows } from '../../src/inbox/list.ts'
import { sweepDue } from '../../src/inbox/expiry.ts'
import { pendingByKind } from '../../src/telemetry/gauges.ts'

type Sent = SentStatement

/** The SELECTs on agent_tool_calls that `work` sends */
async function selectsOf(db: Database, work: () => Promise<unknown>): Promise<Sent[]> {
  const sent = await statementsOf(db, work)
  return sent.filter((query) => /^select .* from "?`?agent_tool_calls/i.test(query.sql))
}

/** 6,000 rows of 60 runs: mostly read tools, some pending (half with expiry), some settled */
async function seed(db: Database) {
  const runs = []
  for (let index = 0; index < 60; index++) {
    runs.push(await AgentRun.create({ agent: 'planner', ownerId: 'user:1', status: 'waiting' }))
  }
  const probe = new ToolCall()
  const start = DateTime.fromISO('2026-01-01T00:00:00Z')
  const rows = []
  for (let index = 0; index < 6000; index++) {
    const at = start.plus({ seconds: index })
    const status = index % 20 === 0 ? 'pending' : index % 20 === 1 ? 'answered' : 'auto'
    rows.push({
      id: randomUUID(),
      run_id: runs[index % runs.length].id,
      sequence: Math.floor(index / runs.length) + 1,
      attempt: 1,
      tool_call_id: `call_${index}`,
      tool_name: status === 'auto' ? 'lookup' : 'ask',
      kind: status === 'auto' ? 'read' : 'ask',
      status,
      owner_id: `user:${index % 30}`,
      request: JSON.stringify(DB_QUESTION),
      on_expiry: 'defaults',
      ...preparedColumns(probe, {
        createdAt: at,
        updatedAt: at,
        settledAt: status === 'answered' ? at.plus({ minutes: 1 }) : null,
        expiresAt: status === 'pending' && index % 40 === 0 ? at.plus({ days: 400 }) : null,
      }),
    })
  }
  await insertAnalyzed(db, rows)
}

/** Inserts rows of agent_tool_calls, then has the database gather the table's statistics */
async function insertAnalyzed(db: Database, rows: Record<string, unknown>[]) {
  for (let offset = 0; offset < rows.length; offset += 400) {
    await db.table('agent_tool_calls').multiInsert(rows.slice(offset, offset + 400))
  }
  await analyzeTables(db, ['agent_tool_calls'])
}

test.group(`Index plans | ${dbName()}`, (group) => {
  let db: Database
  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    await seed(db)
    return () => testApp.terminate()
  })

  test('a person’s pending rows are read through the inbox index', async ({ assert }) => {
    const sent = await selectsOf(db, async () => {
      const page = await listRows({ status: 'pending', ownerId: 'user:0', limit: 20 })
      assert.lengthOf(page.rows, 20)
    })
    assert.lengthOf(sent, 1)
    assert.include(await planOf(db, sent[0]), 'agent_tool_calls_inbox_index')
  })

  test('a person’s settled history is read through the history index', async ({ assert }) => {
    const sent = await selectsOf(db, async () => {
      const page = await listRows({ status: 'settled', ownerId: 'user:1', limit: 20 })
      assert.lengthOf(page.rows, 20)
    })
    assert.lengthOf(sent, 1)
    assert.include(await planOf(db, sent[0]), 'agent_tool_calls_history_index')
  })

  test('the expiry sweep finds due rows through the expiry index', async ({ assert }) => {
    /*
     * Rows are due: the sweep selects them, then its batch is rolled back
     * (onWrite throws inside the transaction), so they are still pending
     * and due when the statements are explained
     */
    const sent = await selectsOf(db, async () => {
      await assert.rejects(
        () =>
          sweepDue({
            now: DateTime.fromISO('2027-03-01T00:00:00Z'),
            onWrite: () => {
              throw new Error('rolled back')
            },
          }),
        'rolled back'
      )
    })
    assert.isAbove(sent.length, 1)
    for (const statement of sent) {
      assert.include(await planOf(db, statement), 'agent_tool_calls_expiry_index')
    }
  })

  test('the metrics’ pending gauges read the pending rows through an index of pending rows', async ({
    assert,
  }) => {
    const sent = await selectsOf(db, async () => {
      const [pending] = await pendingByKind()
      assert.equal(Number(pending.total), 300)
    })
    assert.lengthOf(sent, 1)
    // An index of pending rows alone (the inbox's, the console's) serves it; MySQL's hold every row,
    // each of these leading with the status: any of them searches it
    const used =
      db.connection().dialect.name === 'mysql'
        ? /_(inbox|expiry|ladder|waiting)_index/
        : /_(inbox|waiting)_index/
    const plan = await planOf(db, sent[0])
    assert.match(plan, used, plan)
  })
})

/*
 * Where the inbox index is partial it holds only pending rows, and
 * PostgreSQL then leaves `status = 'pending'` out of the index search: an
 * index that led with the status column was read whole for one person's
 * page. So a page is timed in index and table pages read, among 20,000
 * other pending rows: a search by the owner reads a few.
 */
test.group(`Index plans | many people's pending rows | ${dbName()}`, (group) => {
  let db: Database
  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    const run = await AgentRun.create({ agent: 'planner', ownerId: 'user:1', status: 'waiting' })
    const probe = new ToolCall()
    const start = DateTime.fromISO('2026-01-01T00:00:00Z')
    const rows = Array.from({ length: 20_000 }, (_, index) => ({
      id: randomUUID(),
      run_id: run.id,
      sequence: index + 1,
      attempt: 1,
      tool_call_id: `call_${index}`,
      tool_name: 'ask',
      kind: 'ask',
      status: 'pending',
      // user:1 has one row in a thousand, the first 20 of the table
      owner_id: index % 1000 === 0 ? 'user:1' : `user:other:${index % 997}`,
      request: JSON.stringify(DB_QUESTION),
      on_expiry: 'defaults',
      ...preparedColumns(probe, { createdAt: start.plus({ seconds: index }) }),
      updated_at: preparedColumns(probe, { updatedAt: start }).updated_at,
    }))
    await insertAnalyzed(db, rows)
    return () => testApp.terminate()
  })

  test('a person’s page of pending rows searches the inbox index by the person', async ({
    assert,
  }) => {
    const sent = await selectsOf(db, async () => {
      const page = await listRows({ status: 'pending', ownerId: 'user:1', limit: 20 })
      assert.lengthOf(page.rows, 20)
    })
    assert.lengthOf(sent, 1)
    const [{ sql, bindings }] = sent
    const dialect = db.connection().dialect.name
    if (dialect === 'postgres') {
      const plan = await planOf(db, sent[0], 'explain (analyze, buffers)')
      assert.include(plan, 'agent_tool_calls_inbox_index')
      // The first Buffers line is the whole statement's: the index read whole is ~100 pages
      const [, hit, read] = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(plan) ?? []
      assert.isBelow(Number(hit ?? 0) + Number(read ?? 0), 40, plan)
    } else if (dialect === 'mysql') {
      const [plan] = await db.rawQuery(`explain ${sql}`, bindings as any[])
      // With no partial indexes, an index that leads with the owner (inbox or history) serves it
      assert.match(plan[0].key, /^agent_tool_calls_(inbox|history)_index$/)
      assert.isBelow(Number(plan[0].rows), 200, 'rows the search examines')
    } else {
      const plan = await planOf(db, sent[0])
      assert.match(
        plan,
        /SEARCH agent_tool_calls USING INDEX agent_tool_calls_inbox_index \(owner_id=\?/
      )
    }
  })
})
