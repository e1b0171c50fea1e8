/*
 * A new model row inserted on the driver, prepared: the run every start
 * writes. Through Lucid's `create`, knex compiles the insert each time,
 * Lucid formats each date by building a query, and on SQLite the insert
 * is prepared anew and committed alone. Here the model's hooks and
 * timestamps are applied as `save()` applies them, the columns prepared
 * as ./prepared_columns.ts does, and the insert runs as a guarded write's
 * do: in the turn's group commit on SQLite (./sqlite_writes.ts), a named
 * statement on PostgreSQL (./pg_writes.ts), mysql2's `execute` on MySQL
 * (./mysql_writes.ts); elsewhere through knex.
 */

import { DateTime } from 'luxon'
import type { LucidModel, ModelAttributes } from '@adonisjs/lucid/types/model'
import { insertStatements } from './driver_statements.ts'
import { preparedColumns } from './prepared_columns.ts'
import { insertRows, isBetterSqlite, sqliteWrite } from './sqlite_writes.ts'
import { isMysql2, mysqlRows } from './mysql_writes.ts'
import { pgNamed } from './pg_writes.ts'

/**
 * Creates a row of `model` with `attributes`, as `model.create` would:
 * its before-create and before-save hooks, then its unset auto-created
 * timestamps, then the insert, then its after hooks. For models whose
 * primary key is assigned before the insert (`selfAssignPrimaryKey`).
 *
 * @example
 * const run = await createPrepared(AgentRun, { agent: 'triage', ownerId: '1' })
 */
export async function createPrepared<Model extends LucidModel>(
  model: Model,
  attributes: Partial<ModelAttributes<InstanceType<Model>>>
): Promise<InstanceType<Model>> {
  if (!model.selfAssignPrimaryKey) {
    throw new Error(`${model.name}: createPrepared needs a primary key assigned before the insert`)
  }
  const row = new model() as InstanceType<Model>
  row.merge(attributes)
  await model.$hooks.runner('before:create').run(row)
  await model.$hooks.runner('before:save').run(row)
  const now = DateTime.local()
  const values = row.$attributes as Record<string, unknown>
  for (const [attribute, column] of model.$columnsDefinitions) {
    const meta = column.meta as { autoCreate?: boolean; autoUpdate?: boolean } | undefined
    if (!values[attribute] && (meta?.autoCreate || meta?.autoUpdate)) values[attribute] = now
  }
  await insertOne(model, preparedColumns(row, values as typeof attributes))
  row.$hydrateOriginals()
  row.$isPersisted = true
  await model.$hooks.runner('after:create').run(row)
  await model.$hooks.runner('after:save').run(row)
  return row
}

async function insertOne(model: LucidModel, columns: Record<string, unknown>) {
  const client = model.$adapter.modelConstructorClient(model)
  if (isBetterSqlite(client)) {
    return sqliteWrite(client, (writer) => insertRows(writer, model.table, [columns]))
  }
  if (client.dialect.name === 'postgres') {
    const [[sql, bindings]] = insertStatements(model.table, [columns], '"')
    let next = 0
    return pgNamed(
      client,
      sql.replace(/\?/g, () => `$${++next}`),
      bindings
    )
  }
  if (isMysql2(client)) {
    const [[sql, bindings]] = insertStatements(model.table, [columns], '`')
    return mysqlRows(client, sql, bindings)
  }
  await client.insertQuery().table(model.table).insert(columns)
}
