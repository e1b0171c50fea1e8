/*
 * What every inbox route does at the door, shared by its controllers: who
 * is asking (`access.identify`), whether they may see the row they name
 * (`access.authorize`; a run: ./run_sight.ts), whether they get a page
 * or JSON, what the page was told of its last reply, and how people are
 * named on it. Errors are not caught: the package's HTTP-facing exceptions
 * render themselves.
 */

import type { HttpContext } from '@adonisjs/core/http'
import {
  E_FORBIDDEN,
  E_NOT_FOUND,
  HttpFacingException,
  InvalidQueryException,
  InvalidReplyException,
  type FieldError,
} from '../errors.ts'
import { quorumOf } from '../inbox/votes.ts'
import { namedApprovers } from '../governance/view.ts'
import type { GrantScope } from '../persistence/models/grant.ts'
import { isRowId, ToolCall } from '../persistence/models/tool_call.ts'
import { MAX_PAGE_SIZE } from '../persistence/keyset.ts'
import { readRows } from '../persistence/prepared_columns.ts'
import type { Agents } from '../runtime/agents.ts'
import { droppedFieldIssues, formFieldTree } from '../questions/reply_body.ts'
import type { QuestionIssue } from '../questions/types.ts'
import { namePeople, type InboxAccess } from './access.ts'
import { Words, wordsOf } from '../i18n/words.ts'
import { PAGE_WORDS, type PageWordKey } from '../i18n/catalogue/pages.ts'
import type { People, ReplyFeedback } from './cards.ts'

export type InertiaContext = HttpContext & {
  inertia?: { render(page: string, props: Record<string, unknown>): unknown }
  session?: {
    flash(key: string, value: unknown): void
    flashMessages: { get(key: string, defaultValue?: unknown): unknown }
  }
}

/** Who is at the door, and what they reach the inbox with */
export type Visitor = { agents: Agents; access: InboxAccess; person: string }

/**
 * The runtime, the access hooks and the signed-in person; E_FORBIDDEN for
 * a guest.
 */
export async function visitorOf(ctx: HttpContext): Promise<Visitor> {
  const access = await ctx.containerResolver.make('agents.access')
  const person = await access.identify(ctx)
  if (!person) throw new E_FORBIDDEN()
  return { agents: await ctx.containerResolver.make('agents.runtime'), access, person }
}

/**
 * An id from the URL that can name a row or a run (a lowercase UUID, as
 * written), else E_NOT_FOUND: anything else is never a query.
 */
export function uuidParam(id: unknown, what: 'row' | 'run'): string {
  if (!isRowId(id)) throw new E_NOT_FOUND([`No ${what} with that id: ${what} ids are UUIDs`])
  return id
}

/**
 * The row of `:id` if the visitor may see it, else E_NOT_FOUND /
 * E_FORBIDDEN. Row ids are UUIDs: anything else (a NUL byte, a megabyte)
 * is no row, never a query.
 */
export async function authorizedRow(ctx: HttpContext, visitor: Visitor): Promise<ToolCall> {
  const id = uuidParam(ctx.params.id, 'row')
  const row = await visitor.agents.inbox.find(id)
  if (!row) throw new E_NOT_FOUND([`No row ${id}`])
  if (!(await mayDecide(ctx, visitor, row))) throw new E_FORBIDDEN()
  return row
}

/**
 * Whether the visitor may see and reply to a row: `authorize` says so, or
 * the row needs a quorum and they are among its approvers (whether their
 * vote counts is the settle's to say: docs/design.md §11.3).
 */
export async function mayDecide(
  ctx: HttpContext,
  visitor: Pick<Visitor, 'access' | 'person'>,
  row: ToolCall
): Promise<boolean> {
  if (namedApprovers(quorumOf(row)).includes(visitor.person)) return true
  return visitor.access.authorize(ctx, row, visitor.person)
}

/** The grant scopes a reply may ask to remember */
const GRANT_SCOPES = new Set(['run', 'person', 'args'])

/**
 * The body as the client wrote it, read again from the raw text, for the
 * names the body parser dropped; null when there is nothing to compare
 * (no body, a multipart body, a parser that kept no text).
 */
function sentBody(ctx: HttpContext): unknown {
  const raw = ctx.request.raw()
  if (!raw) return null
  const type = (ctx.request as { bodyType?: string }).bodyType
  if (type === 'urlencoded') return formFieldTree(raw)
  if (type !== 'json') return null
  try {
    return JSON.parse(raw)
  } catch {
    /* c8 ignore next 2 -- the body parser parsed the same text a moment ago */
    return null
  }
}

/**
 * The body of a reply (or a bulk decision), or E_INVALID_REPLY naming a
 * field the app's body parser dropped (`constructor`, `__proto__`,
 * `toString` in a form): a reply is read strictly, and a field it was
 * sent with is never settled as if it were not.
 */
export function replyBody(ctx: HttpContext): Record<string, unknown> {
  const body = ctx.request.body()
  const issues = droppedFieldIssues(sentBody(ctx), body)
  if (issues.length > 0) throw new InvalidReplyException(issues)
  return body
}

/**
 * A reply's body split into the reply itself and its envelope: `digest`,
 * the view of the row the person was shown (required over HTTP:
 * docs/design.md §11.4), and `grant`, a scope to remember an approval
 * with. E_INVALID_REPLY when they are not strings of the right kind.
 */
