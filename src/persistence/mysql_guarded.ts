/*
 * A guarded write on MySQL (./guarded_write.ts), and many at once.
 *
 * One write is a transaction on mysql2 (./mysql_writes.ts): the update,
 * then one multi-row insert per table, each statement prepared once per
 * connection; a lone update with nothing to insert is its own
 * transaction. MySQL has no writes in CTEs and mysql2 sends one statement
 * at a time, so a checkpoint is three round trips and its COMMIT.
 *
 * Writes asked for in the same turn that have the same shape
 * (./write_groups.ts: the checkpoints of many runs stepping at once) share
 * one transaction of as many statements as one of them: one update sets
 * each member's row to its own values (`case id when … then … end`)
 * where the row is under any member's guard; a read, in the transaction,
 * tells which members' rows are under their guard now (those the update
 * matched and holds, as the update sets no column a condition reads);
 * then only those members' rows are inserted. So each member is still
 * all or nothing behind its own guard. Its statements are sent as text,
 * their values escaped by mysql2: their text changes with the number of
 * members, and prepared they would fill the server's prepared statements.
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { GuardedWrite } from './guarded_write.ts'
import { insertStatements, updateStatement } from './driver_statements.ts'
import { mysqlWrite } from './mysql_writes.ts'
import {
  groupedWrite,
  ownColumn,
  ownValues,
  type GroupMember,
  type Inserts,
  type SharedWrites,
} from './write_groups.ts'

const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``

/**
 * Writes one guarded write as the module comment says. False, having
 * written nothing, when the guard did not match.
 */
export function mysqlGuardedWrite(
  client: QueryClientContract,
  write: GuardedWrite,
  inserts: Inserts
): Promise<boolean> {
  const where = write.where.map(([sql]) => sql).join(' and ')
  const bindings = write.where.flatMap(([, ...values]) => values)
  const lone = inserts.length === 0 && !write.beforeCommit
  return mysqlWrite(
    client,
    async (writer) => {
      const update = updateStatement(write.model.table, write.set, where, bindings, '`')
      if ((await writer.run(...update)) !== 1) return false
      for (const [into, rows] of inserts) {
        for (const [sql, values] of insertStatements(into, rows, '`')) {
          await writer.run(sql, values)
        }
      }
      return true
    },
    (matched) => (matched ? write.beforeCommit?.() : undefined),
    !lone
  )
}

/** MySQL's shared write: one transaction */
const MYSQL: SharedWrites = { alone: mysqlGuardedWrite, shareable, shared }

/**
 * Writes `write` in the turn's transaction of its shape, alone when
 * nothing else of its shape was asked for in the turn, or when it cannot
 * share one (./write_groups.ts). Resolves as `mysqlGuardedWrite` does.
 */
export function mysqlGroupedWrite(
  client: QueryClientContract,
  write: GuardedWrite,
  inserts: Inserts
): Promise<boolean> {
  return groupedWrite(client, write, inserts, MYSQL)
}

/**
 * Whether the read after the update can tell the members that matched: the
 * update sets no column a condition reads (each names its row by id,
 * ./write_groups.ts).
 */
function shareable({ write }: GroupMember): boolean {
  const read = new Set(write.where.flatMap(([condition]) => condition.match(/\w+/g) ?? []))
  return Object.keys(write.set).every((column) => !read.has(column))
}

async function shared(client: QueryClientContract, members: GroupMember[]): Promise<Set<number>> {
  const [{ write: first }] = members
  const table = quote(first.model.table)
  const own = first.where.flatMap(([condition]) => ownColumn(condition) ?? [])
  const owned = members.map(({ write }) => ownValues(write))
  const ids = owned.map((member) => member.id)
  // Two writes of one row in a turn: each goes alone, in order
  if (new Set(ids).size !== ids.length) throw new Error('Two guarded writes of one row')

  const guards = owned.map((member) => own.map((column) => member[column]))
  const tuple = `(${own.map(() => '?').join(', ')})`
  const where = [
    `(${own.map(quote).join(', ')}) in (${guards.map(() => tuple).join(', ')})`,
    ...first.where.filter(([condition]) => !ownColumn(condition)).map(([condition]) => condition),
  ].join(' and ')
  const whereValues = guards.flat()
  const cases = Object.keys(first.set).map(
    (column) => `${quote(column)} = case \`id\` ${members.map(() => 'when ? then ?').join(' ')} end`
  )
  const caseValues = Object.keys(first.set).flatMap((column) =>
    members.flatMap(({ write }, index) => [ids[index], write.set[column]])
  )

  return mysqlWrite(client, async (writer) => {
    await writer.text(`update ${table} set ${cases.join(', ')} where ${where}`, [
      ...caseValues,
      ...whereValues,
    ])
    const guarded = await writer.text(`select \`id\` from ${table} where ${where}`, whereValues)
    const under = new Set(guarded.map((row) => String(row.id)))
    const matched = new Set<number>()
    ids.forEach((id, index) => {
      if (under.has(String(id))) matched.add(index + 1)
    })
    for (const [position, [into]] of members[0].inserts.entries()) {
      const rows = members.flatMap(({ inserts }, index) =>
        matched.has(index + 1) ? inserts[position][1] : []
      )
      for (const [sql, values] of insertStatements(into, rows, '`')) await writer.text(sql, values)
    }
    return matched
  })
}
