/*
 * What the prepared-statement suites (tests/persistence/*_writes.spec.ts)
 * share: whether a statement was prepared on its connection, read from the
 * package's SQL channel, and the server killing the pooled connections
 * that prepared it, so the next call must prepare it again.
 */

import type { Database } from '@adonisjs/lucid/database'
import { sqlDiagnostics } from '../../src/persistence/driver_statements.ts'

/**
 * Runs `work` and tells whether the statement `text` it sent was prepared
 * on its connection then (the first one it sent, when several).
 *
 * @example
 * const { result, prepared } = await preparedWhile(text, () => pgNamed(client, text, [1]))
 */
export async function preparedWhile<T>(text: string, work: () => Promise<T>) {
  const seen: boolean[] = []
  const listen = (message: unknown) => {
    const published = message as { sql: string; prepared: boolean }
    if (published.sql === text) seen.push(published.prepared)
  }
  sqlDiagnostics.subscribe(listen)
  try {
    const result = await work()
    return { result, prepared: seen[0] }
  } finally {
    sqlDiagnostics.unsubscribe(listen)
  }
}

/**
 * Runs `work` and returns what it returned with the texts of the
 * statements published meanwhile, in order.
 *
 * @example
 * const { result, seen } = await statementsWhile(() => sqliteWrite(client, work))
 */
export async function statementsWhile<T>(work: () => Promise<T>) {
  const seen: string[] = []
  const listen = (message: unknown) => seen.push((message as { sql: string }).sql)
  sqlDiagnostics.subscribe(listen)
  try {
    return { result: await work(), seen }
  } finally {
    sqlDiagnostics.unsubscribe(listen)
  }
}

/** How a driver's pooled connection is named, told closed and killed by the server */
export type Killing<Connection> = {
  /** The id the server knows the connection by */
  idOf(connection: Connection): number
  /** Resolves once the connection is closed */
  closed(connection: Connection): Promise<unknown>
  /** Has the server end `ids` from `killer`, another pooled connection */
  kill(killer: Connection, ids: number[]): Promise<unknown>
}

/**
 * Takes every idle connection of `db`'s write pool, has the server kill
 * those whose id is one of `ids`, waits until they are closed and gives
 * them all back; returns how many were killed.
 */
export async function killPooled<Connection>(
  db: Database,
  ids: number[],
  killing: Killing<Connection>
): Promise<number> {
  const pool = db.connection().getWriteClient().client as any
  const held: Connection[] = []
  for (let count = pool.pool.numFree(); count > 0; count--) {
    held.push(await pool.acquireConnection())
  }
  const doomed = held.filter((connection) => ids.includes(killing.idOf(connection)))
  const closed = doomed.map((connection) => killing.closed(connection))
  const killer: Connection = await pool.acquireConnection()
  try {
    if (doomed.length > 0) await killing.kill(killer, doomed.map(killing.idOf))
    await Promise.all(closed)
  } finally {
    for (const connection of [killer, ...held]) await pool.releaseConnection(connection)
  }
  return doomed.length
}

/** PostgreSQL: a `pg` client, its backend ended with `pg_terminate_backend` */
export const PG_KILLING: Killing<any> = {
  idOf: (connection) => connection.processID,
  closed: (connection) => new Promise((resolve) => connection.once('end', resolve)),
  kill: (killer, pids) =>
    killer.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [pids]),
}

/** MySQL: a mysql2 connection, ended with `KILL <id>` */
export const MYSQL_KILLING: Killing<any> = {
  idOf: (connection) => connection.threadId,
  closed: (connection) => new Promise((resolve) => connection.stream.once('close', resolve)),
  kill: async (killer, ids) => {
    for (const id of ids) await killer.promise().query(`KILL ${Number(id)}`)
  },
}
