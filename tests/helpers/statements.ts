/*
 * The SQL statements a piece of work sends through the app's Lucid
 * connection, as knex reports them, each with its transaction's id: the
 * index-plan suite explains them, the transactional suite reads which
 * statements shared a transaction. (Checkpoints on SQLite go through
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
