/*
 * Statements run as `pg` named statements on a connection of the app's
 * knex pool, for the guarded write every checkpoint and every settlement
 * is on PostgreSQL (./guarded_write.ts). Through knex, each call compiles
 * the query (identifiers, `?` to `$n`) and PostgreSQL parses and plans it
 * anew; here the text is given ready, and each distinct text is parsed
 * once per connection under one name (`pg` keeps what a connection
 * parsed, so a new connection, after one was lost, prepares it again).
 * Each statement is published as ./driver_statements.ts says.
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { PreparedRecord } from './driver_statements.ts'

type PgConnection = {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{
    rows: Record<string, unknown>[]
  }>
}

/** One name per distinct statement text, the same on every connection */
const names = new Map<string, string>()
/** The names each connection has parsed (pg's own record is internal) */
const parsed = new PreparedRecord<PgConnection>()

/**
 * PostgreSQL refuses to run a parsed statement whose result's columns
 * changed since (`cached plan must not change result type`): a
 * `returning *` or `select *` after a migration added a column while the
 * app ran. Such a statement is parsed again on that connection under a
 * name of its own, kept here.
 */
const CACHED_PLAN_CHANGED = '0A000'
const renamed = new WeakMap<PgConnection, Map<string, string>>()
let renames = 0

function nameOf(text: string): string {
  let name = names.get(text)
  if (!name) {
    name = `adonis_agent_inbox_${names.size + 1}`
    names.set(text, name)
  }
  return name
}

/** A PostgreSQL identifier, quoted */
export function pgIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/**
 * Runs `text` (with `$1…` placeholders) as a named statement on a
 * connection of `client`'s pool and returns its rows.
 *
 * @example
 * const rows = await pgNamed(client, 'select 1 as one where $1::int > 0', [1])
 */
export async function pgNamed(
  client: QueryClientContract,
  text: string,
  values: readonly unknown[]
): Promise<Record<string, unknown>[]> {
  const pool = client.getWriteClient().client
  const connection = (await pool.acquireConnection()) as PgConnection
  const send = async (name: string) => {
    const result = await parsed.run(connection, name, text, values, () =>
      connection.query({ name, text, values })
    )
    return result.rows
  }
  try {
    const name = renamed.get(connection)?.get(text) ?? nameOf(text)
    try {
      return await send(name)
    } catch (error) {
      if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error
      // The table changed since this connection parsed the statement: parsed again, under a new name
      const fresh = `${nameOf(text)}_${++renames}`
      const own = renamed.get(connection) ?? new Map<string, string>()
      renamed.set(connection, own.set(text, fresh))
      return await send(fresh)
    }
  } finally {
    await pool.releaseConnection(connection)
  }
}
