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
import { ToolCall } from '../persistence/models/tool_call.ts'
import type { Agents } from '../runtime/agents.ts'
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
  async #person(ctx: HttpContext, agents: Agents): Promise<string> {
    const person = await agents.inbox.access.identify(ctx)
    if (!person) throw new E_FORBIDDEN()
    return person
  }

  /**
   * Runs `work` for the signed-in person; known errors, a guest included,
   * become their responses through `#fail`.
   */
  async #forPerson<T>(ctx: InertiaContext, work: (agents: Agents, person: string) => Promise<T>) {
    const agents = await this.#agents(ctx)
    try {
      return await work(agents, await this.#person(ctx, agents))
    } catch (error) {
      return this.#fail(ctx, error)
    }
  }

  /**
   * A row the person may see, or E_NOT_FOUND / E_FORBIDDEN.
   */
  async #row(ctx: HttpContext, agents: Agents, person: string): Promise<ToolCall> {
    const row = await agents.inbox.find(ctx.params.id)
    if (!row) throw new E_NOT_FOUND([`No row ${ctx.params.id}`])
    if (!(await agents.inbox.access.authorize(ctx, row, person))) throw new E_FORBIDDEN()
    return row
  }

  async #listing(ctx: HttpContext, agents: Agents, person: string) {
    const pending = ToolCall.query().where('status', 'pending')
    await agents.inbox.access.scope(pending, ctx, person)
    const rows = await pending.orderBy('created_at', 'asc').orderBy('sequence', 'asc').limit(200)
    const runs = await AgentRun.query().whereIn(
      'id',
      rows.map((row) => row.runId)
    )
    return { person, groups: groupByRun(rows, new Map(runs.map((run) => [run.id, run]))) }
  }

  /**
   * Pending rows the person may settle, oldest first, grouped by run.
   */
  index(ctx: InertiaContext) {
    return this.#forPerson(ctx, async (agents, person) => {
      const listing = await this.#listing(ctx, agents, person)
      return wantsPage(ctx) ? ctx.inertia!.render(INBOX_PAGE, listing) : listing
    })
  }

  /**
   * Rows settled lately that the person may see, newest first.
   */
  settled(ctx: HttpContext) {
    return this.#forPerson(ctx, async (agents, person) => {
      const query = ToolCall.query().whereNot('status', 'pending').whereNotNull('settled_at')
      await agents.inbox.access.scope(query, ctx, person)
      const rows = await query.orderBy('settled_at', 'desc').limit(50)
      return { rows: rows.map(rowCard) }
    })
  }

  /**
   * One row with its run's transcript: the conversation, every tool call,
   * and who settled what, via what, when.
   */
  show(ctx: HttpContext) {
    return this.#forPerson(ctx, async (agents, person) => {
      const row = await this.#row(ctx, agents, person)
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
    return this.#forPerson(ctx, async (agents, person) => {
      await this.#row(ctx, agents, person)
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
