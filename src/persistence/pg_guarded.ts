/*
 * A guarded write on PostgreSQL (./guarded_write.ts), and many at once.
 *
 * One write is one statement: the update as a data-modifying CTE, each
 * insert reading its rows from one JSON parameter
 * (`jsonb_populate_recordset` over the table's own row type), guarded by
 * `exists (select 1 from guard)`; one round trip, committed by itself, a
 * named statement (./pg_writes.ts).
 *
 * Writes asked for in the same turn of the event loop that have the same
 * shape (./write_groups.ts: the checkpoints of many runs stepping at once)
 * share one statement: the members' values and guards each come as one
 * JSON parameter, numbered by their place (`with ordinality`), the update
 * matches each member's row under its own guard, and each member's inserts
 * are written only when its guard matched. So each member is still all or
 * nothing, and one whose guard fails (a lease another driver took) writes
 * nothing while the others commit.
 *
 * Either way the update finds its rows by key: every other condition is
 * sent as `(condition) is true`, which reads the same but that the planner
 * cannot match to an index. Else, where the statistics call a status rare
 * (`running` in a table of finished runs, or a table never analyzed), it
 * may reach the row through the status's index and filter every row of
 * that status, in a named statement's plan kept for the connection's life:
 * a settle that read every pending row, a crowd's checkpoints each reading
 * every running run (docs/design.md §8.2).
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { GuardedWrite } from './guarded_write.ts'
import { pgIdentifier as quote, pgNamed } from './pg_writes.ts'
import {
  groupedWrite,
  ownColumn,
  ownValues,
  type GroupMember,
  type Inserts,
  type SharedWrites,
} from './write_groups.ts'

/** A condition as the update sends it: the row's key as is, any other kept from the indexes */
function keyed(condition: string, sql = condition) {
  return ownColumn(condition) === 'id' ? sql : `(${sql}) is true`
}

/**
 * Writes one guarded write as one statement, after its `beforeCommit` (the
 * statement commits by itself). False, having written nothing, when the
 * guard did not match.
 */
export async function pgGuardedWrite(
  client: QueryClientContract,
  write: GuardedWrite,
  inserts: Inserts
): Promise<boolean> {
  await write.beforeCommit?.()
  const [row] = await pgNamed(client, ...pgGuardedStatement(write, inserts))
  return Number(row?.matched) === 1
}

/** The statement of one guarded write and its values */
export function pgGuardedStatement(write: GuardedWrite, inserts: Inserts): [string, unknown[]] {
  const values: unknown[] = []
  const bind = (value: unknown) => `$${values.push(value)}`
  const sql: string[] = []

  const sets = Object.keys(write.set).map((name) => `${quote(name)} = ${bind(write.set[name])}`)
  sql.push(`with guard as (update ${quote(write.model.table)} set ${sets.join(', ')}`)
  const where = write.where.map(([condition, ...bindings]) => {
    let next = 0
    return keyed(
      condition,
      condition.replace(/\?/g, () => bind(bindings[next++]))
    )
  })
  sql.push(`where ${where.join(' and ')} returning 1)`)

  for (const [table, rows] of inserts) {
    const list = Object.keys(rows[0]).map(quote).join(', ')
    sql.push(`, ${table.replace(/\W/g, '_')}_rows as (insert into ${quote(table)} (${list})`)
    sql.push(
      `select ${list} from jsonb_populate_recordset(null::${quote(table)}, ${bind(JSON.stringify(rows))}::jsonb)`
    )
    sql.push('where exists (select 1 from guard))')
  }
  sql.push('select count(*)::int as matched from guard')
  return [sql.join(' '), values]
}

/** PostgreSQL's shared write: one statement */
const PG: SharedWrites = { alone: pgGuardedWrite, shared }

/**
 * Writes `write` in the turn's statement of its shape, alone when nothing
 * else of its shape was asked for in the turn (./write_groups.ts).
 * Resolves as `pgGuardedWrite` does.
 */
export function pgGroupedWrite(
  client: QueryClientContract,
  write: GuardedWrite,
  inserts: Inserts
): Promise<boolean> {
  return groupedWrite(client, write, inserts, PG)
}

/**
 * The members' writes as one statement; returns the places (from 1) of the
 * members whose guard matched.
 */
async function shared(client: QueryClientContract, members: GroupMember[]): Promise<Set<number>> {
  const rows = await pgNamed(client, ...pgSharedStatement(members))
  return new Set(rows.map((row) => Number(row.k)))
}

/** The shared statement of the members' writes and its values */
export function pgSharedStatement(members: GroupMember[]): [string, unknown[]] {
  const [{ write: first, inserts: firstInserts }] = members
  const table = quote(first.model.table)
  const values: unknown[] = []
  const bind = (value: unknown) => `$${values.push(value)}`
  const setColumns = Object.keys(first.set)
  const own = first.where.flatMap(([condition]) => ownColumn(condition) ?? [])
  const recordset = (rows: unknown[]) =>
    `jsonb_populate_recordset(null::${table}, ${bind(JSON.stringify(rows))}::jsonb) with ordinality as x`
  // Aliased, so a condition's bare column names are the updated table's
  const aliased = (prefix: string, columns: string[]) =>
    columns.map((name) => `x.${quote(name)} as ${quote(`${prefix}${name}`)}`).join(', ')

  const sql = [
    `with s as (select x.ordinality as k, ${aliased('s_', setColumns)} from ${recordset(members.map(({ write }) => write.set))})`,
  ]
  const guards = members.map(({ write }) => ownValues(write))
  sql.push(`, g as (select x.ordinality as k, ${aliased('g_', own)} from ${recordset(guards)})`)
  const sets = setColumns.map((name) => `${quote(name)} = s.${quote(`s_${name}`)}`)
  const where = first.where.map(([condition]) => {
    const column = ownColumn(condition)
    return keyed(
      condition,
      column ? `${table}.${quote(column)} = g.${quote(`g_${column}`)}` : condition
    )
  })
  /*
   * The members' keys once more, as an array the planner can look up in the
   * primary key: it takes an array parameter for a few elements, where the
   * JSON recordset counts as a hundred rows and a scan of a table of some
   * thousands would win the join.
   */
  where.push(`${table}."id" = any(${bind(guards.map((guard) => guard.id))})`)
  sql.push(
    `, guard as (update ${table} set ${sets.join(', ')} from s join g on g.k = s.k where ${where.join(' and ')} returning s.k)`
  )

  firstInserts.forEach(([into, rows], index) => {
    const list = Object.keys(rows[0]).map(quote).join(', ')
    const all = members.flatMap(({ inserts }) => inserts[index][1])
    const owners = members.flatMap(({ inserts }, member) => inserts[index][1].map(() => member + 1))
    sql.push(
      `, i${index} as (insert into ${quote(into)} (${list}) select ${list} from jsonb_populate_recordset(null::${quote(into)}, ${bind(JSON.stringify(all))}::jsonb) with ordinality as r`,
      `where (${bind(owners)}::int[])[r.ordinality::int] in (select k from guard))`
    )
  })
  sql.push('select k::int as k from guard')
  return [sql.join(' '), values]
}
