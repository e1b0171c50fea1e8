/*
 * Write transactions straight on better-sqlite3, for the driver's
 * checkpoint (src/runtime/checkpoint_write.ts), and the statements it runs
 * when it takes a run (the lease, the run's journal and rows). Through knex, each of a
 * checkpoint's statements is built, compiled and prepared anew by SQLite,
 * which costs more than running it: here the connection is taken from the
 * same knex pool (so it is the app's connection, with its pragmas, and no
 * other query runs on it meanwhile), each statement is prepared once per
 * connection and kept, and the transaction is `BEGIN IMMEDIATE`, so the
 * write lock is taken, or waited for (`busy_timeout`), before anything is
 * read. Writes asked for in the same turn of the event loop share one
 * transaction and one COMMIT (`sqliteWrite`). Bindings are converted as
 * knex's better-sqlite3 client does. Each statement is published as
 * ./driver_statements.ts says.
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { insertStatements, sqlDiagnostics } from './driver_statements.ts'

type Statement = {
  run(...bindings: unknown[]): { changes: number }
  all(...bindings: unknown[]): Record<string, unknown>[]
}
type Connection = { prepare(sql: string): Statement; inTransaction: boolean }

/** What the transaction's work gets: one statement at a time, prepared once */
export type SqliteWriter = {
  /** Runs a statement; returns the rows it changed */
  run(sql: string, bindings: unknown[]): number
  /** Runs a statement; returns its rows (a write's `returning`) */
  all(sql: string, bindings: readonly unknown[]): Record<string, unknown>[]
}

const prepared = new WeakMap<Connection, Map<string, Statement>>()

/** `sql`'s statement on `connection`, prepared on first use (published with `prepared: true`) */
function statementOf(connection: Connection, sql: string, bindings: unknown[]): Statement {
  let statements = prepared.get(connection)
  if (!statements) {
    statements = new Map()
    prepared.set(connection, statements)
  }
  let statement = statements.get(sql)
  if (sqlDiagnostics.hasSubscribers) sqlDiagnostics.publish({ sql, bindings, prepared: !statement })
  if (!statement) {
    statement = connection.prepare(sql)
    statements.set(sql, statement)
  }
  return statement
}

/** A value as better-sqlite3 binds it, converted as knex's better-sqlite3 client does */
export function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null
  if (typeof value === 'boolean') return Number(value)
  if (value instanceof Date) return value.valueOf()
  return value
}

function runOn(connection: Connection, sql: string, bindings: unknown[] = []): number {
  const values = bindings.map(sqliteValue)
  return statementOf(connection, sql, values).run(...values).changes
}

function allOn(connection: Connection, sql: string, bindings: readonly unknown[]) {
  const values = bindings.map(sqliteValue)
  return statementOf(connection, sql, values).all(...values)
}

/**
 * Whether `client` talks to SQLite through better-sqlite3.
 */
export function isBetterSqlite(client: QueryClientContract): boolean {
  return client.dialect.name === 'better-sqlite3'
}

/**
 * Runs `work` in an immediate write transaction on a connection of
 * `client`'s pool; `beforeCommit` is awaited last, inside it, with what
 * `work` returned (crash tests). Committed when both return, rolled back when either throws.
 *
 * Without `beforeCommit`, the write joins the others asked for in the same
 * turn of the event loop: one transaction for all of them, each in a
 * savepoint of its own, so one that throws is undone alone, and one
 * COMMIT (group commit). Many runs checkpointing at once paid a COMMIT
 * each, and SQLite wrote each page they share to the WAL once per commit;
 * a lone write waits one turn of the loop. Each resolves once the COMMIT
 * is done; a COMMIT that fails rejects them all.
 *
 * @example
 * await sqliteWrite(client, (sql) => sql.run('update agent_runs set status = ? where id = ?', ['running', id]))
 */
