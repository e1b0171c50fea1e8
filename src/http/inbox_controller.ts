/*
 * The inbox over HTTP: the page (Inertia when the app has it, JSON for API
 * clients), a row's detail with its run's transcript, recently settled
 * rows, and the reply endpoint. Every reply goes through `inbox.settle`, so
 * the web, the terminal and the API leave the same audit trail; this file
 * only adds identity, authorization and the mapping of errors to statuses.
 */

import type { HttpContext } from '@adonisjs/core/http'
import {
  AlreadySettledException,
  E_FORBIDDEN,
  E_NOT_FOUND,
  InvalidReplyException,
  ReplyMismatchException,
} from '../errors.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { type ToolCall } from '../persistence/models/tool_call.ts'
import type { InboxQuery } from '../inbox/list.ts'
import type { Agents } from '../runtime/agents.ts'
import type { InboxAccess } from './access.ts'
import { groupByRun, rowCard, runSummary } from './cards.ts'

/** The Inertia page the app receives as a stub */
export const INBOX_PAGE = 'agent_inbox/index'

type InertiaContext = HttpContext & {
  inertia?: { render(page: string, props: Record<string, unknown>): unknown }
  session?: { flash(key: string, value: unknown): void }
}

/**
 * Inertia visits and browsers get the page; everyone else JSON.
 */
function wantsPage(ctx: InertiaContext): boolean {
  if (!ctx.inertia) return false
  if (ctx.request.header('x-inertia')) return true
  return ctx.request.accepts(['json', 'html']) === 'html'
}

export default class InboxController {
  async #agents(ctx: HttpContext): Promise<Agents> {
    return ctx.containerResolver.make('agents.runtime')
  }

  /**
   * The signed-in person, or E_FORBIDDEN for a guest.
   */
  async #person(ctx: HttpContext, access: InboxAccess): Promise<string> {
    const person = await access.identify(ctx)
    if (!person) throw new E_FORBIDDEN()
    return person
  }

  /**
   * Runs `work` for the signed-in person; known errors, a guest included,
   * become their responses through `#fail`.
   */
  async #forPerson<T>(
    ctx: InertiaContext,
    work: (agents: Agents, person: string, access: InboxAccess) => Promise<T>
  ) {
    const agents = await this.#agents(ctx)
    const access = await ctx.containerResolver.make('agents.access')
    try {
      return await work(agents, await this.#person(ctx, access), access)
    } catch (error) {
      return this.#fail(ctx, error)
    }
  }

  /**
   * A row the person may see, or E_NOT_FOUND / E_FORBIDDEN.
   */
  async #row(
    ctx: HttpContext,
    agents: Agents,
    person: string,
    access: InboxAccess
  ): Promise<ToolCall> {
    const row = await agents.inbox.find(ctx.params.id)
    if (!row) throw new E_NOT_FOUND([`No row ${ctx.params.id}`])
    if (!(await access.authorize(ctx, row, person))) throw new E_FORBIDDEN()
    return row
  }

  /**
   * One page of the rows the person may see, through the access scope.
   */
  #page(
    ctx: HttpContext,
    agents: Agents,
    person: string,
    access: InboxAccess,
    status: InboxQuery['status']
  ) {
    return agents.inbox.list({
      status,
      narrow: (query) => access.scope(query, ctx, person),
      cursor: ctx.request.input('cursor') ?? null,
      limit:
        ctx.request.input('limit') === undefined ? undefined : Number(ctx.request.input('limit')),
    })
  }

  /**
   * Pending rows the person may settle, oldest first, grouped by run, a
   * page at a time (`?cursor=` takes the `next` of the previous page).
   */
  index(ctx: InertiaContext) {
    return this.#forPerson(ctx, async (agents, person, access) => {
      const { rows, next } = await this.#page(ctx, agents, person, access, 'pending')
      const runIds = rows.flatMap((row) => (row.runId ? [row.runId] : []))
      const runs = await AgentRun.query().whereIn('id', runIds)
      const listing = {
        person,
        groups: groupByRun(rows, new Map(runs.map((run) => [run.id, run]))),
        next,
      }
      return wantsPage(ctx) ? ctx.inertia!.render(INBOX_PAGE, listing) : listing
    })
  }

  /**
   * Rows settled lately that the person may see, newest first, a page at
   * a time.
   */
  settled(ctx: HttpContext) {
    return this.#forPerson(ctx, async (agents, person, access) => {
      const { rows, next } = await this.#page(ctx, agents, person, access, 'settled')
      return { rows: rows.map(rowCard), next }
    })
  }

  /**
   * One row with its run's transcript: the conversation, every tool call,
   * and who settled what, via what, when.
   */
  show(ctx: HttpContext) {
    return this.#forPerson(ctx, async (agents, person, access) => {
      const row = await this.#row(ctx, agents, person, access)
      // A wait opened outside the runtime has no run to tell
      if (!row.runId) return { row: rowCard(row), run: null, rows: [rowCard(row)], journal: [] }
      const { run, rows, journal } = await agents.transcript(row.runId)
      return {
        row: rowCard(row),
        run: { ...runSummary(run), result: run.result, errorCode: run.errorCode, error: run.error },
        rows: rows.map(rowCard),
        journal: journal.map((entry) => ({
          sequence: entry.sequence,
          kind: entry.kind,
          payload: entry.payload,
          createdAt: entry.createdAt?.toISO() ?? null,
        })),
      }
    })
  }

  /**
   * Settles a row with the request body as the reply.
   */
  reply(ctx: InertiaContext) {
    return this.#forPerson(ctx, async (agents, person, access) => {
      await this.#row(ctx, agents, person, access)
      const settled = await agents.inbox.settle(ctx.params.id, ctx.request.body(), {
        by: person,
        via: wantsPage(ctx) ? 'web' : 'api',
      })
      if (wantsPage(ctx)) {
        ctx.session?.flash('inbox', { settled: settled.id })
        return ctx.response.redirect().back()
      }
      return { row: rowCard(settled) }
    })
  }

  /**
   * Known errors become their status with a JSON body (or, for the page,
   * flashed errors and a redirect back); anything else goes to the app's
   * exception handler.
   */
  #fail(ctx: InertiaContext, error: unknown) {
    const body = errorBody(error)
    if (!body) throw error
    if (wantsPage(ctx) && ctx.request.method() !== 'GET' && ctx.session) {
      ctx.session.flash('errors', fieldErrors(body))
      ctx.session.flash('inbox', { error: body })
      return ctx.response.redirect().back()
    }
    return ctx.response.status(body.status).send(body)
  }
}