export function replyEnvelope(body: Record<string, unknown>) {
  const { digest, grant, ...reply } = body ?? {}
  const issues: QuestionIssue[] = []
  if (digest !== undefined && typeof digest !== 'string') {
    issues.push({
      path: 'digest',
      message: 'must be the digest of the row as shown',
      rule: 'string',
    })
  }
  if (grant !== undefined && (typeof grant !== 'string' || !GRANT_SCOPES.has(grant))) {
    issues.push({
      path: 'grant',
      message: 'must be one of run, person, args',
      rule: 'enum',
      meta: { choices: [...GRANT_SCOPES] },
    })
  }
  if (issues.length > 0) throw new InvalidReplyException(issues)
  return {
    reply,
    view: digest as string | undefined,
    grant: grant as GrantScope | undefined,
  }
}

/**
 * What the audit log records of the request: its id and the client's IP.
 */
export function requestOf(ctx: HttpContext) {
  return { requestId: ctx.request.id() ?? null, ip: ctx.request.ip() ?? null }
}

/**
 * Rows by id, those the visitor may see (`authorize`), in one query.
 * Returns the rows found and allowed, and an error per id that is not.
 */
export async function authorizedRows(ctx: HttpContext, visitor: Visitor, ids: string[]) {
  const wanted = ids.filter(isRowId)
  const found = wanted.length
    ? readRows(ToolCall, await ToolCall.query().whereIn('id', wanted).pojo())
    : []
  const byId = new Map(found.map((row) => [row.id, row]))
  const allowed = new Map<string, ToolCall>()
  const refused = new Map<string, HttpFacingException>()
  for (const id of ids) {
    const row = byId.get(id)
    if (!row) refused.set(id, new E_NOT_FOUND([`No row ${id}`]))
    else if (!(await mayDecide(ctx, visitor, row))) {
      refused.set(id, new E_FORBIDDEN())
    } else allowed.set(id, row)
  }
  return { allowed, refused }
}

/**
 * The channel a reply came through, recorded as `answered_via`. It is read
 * from what sends it, not from what it accepts: the inbox pages post their
 * replies as Inertia visits (`x-inertia`), so those are `web`; any other
 * client of these routes is the JSON API, `api`, even one that prefers HTML.
 */
export function channelOf(ctx: HttpContext): 'web' | 'api' {
  return ctx.request.header('x-inertia') ? 'web' : 'api'
}

/**
 * Inertia visits and browsers get the page; everyone else JSON.
 */
export function wantsPage(ctx: InertiaContext): boolean {
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
export function pageParams(ctx: HttpContext): { limit?: number; cursor: string | null } {
  const { limit, cursor } = ctx.request.qs()
  const errors: FieldError[] = []
  const size = typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : Number.NaN
  if (limit !== undefined && !(size >= 1 && size <= MAX_PAGE_SIZE)) {
    errors.push({
      field: 'limit',
      message: `Give a whole number from 1 to ${MAX_PAGE_SIZE}`,
      rule: 'range',
      meta: { min: 1, max: MAX_PAGE_SIZE },
    })
  }
  if (cursor !== undefined && typeof cursor !== 'string') {
    errors.push({
      field: 'cursor',
      message: 'Give one cursor, the "next" of the previous page',
      rule: 'string',
    })
  }
  if (errors.length > 0) throw new InvalidQueryException(errors)
  return { limit: limit === undefined ? undefined : size, cursor: cursor || null }
}

/**
 * What the last reply from a page flashed (a controller on success, the
 * error rendering itself on failure), for the page's `feedback` prop. Read
 * here rather than shared by the app's Inertia middleware, so the pages
 * work in an app exactly as `configure` leaves it.
 */
export function replyFeedback(ctx: InertiaContext): ReplyFeedback | null {
  const flashed = ctx.session?.flashMessages.get(HttpFacingException.replyFlashKey, null)
  return flashed && typeof flashed === 'object' ? (flashed as ReplyFeedback) : null
}

/**
 * The people a feedback names: who settled the row(s), or who won first.
 */
export function feedbackPeople(feedback: ReplyFeedback | null): (string | null | undefined)[] {
  if (!feedback) return []
  return [feedback, ...(feedback.bulk ?? [])].flatMap((item) => [
    item.settled?.by,
    ...(item.error?.errors ?? []).map(({ meta }) =>
      typeof meta?.settledBy === 'string' ? meta.settledBy : null
    ),
  ])
}

/**
 * The names of the visitor and of `others`, by id.
 */
export function peopleOf(
  ctx: HttpContext,
  visitor: Visitor,
  others: Iterable<string | null | undefined>
): Promise<People> {
  return namePeople(visitor.access, ctx, [visitor.person, ...others])
}

/**
 * Where the inbox lives (its routes share this prefix): the pages link to
 * one another and post replies from it.
 */
export async function inboxUrl(ctx: HttpContext): Promise<string> {
  const router = await ctx.containerResolver.make('router')
  const urlFor = router.urlBuilder.urlFor as unknown as (name: string) => string
  return urlFor('agent_inbox.index')
}

/**
 * Renders an inbox page for Inertia visits and browsers, the props as JSON
 * for everyone else.
 */
export function respond(ctx: InertiaContext, page: string, props: Record<string, unknown>) {
  return wantsPage(ctx) ? renderPage(ctx, page, props) : props
}

/**
 * Renders a page with the words of the request's language (`ctx.i18n`,
 * when the app has `@adonisjs/i18n`): its locale, and those of the pages'
 * messages that differ from the English the page already holds.
 */
export function renderPage(ctx: InertiaContext, page: string, props: Record<string, unknown>) {
  const language = wordsOf(ctx)
  // Without i18n in the app: English, which the page holds, and no locale (dates as the browser writes them)
  if (language === Words.english) return ctx.inertia!.render(page, { ...props, words: {} })
  const messages = language.messages('page.') as Record<PageWordKey, string>
  const words = Object.fromEntries(
    Object.entries(messages).filter(([key, text]) => PAGE_WORDS[key as PageWordKey] !== text)
  )
  return ctx.inertia!.render(page, { ...props, locale: language.locale, words })
}
