/*
 * Guarded writes asked for in the same turn of the event loop, grouped by
 * shape so that a dialect can send each group as one shared write: the
 * checkpoints of many runs stepping at once. What the dialect does with a
 * group is its own (./pg_guarded.ts, ./mysql_guarded.ts); here the group
 * is formed, a lone write goes alone, and a group whose shared write fails
 * (a duplicate key in one member) is sent again member by member, so the
 * error is the offender's alone.
 *
 * Writes share a shape when they update the same table's same columns
 * under the same conditions and insert into the same tables' same
 * columns. A shape can be shared when one condition is `id = ?` (the
 * member's row) and each is `column = ?` (the member's own value) or has
 * no value at all; others (a settlement's expiry, compared with its own
 * now) always go alone.
 */

import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { GuardedWrite } from './guarded_write.ts'

export type Inserts = GuardedWrite['inserts']

/** One member of a shared write */
export type GroupMember = { write: GuardedWrite; inserts: Inserts }

export type SharedWrites = {
  /** One write alone; false when its guard did not match */
  alone(client: QueryClientContract, write: GuardedWrite, inserts: Inserts): Promise<boolean>
  /** Whether a shape's members can share a write here */
  shareable?(member: GroupMember): boolean
  /** The members in one write; the places (from 1) of those whose guard matched */
  shared(client: QueryClientContract, members: GroupMember[]): Promise<Set<number>>
}

type Member = GroupMember & {
  dialect: SharedWrites
  resolve: (written: boolean) => void
  reject: (error: unknown) => void
}

/** The writes waiting for this turn, by pool, then by shape */
const groups = new WeakMap<object, Map<string, Member[]>>()

/** A condition a member brings its own value to: `column = ?` */
const OWN_VALUE = /^(\w+) = \?$/

/** The column a condition compares with the member's own value, if it does */
export function ownColumn(condition: string): string | undefined {
  return OWN_VALUE.exec(condition)?.[1]
}

/** A member's own values, by the column its `column = ?` conditions compare */
export function ownValues(write: GuardedWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [condition, value] of write.where) {
    const column = ownColumn(condition)
    if (column) values[column] = value
  }
  return values
}

/**
 * Writes `write` in the turn's shared write of its shape (`dialect`'s),
 * alone when nothing else of its shape was asked for in the turn, and
 * always alone with a `beforeCommit` (a crash test's: its transaction is
 * its own).
 */
export function groupedWrite(
  client: QueryClientContract,
  write: GuardedWrite,
  inserts: Inserts,
  dialect: SharedWrites
): Promise<boolean> {
  const shape = write.beforeCommit ? null : shapeOf(write, inserts)
  if (shape === null || dialect.shareable?.({ write, inserts }) === false) {
    return dialect.alone(client, write, inserts)
  }
  const pool = client.getWriteClient().client as object
  return new Promise((resolve, reject) => {
    let group = groups.get(pool)
    if (!group) {
      group = new Map()
      groups.set(pool, group)
      setImmediate(() => flush(client, pool))
    }
    const members = group.get(shape) ?? []
    group.set(shape, members)
    members.push({ write, inserts, dialect, resolve, reject })
  })
}

function shapeOf(write: GuardedWrite, inserts: Inserts): string | null {
  const conditions: string[] = []
  for (const [condition] of write.where) {
    if (!ownColumn(condition) && condition.includes('?')) return null
    conditions.push(condition)
  }
  // Each member's guard names one row, as a lone write's must match exactly one
  if (!write.where.some(([condition]) => ownColumn(condition) === 'id')) return null
  return JSON.stringify([
    write.model.table,
    Object.keys(write.set),
    conditions,
    inserts.map(([table, rows]) => [table, Object.keys(rows[0])]),
  ])
}

function alone(client: QueryClientContract, member: Member) {
  member.dialect.alone(client, member.write, member.inserts).then(member.resolve, member.reject)
}

function flush(client: QueryClientContract, pool: object) {
  const group = groups.get(pool)!
  groups.delete(pool)
  for (const members of group.values()) {
    if (members.length === 1) {
      alone(client, members[0])
      continue
    }
    members[0].dialect.shared(client, members).then(
      (matched) => members.forEach((member, index) => member.resolve(matched.has(index + 1))),
      () => members.forEach((member) => alone(client, member))
    )
  }
}
