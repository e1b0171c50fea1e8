/*
 * Statements run with `mysql2`'s `execute` on a connection of the app's
 * knex pool, for the guarded write every checkpoint and every settlement
 * is on MySQL (./mysql_guarded.ts): a transaction of the update and the
 * inserts. Through knex, each statement is compiled and sent as text that
 * MySQL parses anew; here the text is given ready and MySQL prepares it
 * once per connection (`mysql2` keeps a connection's statements by text,
 * so a connection that replaced a lost one prepares them again). The
 * transaction's BEGIN, COMMIT and ROLLBACK go as plain queries, as knex
 * sends them. A failed COMMIT rejects, the connection lost with it.
 * Each statement is published as ./driver_statements.ts says.
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { PreparedRecord, sqlDiagnostics } from './driver_statements.ts'

type Result = { affectedRows?: number } | Record<string, unknown>[]
type Callback = (error: Error | null, result: Result) => void
type Connection = {
  execute(sql: string, values: unknown[], callback: Callback): void
  query(sql: string, callback: Callback): void
  query(sql: string, values: unknown[], callback: Callback): void
}

/** What the transaction's work gets: one statement at a time, prepared once per connection */
export type MysqlWriter = {
  /** Runs a statement; returns the rows it changed */
  run(sql: string, bindings: unknown[]): Promise<number>
  /**
   * Runs a statement sent as text, its values escaped by mysql2, not
   * prepared: for a text that differs from one call to the next (a write
   * of as many rows as were asked for), which would fill the server's
   * prepared statements. Returns its rows, or none for a write.
   */
  text(sql: string, values: unknown[]): Promise<Record<string, unknown>[]>
}

/** The statements each connection has prepared (mysql2's own record is internal) */
const preparedOn = new PreparedRecord<Connection>()

/**
 * Whether `client` talks to MySQL through mysql2.
 */
export function isMysql2(client: QueryClientContract): boolean {
  return client.dialect.name === 'mysql'
}

function send(connection: Connection, sql: string, values?: unknown[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const done: Callback = (error, result) => (error ? reject(error) : resolve(result))
    if (values) connection.execute(sql, values, done)
    else connection.query(sql, done)
  })
}

function execute(connection: Connection, sql: string, bindings: readonly unknown[]) {
  // mysql2 refuses undefined as a value
  const values = bindings.map((value) => (value === undefined ? null : value))
  return preparedOn.run(connection, sql, sql, values, () => send(connection, sql, values))
}

function changed(result: Result): number {
  return Array.isArray(result) ? 0 : (result.affectedRows ?? 0)
}

/**
 * Runs one read (`?` bindings) prepared on a connection of `client`'s
 * pool, and returns its rows.
 *
 * @example
 * const rows = await mysqlRows(client, 'select * from agent_runs where id = ?', [id])
 */
export async function mysqlRows(
  client: QueryClientContract,
  sql: string,
  bindings: readonly unknown[]
): Promise<Record<string, unknown>[]> {
  const pool = client.getWriteClient().client
  const connection = (await pool.acquireConnection()) as Connection
  try {
    const rows = await execute(connection, sql, bindings)
    return Array.isArray(rows) ? rows : []
  } finally {
    await pool.releaseConnection(connection)
  }
}

async function plain(connection: Connection, sql: string) {
  if (sqlDiagnostics.hasSubscribers) sqlDiagnostics.publish({ sql, bindings: [] })
  await send(connection, sql)
}

/**
 * Runs `work` on a connection of `client`'s pool, in a transaction unless
 * `inTransaction` is false (a lone statement commits by itself);
 * `beforeCommit` is awaited last, inside it, with what `work` returned
 * (crash tests). Committed when both return, rolled back when either throws.
 *
 * @example
 * await mysqlWrite(client, (sql) => sql.run('update agent_runs set status = ? where id = ?', ['running', id]))
 */
export async function mysqlWrite<T>(
  client: QueryClientContract,
  work: (writer: MysqlWriter) => Promise<T>,
  beforeCommit?: (result: T) => void | Promise<void>,
  inTransaction = true
): Promise<T> {
  const pool = client.getWriteClient().client
  const connection = (await pool.acquireConnection()) as Connection
  const writer: MysqlWriter = {
    run: async (sql, bindings) => changed(await execute(connection, sql, bindings)),
    text: async (sql, values) => {
      if (sqlDiagnostics.hasSubscribers) sqlDiagnostics.publish({ sql, bindings: values })
      const result = await new Promise<Result>((resolve, reject) =>
        connection.query(sql, values, (error, rows) => (error ? reject(error) : resolve(rows)))
      )
      return Array.isArray(result) ? result : []
    },
  }
  try {
    if (!inTransaction) return await work(writer)
    await plain(connection, 'BEGIN')
    try {
      const result = await work(writer)
      await beforeCommit?.(result)
      await plain(connection, 'COMMIT')
      return result
    } catch (error) {
      // On a lost connection the server rolled back already: the first error is the one to tell
      await plain(connection, 'ROLLBACK').catch(() => {})
      throw error
    }
  } finally {
    await pool.releaseConnection(connection)
  }
}
