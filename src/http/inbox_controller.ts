/*
 * The inbox over HTTP: the page (Inertia when the app has it, JSON for API
 * clients), a row's detail with its run's transcript, recently settled
 * rows, and the reply endpoint. It stays at the door: who is asking
 * (`access.identify`), what they may see (`access.authorize`, and
 * `access.scope` narrowing the listing), what the request says, then the
 * inbox or the runtime does the work. Every reply goes through
 * `inbox.settle`, so the web, the terminal and the API leave the same
 * audit trail.
 *
 * Errors are not caught here: the package's HTTP-facing exceptions
 * (../errors.ts) render themselves when the app's exception handler calls
 * their `handle`, with their own status and body.
 */

import type { HttpContext } from '@adonisjs/core/http'
import { E_FORBIDDEN, E_NOT_FOUND, HttpFacingException, InvalidQueryException } from '../errors.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { isRowId, type ToolCall } from '../persistence/models/tool_call.ts'
import { MAX_PAGE_SIZE, type InboxQuery } from '../inbox/list.ts'
import type { Agents } from '../runtime/agents.ts'
import type { InboxAccess } from './access.ts'
import { groupByRun, rowCard, runSummary, type ReplyFeedback } from './cards.ts'

/** The Inertia page the app receives as a stub */
export const INBOX_PAGE = 'agent_inbox/index'

type InertiaContext = HttpContext & {
  inertia?: { render(page: string, props: Record<string, unknown>): unknown }
  session?: {
    flash(key: string, value: unknown): void
    flashMessages: { get(key: string, defaultValue?: unknown): unknown }
  }
}

/**
 * What the last reply from the page flashed (this controller on success,
 * the error rendering itself on failure), for the page's `feedback` prop.
 * Read here rather than shared by the app's Inertia middleware, so the page
 * works in an app exactly as `configure` leaves it.
 */
function replyFeedback(ctx: InertiaContext): ReplyFeedback | null {
  const flashed = ctx.session?.flashMessages.get(HttpFacingException.replyFlashKey, null)
  return flashed && typeof flashed === 'object' ? (flashed as ReplyFeedback) : null
}

/** Who is at the door, and what they reach the inbox with */
type Visitor = { agents: Agents; access: InboxAccess; person: string }

/**
 * The channel a reply came through, recorded as `answered_via`. It is read
 * from what sends it, not from what it accepts: the inbox page posts its
 * replies as Inertia visits (`x-inertia`), so those are `web`; any other
 * client of these routes is the JSON API, `api`, even one that prefers HTML.
 */
function channelOf(ctx: HttpContext): 'web' | 'api' {
  return ctx.request.header('x-inertia') ? 'web' : 'api'
}

/**
 * Inertia visits and browsers get the page; everyone else JSON.
 */
function wantsPage(ctx: InertiaContext): boolean {
  if (!ctx.inertia) return false
  if (ctx.request.header('x-inertia')) return true
  return ctx.request.accepts(['json', 'html']) === 'html'
}

/**
 * The paging parameters of a listing's query string: `limit`, a whole
 * number from 1 to MAX_PAGE_SIZE, and `cursor`, the `next` of the previous
 * page. Anything else is refused with E_INVALID_QUERY rather than read as
 * a default.
 */
function pageParams(ctx: HttpContext): Pick<InboxQuery, 'limit' | 'cursor'> {
  const { limit, cursor } = ctx.request.qs()
  const errors: { field: string; message: string }[] = []
  const size = typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : Number.NaN
  if (limit !== undefined && !(size >= 1 && size <= MAX_PAGE_SIZE)) {
    errors.push({ field: 'limit', message: `Give a whole number from 1 to ${MAX_PAGE_SIZE}` })
  }
  if (cursor !== undefined && typeof cursor !== 'string') {
    errors.push({ field: 'cursor', message: 'Give one cursor, the "next" of the previous page' })
  }
  if (errors.length > 0) throw new InvalidQueryException(errors)
  return { limit: limit === undefined ? undefined : size, cursor: cursor || null }
}

