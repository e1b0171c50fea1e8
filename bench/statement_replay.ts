/*
 * What a crowd's statements cost this process alone: every statement the
 * package sent while some runs went (knex's and those it runs on the
 * driver, ../src/persistence/driver_statements.ts), with its bindings, sent
 * again on the same tables after the runs' rows were deleted, with nothing
 * around them: no model, no runtime, no query building. The rows it leaves
 * are checked against those the runs left, so a replay that wrote
 * something else fails instead of printing a floor.
 *
 * Each driver is replayed as the package reaches it: SQLite on one
 * better-sqlite3 connection (its writes are synchronous, in group commits
 * whose BEGIN, SAVEPOINTs and COMMIT are captured like any statement);
 * PostgreSQL as named statements, those sent in the same turn of the event
 * loop sent together again, as they were independent; MySQL on one
 * connection in the order sent (its transactions span several statements,
 * and mysql2 sends one statement at a time on a connection anyway).
 */

import type { Database } from '@adonisjs/lucid/database'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { sqlDiagnostics } from '../src/persistence/driver_statements.ts'
import { isBetterSqlite, sqliteValue } from '../src/persistence/sqlite_writes.ts'
import { pgNamed } from '../src/persistence/pg_writes.ts'
import { isMysql2 } from '../src/persistence/mysql_writes.ts'

export type Captured = {
  sql: string
  bindings: readonly unknown[]
  /** Sent as a prepared statement on the driver (pg named, mysql2 execute, better-sqlite3) */
  prepared: boolean
  /** The turn of the event loop it was sent in */
  turn: number
}

/** The tables a run writes, children first */
const RUN_TABLES = [
  ['agent_tool_calls', 'run_id'],
  ['agent_run_journal', 'run_id'],
  ['agent_runs', 'id'],
] as const

/**
 * Runs `work`, keeping every statement sent meanwhile on `db`'s default
 * connection, in order.
 */
export async function captureStatements<T>(db: Database, work: () => Promise<T>) {
  const captured: Captured[] = []
  let turn = 0
  let turning = false
  const keep = (sql: string, bindings: readonly unknown[] | undefined, prepared: boolean) => {
    if (!turning) {
      turning = true
      setImmediate(() => {
        turning = false
        turn++
      })
    }
    captured.push({ sql, bindings: bindings ?? [], prepared, turn })
  }
  const fromKnex = (query: { sql: string; bindings?: unknown[] }) =>
    keep(query.sql, query.bindings, false)
  const fromDriver = (message: unknown) => {
    const { sql, bindings, prepared } = message as {
      sql: string
      bindings: unknown[]
      prepared?: boolean
    }
    keep(sql, bindings, prepared !== undefined)
  }
  const knex = db.connection().getWriteClient()
  knex.on('query', fromKnex)
  sqlDiagnostics.subscribe(fromDriver)
  try {
    return { result: await work(), captured }
  } finally {
    knex.removeListener('query', fromKnex)
    sqlDiagnostics.unsubscribe(fromDriver)
  }
}

/** What the run tables hold for `runIds`: rows of each, runs by status, journal lengths */
export async function runRowsDigest(client: QueryClientContract, runIds: string[]) {
  const counts: Record<string, unknown> = {}
  for (const [table, key] of RUN_TABLES) {
    const [row] = await client.from(table).whereIn(key, runIds).count('* as total')
    counts[table] = Number(row.total)
  }
  const statuses = await client
    .from('agent_runs')
    .whereIn('id', runIds)
    .select('status')
    .count('* as total')
    .sum('journal_length as journal')
    .groupBy('status')
    .orderBy('status')
  counts.runs = statuses.map((row) => `${row.status}:${Number(row.total)}:${Number(row.journal)}`)
  return JSON.stringify(counts)
}

/** Deletes the rows `runIds` wrote, so their statements can be sent again */
export async function deleteRunRows(client: QueryClientContract, runIds: string[]) {
  for (let start = 0; start < runIds.length; start += 500) {
    const ids = runIds.slice(start, start + 500)
    for (const [table, key] of RUN_TABLES) await client.from(table).whereIn(key, ids).delete()
  }
}

/** Sends `captured` again on `client`, as the module comment says */
export async function replayStatements(client: QueryClientContract, captured: Captured[]) {
  const pool = client.getWriteClient().client
  if (isBetterSqlite(client)) {
    const connection = await pool.acquireConnection()
    try {
      replaySqlite(connection, captured)
    } finally {
      await pool.releaseConnection(connection)
    }
    return
  }
  if (client.dialect.name === 'postgres') {
    for (let start = 0; start < captured.length;) {
      let end = start + 1
      while (end < captured.length && captured[end].turn === captured[start].turn) end++
      await Promise.all(
        captured.slice(start, end).map(({ sql, bindings }) => pgNamed(client, sql, bindings))
      )
      start = end
    }
    return
  }
  if (isMysql2(client)) {
    const connection = await pool.acquireConnection()
    try {
      for (const statement of captured) await sendMysql(connection, statement)
    } finally {
      await pool.releaseConnection(connection)
    }
    return
  }
  throw new Error(`No replay for the ${client.dialect.name} dialect`)
}

type SqliteStatement = {
  reader: boolean
  run(...values: unknown[]): unknown
  all(...values: unknown[]): unknown
}

function replaySqlite(connection: { prepare(sql: string): SqliteStatement }, captured: Captured[]) {
  const statements = new Map<string, SqliteStatement>()
  for (const { sql, bindings } of captured) {
    let statement = statements.get(sql)
    if (!statement) {
      statement = connection.prepare(sql)
      statements.set(sql, statement)
    }
    // The driver's statements were published with their bindings converted; knex's as given
    const values = bindings.map(sqliteValue)
    if (statement.reader) statement.all(...values)
    else statement.run(...values)
  }
}

type MysqlCallback = (error: Error | null) => void
type MysqlConnection = {
  execute(sql: string, values: readonly unknown[], callback: MysqlCallback): void
  query(sql: string, values: readonly unknown[], callback: MysqlCallback): void
}

function sendMysql(connection: MysqlConnection, { sql, bindings, prepared }: Captured) {
  return new Promise<void>((resolve, reject) => {
    const done: MysqlCallback = (error) => (error ? reject(error) : resolve())
    if (prepared) connection.execute(sql, bindings, done)
    else connection.query(sql, bindings, done)
  })
}
