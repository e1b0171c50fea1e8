/*
 * PostgreSQL's guarded writes (src/persistence/pg_guarded.ts) find their
 * rows by key whatever the statistics say. The trap: statistics taken when
 * no run was running (or a table never analyzed) call `status = 'running'`
 * rare, and the planner then reaches the row through the status's index,
 * reading every running run, in a named statement's generic plan kept for
 * the connection's life; likewise the partial index of pending rows for a
 * settle. The statements the package builds are explained here as their
 * generic plans, on such a table. PostgreSQL only: SQLite and MySQL look
 * a row up by its primary key first whatever else the statement says.
 */

import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { DB_QUESTION } from '../helpers/runtime.ts'
import { analyzeTables } from '../helpers/statements.ts'
import { pgGuardedStatement, pgSharedStatement } from '../../src/persistence/pg_guarded.ts'
import type { GuardedWrite } from '../../src/persistence/guarded_write.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'

const OWNER = 'driver:a'

/** `count` rows of `table`, `row(index)` each, in batches */
async function insert(db: Database, table: string, count: number, row: (index: number) => object) {
  const rows = Array.from({ length: count }, (_, index) => row(index))
  for (let offset = 0; offset < rows.length; offset += 400) {
    await db.table(table).multiInsert(rows.slice(offset, offset + 400))
  }
}

/**
 * 2,000 finished runs with a row each, analyzed; then 300 running runs
 * with a pending row each, which the statistics do not know of.
 */
async function seed(db: Database) {
  const now = preparedColumns(new AgentRun(), {
    createdAt: DateTime.now(),
    updatedAt: DateTime.now(),
  })
  const run = (status: string) => (index: number) => ({
    id: randomUUID(),
    agent: 'stepper',
    status,
    input: `run ${index}`,
    lease_owner: status === 'running' ? OWNER : null,
    ...now,
  })
  const row = (runs: string[], status: string) => (index: number) => ({
    id: randomUUID(),
    run_id: runs[index],
    sequence: 1,
    attempt: 1,
    tool_name: 'ask',
    kind: 'ask',
    status,
    owner_id: 'user:1',
    request: JSON.stringify(DB_QUESTION),
    on_expiry: 'defaults',
    ...now,
  })
  await insert(db, AgentRun.table, 2000, run('completed'))
  const finishedRuns = await db.from(AgentRun.table).select('id')
  const finished = finishedRuns.map((each) => each.id)
  await insert(db, ToolCall.table, 2000, row(finished, 'answered'))
  await analyzeTables(db, [AgentRun.table, ToolCall.table])
  await insert(db, AgentRun.table, 300, run('running'))
  const running = await db.from(AgentRun.table).where('status', 'running').select('id')
  await insert(
    db,
    ToolCall.table,
    300,
    row(
      running.map((each) => each.id),
      'pending'
    )
  )
}

/** The generic plan PostgreSQL keeps for `sql` on a connection, with `values` */
async function genericPlan(db: Database, [sql, values]: [string, unknown[]]) {
  return db.transaction(async (trx) => {
    await trx.rawQuery('set local plan_cache_mode = force_generic_plan')
    const name = `plan_${randomUUID().replaceAll('-', '')}`
    await trx.rawQuery(`prepare ${name} as ${sql}`)
    // As the pg driver sends them: a date as ISO text, an array as an array literal
    const text = (value: unknown): string =>
      value instanceof Date
        ? value.toISOString()
        : Array.isArray(value)
          ? `{${value.map((item) => `"${text(item)}"`).join(',')}}`
          : String(value)
    const literals = values.map((value) =>
      value === null ? 'null' : `'${text(value).replaceAll("'", "''")}'`
    )
    const result = await trx.rawQuery(`explain execute ${name}(${literals.join(', ')})`)
    await trx.rawQuery(`deallocate ${name}`)
    return result.rows.map((line: Record<string, string>) => line['QUERY PLAN']).join('\n')
  })
}

/** A checkpoint's guarded write of run `id`: fenced by the lease this driver holds */
function checkpointOf(id: string): GuardedWrite {
  return {
    model: AgentRun,
    set: { journal_length: 1 },
    where: [['id = ?', id], ['lease_owner = ?', OWNER], ["status = 'running'"]],
    inserts: [],
  }
}

if (dbName() === 'pg') {
  test.group('PostgreSQL guarded writes find their row by key', (group) => {
    let db: Database
    group.setup(async () => {
      const testApp = await createTestApp()
      db = testApp.db
      await seed(db)
      return () => testApp.terminate()
    })

    test("a run's checkpoint, alone and shared, whatever the statistics say of running runs", async ({
      assert,
    }) => {
      const running = await db.from(AgentRun.table).where('status', 'running').limit(3)
      const ids = running.map((run) => run.id)
      const alone = await genericPlan(db, pgGuardedStatement(checkpointOf(ids[0]), []))
      assert.include(alone, 'Index Scan using agent_runs_pkey')
      assert.notInclude(alone, 'agent_runs_status')

      const members = ids.map((id) => ({ write: checkpointOf(id), inserts: [] }))
      // Shared, the members' keys are looked up in the primary key (a bitmap of them, or one by one)
      const shared = await genericPlan(db, pgSharedStatement(members))
      assert.match(shared, /Index Scan (using|on) agent_runs_pkey/)
      assert.notInclude(shared, 'agent_runs_status')
    })

    test("a settle's write does not read the pending rows' partial indexes", async ({ assert }) => {
      const [row] = await db.from(ToolCall.table).where('status', 'pending').limit(1)
      const now = preparedColumns(new ToolCall(), { updatedAt: DateTime.now() })
      const settle: GuardedWrite = {
        model: ToolCall,
        set: { status: 'answered', ...now },
        where: [
          ['id = ?', row.id],
          ["status = 'pending'"],
          ['(expires_at is null or expires_at > ?)', now.updated_at],
          ['ladder_step = ?', 0],
        ],
        inserts: [],
      }
      const plan = await genericPlan(db, pgGuardedStatement(settle, []))
      assert.include(plan, 'Index Scan using agent_tool_calls_pkey')
      assert.notMatch(plan, /agent_tool_calls_(pending|waiting|inbox)/)
    })
  })
}
