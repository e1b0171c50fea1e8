/*
 * The reads on the hot paths (the row every settle starts with, a run's
 * journal and rows each time a driver takes it), compiled by knex once per
 * dialect and then sent ready, prepared on the driver: a better-sqlite3
 * statement, a `pg` named statement, mysql2's `execute`, each once per
 * connection (./sqlite_writes.ts, ./pg_writes.ts, ./mysql_writes.ts).
 * Compiling the query was a tenth of a settle's own CPU, and PostgreSQL and
 * MySQL parsed and planned its text anew each time. Another SQLite driver
 * gets the query through knex, as before. The lease's update, which returns
 * the run it took, is prepared the same way (`preparedWrite`), and so is
 * MySQL's, which returns how many rows it changed (`preparedUpdate`).
 *
 * A read is built once with a marker in place of each parameter; the
 * bindings knex compiled are kept, the markers' places filled at each call.
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { pgNamed } from './pg_writes.ts'
import { isMysql2, mysqlRows, mysqlWrite } from './mysql_writes.ts'
import { affectedRows } from './prepared_columns.ts'
import { isBetterSqlite, sqliteRows, sqliteWrite, type KnexQuery } from './sqlite_writes.ts'

type Row = Record<string, unknown>
type Compiled = { sql: string; bindings: readonly unknown[] }

/** A parameter's place while the read is compiled: no value a caller sends */
function marker(index: number) {
  return `\u0000adonis-agent-inbox:parameter:${index}`
}

/**
 * A read of `build`'s query with `arity` parameters, compiled once per
 * dialect.
 *
 * @example
 * const rowsOfRun = preparedRead(1, (client, runId) => client.knexQuery().from('agent_tool_calls').where('run_id', runId))
 * const rows = await rowsOfRun(client, [run.id])
 */
export function preparedRead(
  arity: number,
  build: (client: QueryClientContract, ...parameters: string[]) => KnexQuery
) {
  return prepared(arity, build, false)
}

/**
 * A write with `returning` (an update that hands back the rows it
 * changed), prepared as a read is; on SQLite it joins the turn's group
 * commit (./sqlite_writes.ts). Not for MySQL, which returns no rows from
 * a write: there it goes through knex (`preparedUpdate` is MySQL's). The
 * lease every drive takes.
 *
 * @example
 * const take = preparedWrite(1, (client, id) => client.knexQuery().from('agent_runs').where('id', id).returning('*').update({ status: 'running' }))
 * const [run] = await take(client, [runId])
 */
export function preparedWrite(
  arity: number,
  build: (client: QueryClientContract, ...parameters: string[]) => KnexQuery
) {
  return prepared(arity, build, true)
}

/**
 * An update that returns how many rows it changed, prepared as a read is
 * on MySQL, where a write returns no rows (mysql2's `execute`, outside a
 * transaction: one statement commits by itself); through knex elsewhere.
 * The lease a drive takes on MySQL.
 *
 * @example
 * const take = preparedUpdate(1, (client, id) => client.knexQuery().from('agent_runs').where('id', id).update({ status: 'running' }))
 * const taken = (await take(client, [runId])) === 1
 */
export function preparedUpdate(
  arity: number,
  build: (client: QueryClientContract, ...parameters: string[]) => KnexQuery
) {
  const compile = compiler(arity, build)
  return async (client: QueryClientContract, parameters: unknown[]): Promise<number> => {
    if (!isMysql2(client)) return affectedRows(await build(client, ...(parameters as string[])))
    const { sql, bindings } = compile(client, parameters)
    return mysqlWrite(client, (writer) => writer.run(sql, [...bindings]), undefined, false)
  }
}

/** `build`'s query compiled once per dialect, with `parameters` in their places */
function compiler(
  arity: number,
  build: (client: QueryClientContract, ...parameters: string[]) => KnexQuery
) {
  const compiledBy = new Map<string, Compiled>()
  const markers = Array.from({ length: arity }, (_, index) => marker(index))
  const slots = new Map(markers.map((text, index) => [text, index]))

  return (client: QueryClientContract, parameters: unknown[]): Compiled => {
    const dialect = client.dialect.name
    let compiled = compiledBy.get(dialect)
    if (!compiled) {
      compiled = build(client, ...markers)
        .toSQL()
        .toNative()
      const placed = markers.filter((text) => compiled!.bindings.includes(text))
      if (placed.length !== arity) {
        throw new Error(
          `A prepared statement binds ${placed.length} of its ${arity} parameters as values`
        )
      }
      compiledBy.set(dialect, compiled)
    }
    const bindings = compiled.bindings.map((binding) => {
      const slot = typeof binding === 'string' ? slots.get(binding) : undefined
      return slot === undefined ? binding : parameters[slot]
    })
    return { sql: compiled.sql, bindings }
  }
}

function prepared(
  arity: number,
  build: (client: QueryClientContract, ...parameters: string[]) => KnexQuery,
  write: boolean
) {
  const compile = compiler(arity, build)
  return async (client: QueryClientContract, parameters: unknown[]): Promise<Row[]> => {
    const dialect = client.dialect.name
    const sqlite = isBetterSqlite(client)
    if (!sqlite && dialect !== 'postgres' && (write || !isMysql2(client))) {
      return (await build(client, ...(parameters as string[]))) as Row[]
    }
    const { sql, bindings } = compile(client, parameters)
    if (sqlite && write) return sqliteWrite(client, (writer) => writer.all(sql, bindings))
    if (sqlite) return sqliteRows(client, sql, bindings)
    if (dialect === 'postgres') return pgNamed(client, sql, bindings)
    return mysqlRows(client, sql, bindings)
  }
}
