/*
 * What the statements the package writes by hand on the drivers share
 * (./sqlite_writes.ts, ./pg_writes.ts, ./mysql_writes.ts): the text of a
 * guarded update and of multi-row inserts, the diagnostics channel they
 * are published on, and, for the drivers whose own record is internal,
 * which statements each connection has prepared.
 *
 * Knex's `query` events and Lucid's query log do not see these statements,
 * so each is published on `adonis-agent-inbox:sql` as `{ sql, bindings,
 * prepared? }` (nothing is done when nobody listens): the bench counts
 * them there, and replays them to measure what they cost alone;
 * `prepared` is true the first time a connection prepares one (a
 * connection the pool replaced prepares it again), and absent for a
 * statement not prepared (MySQL's transaction statements).
 */

import diagnostics from 'node:diagnostics_channel'

export const sqlDiagnostics = diagnostics.channel('adonis-agent-inbox:sql')

/** A statement's text and its bindings */
export type Statement = [sql: string, bindings: unknown[]]

/** Rows a statement at most: SQLite binds 32,766 values, a row has a few dozen */
const ROWS_A_STATEMENT = 200

/**
 * The update of `table` setting `set` where `where` (SQL with `?`
 * bindings), identifiers quoted with `quote` (SQLite `"`, MySQL `` ` ``).
 *
 * @example
 * updateStatement('agent_runs', { status: 'done' }, 'id = ?', [id], '"')
 */
export function updateStatement(
  table: string,
  set: Record<string, unknown>,
  where: string,
  bindings: unknown[],
  quote: string
): Statement {
  const sets = Object.keys(set).map((name) => `${quote}${name}${quote} = ?`)
  return [
    `update ${quote}${table}${quote} set ${sets.join(', ')} where ${where}`,
    [...Object.values(set), ...bindings],
  ]
}

/**
 * The multi-row inserts that write `rows`: one statement per run of rows
 * with the same columns (a checkpoint's rows all have the same), so one
 * text per row count, prepared once. `quote` quotes an identifier (SQLite
 * `"`, MySQL `` ` ``).
 *
 * @example
 * insertStatements('agent_journal', rows, '"') // [['insert into "agent_journal" (…) values (?, …), (?, …)', [...]]]
 */
export function insertStatements(
  table: string,
  rows: Record<string, unknown>[],
  quote: string
): Statement[] {
  const statements: Statement[] = []
  for (let start = 0; start < rows.length;) {
    const columns = Object.keys(rows[start])
    const signature = columns.join('\0')
    let end = start + 1
    while (
      end < rows.length &&
      end - start < ROWS_A_STATEMENT &&
      Object.keys(rows[end]).join('\0') === signature
    ) {
      end++
    }
    const group = rows.slice(start, end)
    const values = `(${columns.map(() => '?').join(', ')})`
    statements.push([
      `insert into ${quote}${table}${quote} (${columns.map((name) => `${quote}${name}${quote}`).join(', ')}) values ${group.map(() => values).join(', ')}`,
      group.flatMap((row) => columns.map((name) => row[name])),
    ])
    start = end
  }
  return statements
}

/**
 * Which statements each connection has prepared, for a driver that
 * prepares by itself and keeps its record internal (pg, mysql2).
 */
export class PreparedRecord<Connection extends object> {
  #on = new WeakMap<Connection, Set<string>>()

  /**
   * Sends the statement `key` (text `sql`, with `bindings`) on
   * `connection` with `send`, published with whether it is the
   * connection's first; recorded once it succeeded.
   */
  async run<T>(
    connection: Connection,
    key: string,
    sql: string,
    bindings: readonly unknown[],
    send: () => Promise<T>
  ) {
    let done = this.#on.get(connection)
    if (!done) {
      done = new Set()
      this.#on.set(connection, done)
    }
    if (sqlDiagnostics.hasSubscribers)
      sqlDiagnostics.publish({ sql, bindings, prepared: !done.has(key) })
    const result = await send()
    done.add(key)
    return result
  }
}
