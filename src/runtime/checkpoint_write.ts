/*
 * How a checkpoint reaches the database: the lease's fence (an update of
 * the run row that matches only while this driver holds the lease), the
 * journal entries and the tool-call rows of one step, all or nothing.
 *
 * - PostgreSQL: one statement. The fence is a data-modifying CTE and the
 *   inserts read their rows from one JSON parameter each
 *   (`jsonb_populate_recordset` over the table's own row type), guarded by
 *   `exists (select from fence)`: one round trip, committed by itself.
 * - SQLite and MySQL have no writes in CTEs: a transaction whose first
 *   statement is the fence, then the inserts. On better-sqlite3 the
 *   transaction runs on the driver itself, its statements prepared once
 *   (src/persistence/sqlite_writes.ts); elsewhere through knex, one
 *   multi-row insert per table.
 *
 * The unique keys on (run, sequence) and (run, key) stay the guard against
 * a second writer on every database: a clash fails the whole checkpoint.
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { affectedRows } from '../persistence/prepared_columns.ts'
import { transaction } from '../persistence/transaction.ts'
import { insertRows, isBetterSqlite, sqliteWrite } from '../persistence/sqlite_writes.ts'

export type CheckpointWrite = {
  runId: string
  /** The lease owner the run row must name */
  owner: string
  /** Also require the run to be `running` (the fence); false for the audit of a run that ended */
  running: boolean
  /** Prepared columns the fence sets on the run row; they must change it (MySQL counts changed rows) */
  run: Record<string, unknown>
  /** Prepared columns of the journal entries */
  journal: Record<string, unknown>[]
  /** Prepared columns of the tool-call rows */
  calls: Record<string, unknown>[]
  /** Called before the write can commit (crash tests) */
  beforeCommit?: () => void | Promise<void>
}

/**
 * Writes a checkpoint as the module comment says. False, having written
 * nothing, when the fence did not match.
 */
export async function writeCheckpoint(write: CheckpointWrite): Promise<boolean> {
  const client = AgentRun.$adapter.modelConstructorClient(AgentRun)
  if (client.dialect.name === 'postgres') {
    await write.beforeCommit?.()
    return writeInOneStatement(client, write)
  }
  if (isBetterSqlite(client)) return writeOnSqlite(client, write)
  return transaction(AgentRun, async (trx) => {
    const fence = trx
      .from(AgentRun.table)
      .where('id', write.runId)
      .where('lease_owner', write.owner)
    if (write.running) fence.where('status', 'running')
    if (affectedRows(await fence.update(write.run)) !== 1) return false
    if (write.journal.length > 0) {
      await trx.insertQuery().table(JournalRow.table).multiInsert(write.journal)
    }
    if (write.calls.length > 0) {
      await trx.insertQuery().table(ToolCall.table).multiInsert(write.calls)
    }
    await write.beforeCommit?.()
    return true
  })
}

/**
 * better-sqlite3: the fence and the inserts in one immediate transaction
 * of prepared statements.
 */
function writeOnSqlite(client: QueryClientContract, write: CheckpointWrite) {
  return sqliteWrite(
    client,
    (writer) => {
      const sets = Object.keys(write.run)
      const fenced = writer.run(
        `update "${AgentRun.table}" set ${sets.map((name) => `"${name}" = ?`).join(', ')} where "id" = ? and "lease_owner" = ?${write.running ? ` and "status" = 'running'` : ''}`,
        [...Object.values(write.run), write.runId, write.owner]
      )
      if (fenced !== 1) return false
      insertRows(writer, JournalRow.table, write.journal)
      insertRows(writer, ToolCall.table, write.calls)
      return true
    },
    (fenced) => (fenced ? write.beforeCommit?.() : undefined)
  )
}

/**
 * PostgreSQL: the fence and both inserts in one statement.
 */
async function writeInOneStatement(client: QueryClientContract, write: CheckpointWrite) {
  const sets = Object.keys(write.run)
  const bindings: unknown[] = []
  const sql: string[] = []

  sql.push(`with fence as (update ?? set ${sets.map(() => '?? = ?').join(', ')}`)
  bindings.push(AgentRun.table, ...sets.flatMap((name) => [name, write.run[name]]))
  sql.push(`where id = ? and lease_owner = ?${write.running ? ` and status = 'running'` : ''}`)
  sql.push('returning id)')
  bindings.push(write.runId, write.owner)

  for (const [table, rows] of [
    [JournalRow.table, write.journal],
    [ToolCall.table, write.calls],
  ] as const) {
    if (rows.length === 0) continue
    const columns = Object.keys(rows[0])
    const list = columns.map(() => '??').join(', ')
    sql.push(`, ${table.replace(/\W/g, '_')}_rows as (insert into ?? (${list})`)
    sql.push(`select ${list} from jsonb_populate_recordset(null::??, ?::jsonb)`)
    sql.push('where exists (select 1 from fence))')
    bindings.push(table, ...columns, ...columns, table, JSON.stringify(rows))
  }
  sql.push('select count(*)::int as fenced from fence')

  const result = await client.rawQuery(sql.join(' '), bindings as any[])
  return Number(result.rows[0]?.fenced) === 1
}
