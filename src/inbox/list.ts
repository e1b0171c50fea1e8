/*
 * The one query for rows in the inbox: pending rows oldest first, or
 * settled rows newest first, narrowed to an owner, a run, an agent, kinds
 * and (settled rows: the history) statuses, who settled them and when, and
 * any scope the caller adds (the HTTP layer adds its authorization scope),
 * a page at a time. Pages follow a keyset cursor (../persistence/keyset.ts)
 * rather than an offset, so a row settled between two pages neither
 * repeats nor hides another row. A person's settled rows, newest first,
 * are one indexed range: `(owner_id, settled_at, id)`.
 */

import type { DateTime } from 'luxon'
import type { ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import { AgentRun } from '../persistence/models/agent_run.ts'
import {
  ToolCall,
  type ToolCallKind,
  type ToolCallStatus,
} from '../persistence/models/tool_call.ts'
import { inRange, keysetPage, type KeysetPage } from '../persistence/keyset.ts'

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../persistence/keyset.ts'

export type ToolCallQuery = ModelQueryBuilderContract<typeof ToolCall>

export type InboxQuery = {
  /** `pending`: waiting rows, oldest first; `settled`: settled rows, newest first */
  status: 'pending' | 'settled'
  /** Only rows this person owns; leave out for everyone's */
  ownerId?: string
  /** Only rows of this run */
  runId?: string
  /** Only rows of runs of this agent */
  agent?: string
  /** Only calls of this tool (`ask` for questions, `intake` for intake forms) */
  tool?: string
  /** Only rows of these kinds */
  kinds?: ToolCallKind[]
  /** Settled rows: only those that ended in these statuses */
  statuses?: ToolCallStatus[]
  /** Settled rows: only those this person settled */
  settledBy?: string
  /** Settled rows: only those settled at or after this time */
  settledFrom?: DateTime
  /** Settled rows: only those settled before this time */
  settledBefore?: DateTime
  /** Narrows the query further, e.g. to the rows a person may see */
  narrow?: (query: ToolCallQuery) => void | Promise<void>
  /** Rows per page: default 50, at most 200 */
  limit?: number
  /** The `next` of the previous page */
  cursor?: string | null
}

/**
 * A page of rows, without `reply`, `result` and `updatedAt`: read the row
 * (`inbox.find`) for those.
 */
export type InboxPage = KeysetPage<ToolCall>

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
  'ladder',
  'ladder_step',
  'ladder_due_at',
  'created_at',
  'definition_digest',
]
const PENDING_COLUMNS = LISTED_COLUMNS
const SETTLED_COLUMNS = [...LISTED_COLUMNS, 'outcome', 'answered_by', 'answered_via', 'settled_at']

/**
 * One page of inbox rows.
 *
 * @example
 * const first = await listRows({ status: 'pending', ownerId: 'user:1' })
 * const second = await listRows({ status: 'pending', ownerId: 'user:1', cursor: first.next })
 */
export async function listRows(query: InboxQuery): Promise<InboxPage> {
  const pending = query.status === 'pending'
  const rows = ToolCall.query().select(pending ? PENDING_COLUMNS : SETTLED_COLUMNS)
  if (pending) rows.where('status', 'pending')
  else rows.whereNot('status', 'pending').whereNotNull('settled_at')
  if (query.ownerId !== undefined) rows.where('owner_id', query.ownerId)
  if (query.runId !== undefined) rows.where('run_id', query.runId)
  if (query.agent !== undefined) {
    rows.whereIn('run_id', AgentRun.query().select('id').where('agent', query.agent))
  }
  if (query.tool !== undefined) rows.where('tool_name', query.tool)
  if (query.kinds?.length) rows.whereIn('kind', query.kinds)
  if (!pending) {
    if (query.statuses?.length) rows.whereIn('status', query.statuses)
    if (query.settledBy !== undefined) rows.where('answered_by', query.settledBy)
    inRange(rows, 'settledAt', query.settledFrom, query.settledBefore)
  }
  if (query.narrow) await query.narrow(rows)

  return keysetPage(rows, {
    attribute: pending ? 'createdAt' : 'settledAt',
    direction: pending ? 'asc' : 'desc',
    cursor: query.cursor,
    limit: query.limit,
  })
}