export default class InboxController {
  /**
   * The runtime, the access hooks and the signed-in person; E_FORBIDDEN
   * for a guest.
   */
  async #visitor(ctx: HttpContext): Promise<Visitor> {
    const access = await ctx.containerResolver.make('agents.access')
    const person = await access.identify(ctx)
    if (!person) throw new E_FORBIDDEN()
    return { agents: await ctx.containerResolver.make('agents.runtime'), access, person }
  }

  /**
   * A row the visitor may see, or E_NOT_FOUND / E_FORBIDDEN.
   */
  async #row(ctx: HttpContext, { agents, access, person }: Visitor): Promise<ToolCall> {
    // Row ids are UUIDs: anything else (a NUL byte, a megabyte) is no row, never a query
    const id: unknown = ctx.params.id
    if (!isRowId(id)) throw new E_NOT_FOUND(['No row with that id: row ids are UUIDs'])
    const row = await agents.inbox.find(id)
    if (!row) throw new E_NOT_FOUND([`No row ${id}`])
    if (!(await access.authorize(ctx, row, person))) throw new E_FORBIDDEN()
    return row
  }

  /**
   * One page of the rows the visitor may see, through the access scope.
   */
  #page(ctx: HttpContext, { agents, access, person }: Visitor, status: InboxQuery['status']) {
    return agents.inbox.list({
      status,
      narrow: (query) => access.scope(query, ctx, person),
      ...pageParams(ctx),
    })
  }

  /**
   * Pending rows the person may settle, oldest first, grouped by run, a
   * page at a time (`?limit=`, and `?cursor=` takes the `next` of the
   * previous page).
   */
  async index(ctx: InertiaContext) {
    const visitor = await this.#visitor(ctx)
    const { rows, next } = await this.#page(ctx, visitor, 'pending')
    const runIds = rows.flatMap((row) => (row.runId ? [row.runId] : []))
    const runs = await AgentRun.query().whereIn('id', runIds)
    const listing = {
      person: visitor.person,
      groups: groupByRun(rows, new Map(runs.map((run) => [run.id, run]))),
      next,
    }
    if (!wantsPage(ctx)) return listing
    return ctx.inertia!.render(INBOX_PAGE, { ...listing, feedback: replyFeedback(ctx) })
  }

  /**
   * Rows settled lately that the person may see, newest first, a page at
   * a time.
   */
  async settled(ctx: HttpContext) {
    const { rows, next } = await this.#page(ctx, await this.#visitor(ctx), 'settled')
    return { rows: rows.map(rowCard), next }
  }

  /**
   * One row with its run's transcript: the conversation, every tool call,
   * and who settled what, via what, when.
   */
  async show(ctx: HttpContext) {
    const visitor = await this.#visitor(ctx)
    const row = await this.#row(ctx, visitor)
    // A wait opened outside the runtime has no run to tell
    if (!row.runId) return { row: rowCard(row), run: null, rows: [rowCard(row)], journal: [] }
    const { run, rows, journal } = await visitor.agents.transcript(row.runId)
    return {
      row: rowCard(row),
      run: {
        ...runSummary(run),
        result: run.result,
        errorCode: run.errorCode,
        error: run.error,
        // A drive that failed (the run is resumed by the periodic recovery)
        lastError: run.lastError,
        lastErrorAt: run.lastErrorAt?.toISO() ?? null,
      },
      rows: rows.map(rowCard),
      journal: journal.map((entry) => ({
        sequence: entry.sequence,
        kind: entry.kind,
        payload: entry.payload,
        createdAt: entry.createdAt?.toISO() ?? null,
      })),
    }
  }

  /**
   * Settles a row with the request body as the reply.
   */
  async reply(ctx: InertiaContext) {
    const visitor = await this.#visitor(ctx)
    const row = await this.#row(ctx, visitor)
    const settled = await visitor.agents.inbox.settle(row, ctx.request.body(), {
      by: visitor.person,
      via: channelOf(ctx),
    })
    if (wantsPage(ctx)) {
      // The page shows who settled the row, via what and when, as recorded
      const feedback: ReplyFeedback = {
        rowId: settled.id,
        settled: {
          by: settled.answeredBy,
          via: settled.answeredVia,
          at: settled.settledAt?.toISO() ?? null,
        },
      }
      ctx.session?.flash(HttpFacingException.replyFlashKey, feedback)
      return ctx.response.redirect().back()
    }
    return { row: rowCard(settled) }
  }
}