type ErrorBody = {
  status: number
  code: string
  message: string
  errors?: { field: string; message: string }[]
  settledBy?: string | null
  settledVia?: string | null
  settledAt?: string | null
}

/**
 * The JSON body of a known error, or null for an unknown one.
 */
export function errorBody(error: unknown): ErrorBody | null {
  if (error instanceof InvalidReplyException) {
    return {
      status: 422,
      code: error.code!,
      message: error.message,
      errors: error.errors.map((issue) => ({ field: issue.path, message: issue.message })),
    }
  }
  if (error instanceof ReplyMismatchException) {
    return {
      status: 422,
      code: error.code!,
      message: error.message,
      errors: [
        { field: error.expected === 'decision' ? 'approved' : 'answers', message: error.message },
      ],
    }
  }
  if (error instanceof AlreadySettledException) {
    return {
      status: 409,
      code: error.code!,
      message: error.message,
      settledBy: error.settledBy,
      settledVia: error.settledVia,
      settledAt: error.settledAt?.toISOString() ?? null,
    }
  }
  const coded = error as { code?: string; status?: number; message?: string }
  if (
    coded &&
    typeof coded.code === 'string' &&
    ['E_EXPIRED', 'E_CANCELLED', 'E_NOT_FOUND', 'E_FORBIDDEN'].includes(coded.code)
  ) {
    return { status: coded.status ?? 400, code: coded.code, message: coded.message ?? coded.code }
  }
  return null
}

/**
 * Field errors keyed by field, the shape Inertia forms read.
 */
function fieldErrors(body: ErrorBody): Record<string, string> {
  if (!body.errors) return { reply: body.message }
  return Object.fromEntries(body.errors.map((error) => [error.field, error.message]))
}
