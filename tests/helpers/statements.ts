/*
 * The SQL statements a piece of work sends through the app's Lucid
 * connection, as knex reports them, each with its transaction's id: the
 * index-plan suite explains them, the transactional suite reads which
 * statements shared a transaction; `planOf` asks the database how it runs one. (Checkpoints on SQLite go through
 * better-sqlite3 directly, outside knex, and are not seen here.)
 */

import type { Database } from '@adonisjs/lucid/database'

export type SentStatement = { sql: string; bindings: unknown[]; __knexTxId?: string }

/**
 * Every statement `work` sends on the write client, in order.
 *
 * @example
 * const sent = await statementsOf(db, () => agents.idle())
 */
export async function statementsOf(
  db: Database,
  work: () => Promise<unknown>
): Promise<SentStatement[]> {
  const knex = db.connection().getWriteClient()
  const sent: SentStatement[] = []
  const listener = (query: SentStatement) => sent.push(query)
  knex.on('query', listener)
  try {
    await work()
  } finally {
    knex.removeListener('query', listener)
  }
  return sent
}

/** The plan of a statement, as one string that names the indexes used */
export async function planOf(
  db: Database,
  { sql, bindings }: Pick<SentStatement, 'sql' | 'bindings'>,
  explain = 'explain'
): Promise<string> {
  const dialect = db.connection().dialect.name
  if (dialect === 'postgres') {
    // The connection's event shows pg's numbered placeholders; rawQuery takes `?`
    const result = await db.rawQuery(`${explain} ${sql.replace(/\$\d+/g, '?')}`, bindings as any[])
    return result.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n')
  }
  if (dialect === 'mysql') {
    const [rows] = await db.rawQuery(`explain ${sql}`, bindings as any[])
    return rows.map((row: Record<string, unknown>) => `${row.table} key=${row.key}`).join('\n')
  }
  const rows = await db.rawQuery(`explain query plan ${sql}`, bindings as any[])
  return rows.map((row: { detail: string }) => row.detail).join('\n')
}

/**
 * Has the database gather `tables`' statistics, as autovacuum (or
 * MySQL's persistent statistics) leaves a table in use: PostgreSQL also
 * sets the visibility map index-only scans rely on; SQLite analyzes the
 * whole file. The planner of a table never analyzed guesses its sizes.
 *
 * @example
 * await analyzeTables(db, ['agent_runs', 'agent_tool_calls'])
 */
export async function analyzeTables(db: Database, tables: string[]) {
  const dialect = db.connection().dialect.name
  if (dialect === 'postgres') await db.rawQuery(`vacuum analyze ${tables.join(', ')}`)
  else if (dialect === 'mysql') await db.rawQuery(`analyze table ${tables.join(', ')}`)
  else await db.rawQuery('analyze')
}
