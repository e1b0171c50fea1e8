/*
 * The one query for rows in the inbox: pending rows oldest first, or
 * settled rows newest first, narrowed to an owner, a run or any scope the
 * caller adds (the HTTP layer adds its authorization scope), a page at a
 * time. Pages follow a keyset cursor rather than an offset, so a row
 * settled between two pages neither repeats nor hides another row.
 */

import { DateTime } from 'luxon'
import type { ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import { E_INVALID_CURSOR } from '../errors.ts'
import { isRowId, ToolCall } from '../persistence/models/tool_call.ts'
import { preparedColumns, readRows } from '../persistence/prepared_columns.ts'

export type ToolCallQuery = ModelQueryBuilderContract<typeof ToolCall>

export type InboxQuery = {
  /** `pending`: waiting rows, oldest first; `settled`: settled rows, newest first */
  status: 'pending' | 'settled'
  /** Only rows this person owns; leave out for everyone's */
  ownerId?: string
  /** Only rows of this run */
  runId?: string
  /** Narrows the query further, e.g. to the rows a person may see */
  narrow?: (query: ToolCallQuery) => void | Promise<void>
  /** Rows per page: default 50, at most 200 */
  limit?: number
  /** The `next` of the previous page */
  cursor?: string | null
}

export type InboxPage = {
  /** Without `reply`, `result` and `updatedAt`: read the row (`inbox.find`) for those */
  rows: ToolCall[]
  /** Pass as `cursor` for the following page; null on the last page */
  next: string | null
}

/**
 * What a listed row carries: what a card shows and a channel acts on. A
 * pending row has no reply, outcome or result yet, and a listing shows
 * neither the raw reply nor a tool's result, so those (the large JSON
 * columns) are neither read nor parsed.
 */
const LISTED_COLUMNS = [
  'id',
  'run_id',
  'sequence',
  'attempt',
  'tool_call_id',
  'tool_name',
  'kind',
  'status',
  'owner_id',
  'request',
  'args_hash',
  'expires_at',
  'on_expiry',
  'created_at',
]
const PENDING_COLUMNS = LISTED_COLUMNS
const SETTLED_COLUMNS = [...LISTED_COLUMNS, 'outcome', 'answered_by', 'answered_via', 'settled_at']

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 200

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
 * One page of inbox rows.
 *
 * @example
 * const first = await listRows({ status: 'pending', ownerId: 'user:1' })
 * const second = await listRows({ status: 'pending', ownerId: 'user:1', cursor: first.next })
 */
export async function listRows(query: InboxQuery): Promise<InboxPage> {
  const asked = Number.isFinite(query.limit) ? Math.trunc(query.limit!) : DEFAULT_PAGE_SIZE
  const limit = Math.min(Math.max(asked, 1), MAX_PAGE_SIZE)
  const pending = query.status === 'pending'
  const column = pending ? 'created_at' : 'settled_at'
  const direction = pending ? 'asc' : 'desc'
  const beyond = pending ? '>' : '<'

  const rows = ToolCall.query().select(pending ? PENDING_COLUMNS : SETTLED_COLUMNS)
  if (pending) rows.where('status', 'pending')
  else rows.whereNot('status', 'pending').whereNotNull('settled_at')
  if (query.ownerId !== undefined) rows.where('owner_id', query.ownerId)
  if (query.runId !== undefined) rows.where('run_id', query.runId)
  if (query.narrow) await query.narrow(rows)

  if (query.cursor) {
    const position = decodeCursor(query.cursor)
    const at = preparedColumns(new ToolCall(), {
      [pending ? 'createdAt' : 'settledAt']: DateTime.fromISO(position.at),
    })[column]
    rows.where((after) =>
      after
        .where(column, beyond, at)
        .orWhere((tie) => tie.where(column, at).where('id', beyond, position.id))
    )
  }

  const page = readRows(
    ToolCall,
    await rows
      .orderBy(column, direction)
      .orderBy('id', direction)
      .limit(limit + 1)
      .pojo<Record<string, unknown>>()
  )
  const more = page.length > limit
  if (more) page.pop()
  const last = page.at(-1)
  const lastAt = last && (pending ? last.createdAt : last.settledAt)
  return {
    rows: page,
    next: more && last && lastAt ? encodeCursor({ at: lastAt.toISO()!, id: last.id }) : null,
  }
}
