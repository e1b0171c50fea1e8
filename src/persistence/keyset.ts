/*
 * Keyset paging, shared by every listing (pending and settled rows, finished
 * runs): a page is ordered by a date column and the id, and the next page
 * starts after the last (date, id) given out, not at an offset, so a row
 * that changes between two pages neither repeats nor hides another. The
 * cursor is that position, opaque to clients; one the package did not give
 * out is E_INVALID_CURSOR.
 */

import { DateTime } from 'luxon'
import type { LucidModel, ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import { E_INVALID_CURSOR } from '../errors.ts'
import { isRowId } from './models/tool_call.ts'
import { preparedColumns, readRows } from './prepared_columns.ts'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 200

/** One page and where the next starts (null on the last) */
export type KeysetPage<Row> = { rows: Row[]; next: string | null }

type Position = { at: string; id: string }

function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url')
}

function decodeCursor(cursor: string): Position {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (typeof at === 'string' && isRowId(id) && DateTime.fromISO(at).isValid) {
      return { at, id }
    }
  } catch {}
  throw new E_INVALID_CURSOR()
}

/**
 * A page size within 1..MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE when not given.
 */
export function pageSize(limit: number | undefined): number {
  const asked = Number.isFinite(limit) ? Math.trunc(limit!) : DEFAULT_PAGE_SIZE
  return Math.min(Math.max(asked, 1), MAX_PAGE_SIZE)
}

/**
 * Narrows `query` to the rows whose date `attribute` is at or after `from`
 * and before `before` (either may be left out), compared as the dialect
 * stores dates.
 *
 * @example
 * inRange(ToolCall.query(), 'settledAt', DateTime.fromISO('2030-03-01'))
 */
export function inRange<Model extends LucidModel>(
  query: ModelQueryBuilderContract<Model>,
  attribute: string,
  from?: DateTime,
  before?: DateTime
) {
  const column = query.model.$getColumn(attribute)!.columnName
  const probe = new query.model()
  const at = (date: DateTime) => preparedColumns(probe, { [attribute]: date })[column]
  if (from) query.where(column, '>=', at(from))
  if (before) query.where(column, '<', at(before))
  return query
}

/**
 * Reads one page of `query` ordered by `attribute` (a date, never null on
 * the rows the query keeps) then the id, both in `direction`, starting
 * after `cursor`. Rows are read as `readRows` reads them.
 *
 * @example
 * await keysetPage(ToolCall.query().where('owner_id', '1'), {
 *   attribute: 'settledAt', direction: 'desc', cursor: null, limit: 50,
 * })
 */
export async function keysetPage<Model extends LucidModel>(
  query: ModelQueryBuilderContract<Model>,
  options: {
    attribute: string
    direction: 'asc' | 'desc'
    cursor?: string | null
    limit?: number
  }
): Promise<KeysetPage<InstanceType<Model>>> {
  const model = query.model
  const column = model.$getColumn(options.attribute)!.columnName
  const table = model.table
  const qualified = `${table}.${column}`
  const beyond = options.direction === 'asc' ? '>' : '<'
  const limit = pageSize(options.limit)

  if (options.cursor) {
    const position = decodeCursor(options.cursor)
    const at = preparedColumns(new model(), {
      [options.attribute]: DateTime.fromISO(position.at),
    })[column]
    query.where((after) =>
      after
        .where(qualified, beyond, at)
        .orWhere((tie) => tie.where(qualified, at).where(`${table}.id`, beyond, position.id))
    )
  }

  const page = readRows(
    model,
    await query
      .orderBy(qualified, options.direction)
      .orderBy(`${table}.id`, options.direction)
      .limit(limit + 1)
      .pojo<Record<string, unknown>>()
  )
  const more = page.length > limit
  if (more) page.pop()
  const last = page.at(-1) as (InstanceType<Model> & Record<string, unknown>) | undefined
  const lastAt = last?.[options.attribute] as DateTime | null | undefined
  return {
    rows: page,
    next:
      more && last && lastAt ? encodeCursor({ at: lastAt.toISO()!, id: String(last.id) }) : null,
  }
}

/**
 * Pages of one ordering read from the same cursor, as one page of their
 * union: its first rows (each row once) and where the next page of every
 * query starts. A listing that is two queries (the rows a scope lets
 * through, and the rows waiting for the person's vote) pages by it: the
 * union's next `limit` rows are among each query's next `limit`.
 */
export function unionPages<Row extends { id: string }>(
  pages: KeysetPage<Row>[],
  options: { attribute: string; direction: 'asc' | 'desc'; limit?: number }
): KeysetPage<Row> {
  const limit = pageSize(options.limit)
  const sign = options.direction === 'asc' ? 1 : -1
  const when = (row: Row) =>
    ((row as Record<string, unknown>)[options.attribute] as DateTime).toMillis()
  const byId = new Map(pages.flatMap((page) => page.rows.map((row) => [row.id, row] as const)))
  const rows = [...byId.values()].sort(
    (a, b) => sign * (when(a) - when(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  )
  const more = rows.length > limit || pages.some((page) => page.next !== null)
  const taken = rows.slice(0, limit)
  const last = taken.at(-1)
  const lastAt = last ? ((last as Record<string, unknown>)[options.attribute] as DateTime) : null
  return {
    rows: taken,
    next: more && last && lastAt ? encodeCursor({ at: lastAt.toISO()!, id: last.id }) : null,
  }
}