export async function sqliteWrite<T>(
  client: QueryClientContract,
  work: (writer: SqliteWriter) => T,
  beforeCommit?: (result: T) => void | Promise<void>
): Promise<T> {
  const pool = client.getWriteClient().client
  if (!beforeCommit) return joinGroup(pool, work)
  const connection = (await pool.acquireConnection()) as Connection
  try {
    runOn(connection, 'BEGIN IMMEDIATE')
    try {
      const result = work(writerOn(connection))
      await beforeCommit(result)
      runOn(connection, 'COMMIT')
      return result
    } catch (error) {
      if (connection.inTransaction) runOn(connection, 'ROLLBACK')
      throw error
    }
  } finally {
    await pool.releaseConnection(connection)
  }
}

function writerOn(connection: Connection): SqliteWriter {
  return {
    run: (sql, bindings) => runOn(connection, sql, bindings),
    all: (sql, bindings) => allOn(connection, sql, bindings),
  }
}

type Pool = {
  acquireConnection(): Promise<unknown>
  releaseConnection(connection: unknown): Promise<unknown>
}
type Member = {
  work: (writer: SqliteWriter) => unknown
  resolve: (result: any) => void
  reject: (error: unknown) => void
}

/** The writes waiting for this turn's transaction, by pool */
const groups = new WeakMap<Pool, Member[]>()

function joinGroup<T>(pool: Pool, work: (writer: SqliteWriter) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let group = groups.get(pool)
    if (!group) {
      group = []
      groups.set(pool, group)
      setImmediate(() => void commitGroup(pool))
    }
    group.push({ work, resolve, reject })
  })
}

async function commitGroup(pool: Pool) {
  const group = groups.get(pool)!
  groups.delete(pool)
  let connection: Connection
  try {
    connection = (await pool.acquireConnection()) as Connection
  } catch (error) {
    for (const member of group) member.reject(error)
    return
  }
  const done: { member: Member; result: unknown }[] = []
  const alone = group.length === 1
  try {
    runOn(connection, 'BEGIN IMMEDIATE')
    const writer = writerOn(connection)
    for (const member of group) {
      if (!alone) runOn(connection, 'SAVEPOINT agent_inbox_write')
      try {
        const result = member.work(writer)
        if (!alone) runOn(connection, 'RELEASE agent_inbox_write')
        done.push({ member, result })
      } catch (error) {
        // An error SQLite ended the whole transaction for (a full disk) fails every write
        if (alone || !connection.inTransaction) throw error
        runOn(connection, 'ROLLBACK TO agent_inbox_write')
        runOn(connection, 'RELEASE agent_inbox_write')
        member.reject(error)
      }
    }
    runOn(connection, 'COMMIT')
    for (const { member, result } of done) member.resolve(result)
  } catch (error) {
    if (connection.inTransaction) runOn(connection, 'ROLLBACK')
    for (const member of group) member.reject(error)
  } finally {
    await pool.releaseConnection(connection)
  }
}

type Row = Record<string, unknown>
/** A query knex built, run as is or compiled to its native SQL */
export type KnexQuery = PromiseLike<unknown> & {
  toSQL(): { toNative(): { sql: string; bindings: readonly unknown[] } }
}

/**
 * Runs one statement (`?` bindings) on a connection of `client`'s pool,
 * prepared once per connection, and returns its rows.
 *
 * @example
 * const rows = await sqliteRows(client, 'select * from agent_runs where id = ?', [id])
 */
export async function sqliteRows(
  client: QueryClientContract,
  sql: string,
  bindings: readonly unknown[]
): Promise<Row[]> {
  const pool = client.getWriteClient().client
  const connection = (await pool.acquireConnection()) as Connection
  try {
    return allOn(connection, sql, bindings)
  } finally {
    await pool.releaseConnection(connection)
  }
}

/**
 * Inserts rows on SQLite as `insertStatements` builds them.
 */
export function insertRows(writer: SqliteWriter, table: string, rows: Record<string, unknown>[]) {
  for (const [sql, bindings] of insertStatements(table, rows, '"')) writer.run(sql, bindings)
}
