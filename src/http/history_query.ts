/*
 * The history's query string, read with Vine: which list (settled rows or
 * finished runs), its filters (agent, status, kind, who settled, a range of
 * days) and its page. Blank fields (a filter form left on "any") are no
 * filter; anything else that does not hold (a field it does not take, a
 * rows filter on the runs list, a control character) is E_INVALID_QUERY
 * naming the field, never read as a default or ignored.
 */

import vine, { errors as vineErrors } from '@vinejs/vine'
import { DateTime } from 'luxon'
import { InvalidQueryException, type FieldError } from '../errors.ts'
import { FINISHED_RUN_STATUSES, type RunStatus } from '../persistence/models/agent_run.ts'
import type { ToolCallKind, ToolCallStatus } from '../persistence/models/tool_call.ts'
import { MAX_PAGE_SIZE } from '../persistence/keyset.ts'
import { PRINTABLE } from './request_text.ts'

/** The statuses a settled row ends in */
export const SETTLED_ROW_STATUSES = [
  'answered',
  'approved',
  'rejected',
  'expired',
  'cancelled',
] as const satisfies ToolCallStatus[]

export const ROW_KINDS = ['ask', 'intake', 'action', 'read'] as const satisfies ToolCallKind[]

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** A free-text filter: a name as the app stores it */
const name = () => vine.string().maxLength(120).regex(PRINTABLE)

const FIELDS = {
  view: vine.enum(['rows', 'runs']).optional(),
  agent: name().optional(),
  status: vine.enum([...SETTLED_ROW_STATUSES, ...FINISHED_RUN_STATUSES]).optional(),
  kind: vine.enum(ROW_KINDS).optional(),
  by: name().optional(),
  from: vine.string().regex(DAY).optional(),
  to: vine.string().regex(DAY).optional(),
  limit: vine.number().withoutDecimals().range([1, MAX_PAGE_SIZE]).optional(),
  cursor: vine.string().maxLength(500).regex(PRINTABLE).optional(),
}
const historyValidator = vine.create(FIELDS)

/** The filters that tell rows apart, which a runs history does not take */
const ROWS_ONLY = ['kind', 'by'] as const

/**
 * The fields of a query string the history does not take: unknown ones,
 * and the rows' own filters on the runs history. Pure.
 *
 * @example
 * refusedFields({ view: 'runs', by: '1', zzz: '1' }) // [{ field: 'zzz', … }, { field: 'by', … }]
 */
export function refusedFields(given: Record<string, unknown>): FieldError[] {
  const refused: FieldError[] = Object.keys(given)
    .filter((field) => !Object.hasOwn(FIELDS, field))
    .map((field) => ({
      field,
      message: `The history takes no "${field}" filter: ${Object.keys(FIELDS).join(', ')}`,
      rule: 'unknown',
    }))
  if (given.view === 'runs') {
    for (const field of ROWS_ONLY) {
      // Blank is "any" (the page's form sends its rows filters blank after a switch to runs)
      if (given[field] === undefined || given[field] === '') continue
      refused.push({ field, message: `A runs history has no "${field}" filter`, rule: 'view' })
    }
  }
  return refused
}

/**
 * The history's filters as the page shows them back (blank ones left out).
 */
export type HistoryFilters = {
  view: 'rows' | 'runs'
  agent?: string
  status?: string
  kind?: ToolCallKind
  /** Who settled the rows (rows only) */
  by?: string
  /** First day, YYYY-MM-DD (UTC) */
  from?: string
  /** Last day, YYYY-MM-DD (UTC), included */
  to?: string
}

export type HistoryQuery = {
  filters: HistoryFilters
  /** `from`'s first instant; the instant after `to` */
  range: { from?: DateTime; before?: DateTime }
  statuses?: (ToolCallStatus | RunStatus)[]
  limit?: number
  cursor: string | null
}

function day(value: string, field: string): DateTime {
  const at = DateTime.fromISO(value, { zone: 'utc' })
  if (!at.isValid) {
    throw new InvalidQueryException([{ field, message: 'Give a day as YYYY-MM-DD', rule: 'date' }])
  }
  return at
}

/**
 * Reads the history's query string.
 *
 * @example
 * await readHistoryQuery({ view: 'rows', status: 'approved', from: '2026-01-01' })
 */
export async function readHistoryQuery(qs: Record<string, unknown>): Promise<HistoryQuery> {
  const given = Object.fromEntries(Object.entries(qs).filter(([, value]) => value !== ''))
  const refused = refusedFields(given)
  if (refused.length > 0) throw new InvalidQueryException(refused)
  let read: Awaited<ReturnType<typeof historyValidator.validate>>
  try {
    read = await historyValidator.validate(given)
  } catch (error) {
    if (!(error instanceof vineErrors.E_VALIDATION_ERROR)) throw error
    throw new InvalidQueryException(error.messages as FieldError[])
  }
  const view = read.view ?? 'rows'
  const statuses: readonly string[] = view === 'rows' ? SETTLED_ROW_STATUSES : FINISHED_RUN_STATUSES
  if (read.status && !statuses.includes(read.status)) {
    throw new InvalidQueryException([
      {
        field: 'status',
        message: `A ${view} history lists ${statuses.join(', ')}`,
        rule: 'enum',
        meta: { choices: [...statuses] },
      },
    ])
  }
  const filters: HistoryFilters = { view }
  for (const key of ['agent', 'status', 'from', 'to'] as const) {
    if (read[key] !== undefined) filters[key] = read[key]
  }
  if (read.kind) filters.kind = read.kind
  if (read.by) filters.by = read.by
  return {
    filters,
    range: {
      from: read.from ? day(read.from, 'from') : undefined,
      before: read.to ? day(read.to, 'to').plus({ days: 1 }) : undefined,
    },
    statuses: read.status ? [read.status] : undefined,
    limit: read.limit,
    cursor: read.cursor ?? null,
  }
}
