/*
 * A guarded write: one conditional update that must match exactly one row,
 * and inserts that are written only when it did, all or nothing. The
 * driver's checkpoint is one (the lease's fence, then the step's journal
 * entries and rows), and so is a settlement (the row still pending and
 * unexpired, then its audit entries and the grant it gave).
 *
 * - PostgreSQL: one statement, named on the driver, the writes of a turn
 *   that have the same shape sharing one (./pg_guarded.ts).
 * - MySQL: a transaction on mysql2, the writes of a turn that have the
 *   same shape sharing one (./mysql_guarded.ts).
 * - SQLite has no writes in CTEs: a transaction whose first statement is
 *   the update, then one multi-row insert per table, on better-sqlite3
 *   itself, its statements prepared once per connection, in the turn's
 *   group commit (./sqlite_writes.ts); elsewhere (another SQLite driver)
 *   through knex.
 *
 * Conditions are SQL with `?` bindings over unquoted column names, which
 * all three dialects read alike.
 */

import type { LucidModel } from '@adonisjs/lucid/types/model'
import { affectedRows } from './prepared_columns.ts'
import { transaction } from './transaction.ts'
import { updateStatement } from './driver_statements.ts'
import { insertRows, isBetterSqlite, sqliteWrite } from './sqlite_writes.ts'
import { isMysql2 } from './mysql_writes.ts'
import { mysqlGroupedWrite } from './mysql_guarded.ts'
import { pgGroupedWrite } from './pg_guarded.ts'

/** A condition of the guard: SQL over unquoted column names, and its bindings */
export type Condition = [sql: string, ...bindings: unknown[]]

export type GuardedWrite = {
  /** The guard's table, whose model's connection writes everything */
  model: LucidModel
  /** Prepared columns the update sets; they must change the row (MySQL counts changed rows) */
  set: Record<string, unknown>
  where: Condition[]
  /** Prepared rows inserted with it, by table; tables with no rows are left out */
  inserts: [table: string, rows: Record<string, unknown>[]][]
  /** Called last before the write can commit, once the guard matched (crash tests) */
  beforeCommit?: () => void | Promise<void>
}

/**
 * Writes as the module comment says. False, having written nothing, when
 * the guard did not match.
 */
export async function guardedWrite(write: GuardedWrite): Promise<boolean> {
  const client = write.model.$adapter.modelConstructorClient(write.model)
  const inserts = write.inserts.filter(([, rows]) => rows.length > 0)
  if (client.dialect.name === 'postgres') return pgGroupedWrite(client, write, inserts)
  if (isMysql2(client)) return mysqlGroupedWrite(client, write, inserts)
  const table = write.model.table
  const where = write.where.map(([sql]) => sql).join(' and ')
  const bindings = write.where.flatMap(([, ...values]) => values)
  if (isBetterSqlite(client)) {
    return sqliteWrite(
      client,
      (writer) => {
        const matched = writer.run(...updateStatement(table, write.set, where, bindings, '"'))
        if (matched !== 1) return false
        for (const [into, rows] of inserts) insertRows(writer, into, rows)
        return true
      },
      write.beforeCommit && ((matched) => (matched ? write.beforeCommit?.() : undefined))
    )
  }
  if (inserts.length === 0 && !write.beforeCommit) {
    // A lone update is atomic by itself: no transaction around it
    const updated = await client
      .from(table)
      .whereRaw(where, bindings as any[])
      .update(write.set)
    return affectedRows(updated) === 1
  }
  return transaction(write.model, async (trx) => {
    const updated = await trx
      .from(table)
      .whereRaw(where, bindings as any[])
      .update(write.set)
    if (affectedRows(updated) !== 1) return false
    for (const [into, rows] of inserts) await trx.insertQuery().table(into).multiInsert(rows)
    await write.beforeCommit?.()
    return true
  })
}
