/*
 * The one-tap links of notification mails (docs/design.md §7.7). A GET
 * shows the confirmation page and changes nothing (mail scanners and
 * link previews open links); the page's POST settles the row through the
 * one settle path, as the link's person, `answered_via: 'mail'`, bound to
 * the digest the page showed. The link is the credential: its signature
 * (a bad or expired one is a 403), and the person must still be one who
 * may settle the row (a ladder may have handed it on). A row settles
 * once, so a link settles once: opened again, it says who settled it.
 */

import type { HttpContext } from '@adonisjs/core/http'
import { AlreadySettledException, HttpFacingException } from '../errors.ts'
import { isRowId, type ToolCall } from '../persistence/models/tool_call.ts'
import { namePeople } from './access.ts'
import { LINK_PURPOSE } from './mail_links.ts'
import { confirmPage, refusedPage, settledPage, votedPage, type LinkAction } from './mail_page.ts'
import { mayDecide, requestOf } from './visitor.ts'
import { wordsOf } from '../i18n/words.ts'
import type { WordKey } from '../i18n/catalogue/en.ts'

const ACTIONS = new Set<LinkAction>(['approve', 'reject', 'confirm'])

type Opened = { row: ToolCall; person: string; action: LinkAction }

export default class MailLinkController {
  /** The confirmation page, or who settled the row */
  async show(ctx: HttpContext) {
    const opened = await this.#open(ctx)
    if (!('row' in opened)) return opened.page
    const { row, person, action } = opened
    if (row.status !== 'pending') return this.#settled(ctx, row, person)
    const csrf = (ctx.request as unknown as { csrfToken?: string }).csrfToken
    return this.#html(ctx, 200, confirmPage(wordsOf(ctx), row, action, person, csrf))
  }

  /** Settles the row as the page showed it */
  async confirm(ctx: HttpContext) {
    const opened = await this.#open(ctx)
    if (!('row' in opened)) return opened.page
    const { row, person, action } = opened
    const { digest, reason } = ctx.request.only(['digest', 'reason'])
    const reply =
      action === 'confirm'
        ? { answers: {} }
        : action === 'approve'
          ? { approved: true }
          : { approved: false, ...(typeof reason === 'string' && reason.trim() ? { reason } : {}) }
    const agents = await ctx.containerResolver.make('agents.runtime')
    try {
      const settled = await agents.inbox.settle(row, reply, {
        by: person,
        via: 'mail',
        view: typeof digest === 'string' ? digest : undefined,
        requireView: true,
        ...requestOf(ctx),
      })
      if (settled.status === 'pending') return this.#html(ctx, 200, votedPage(wordsOf(ctx)))
      return this.#settled(ctx, settled, person)
    } catch (error) {
      if (error instanceof AlreadySettledException) {
        return this.#settled(ctx, (await agents.inbox.find(row.id)) ?? row, person, 409)
      }
      if (error instanceof HttpFacingException) {
        const message = error.translatedMessage(HttpFacingException.translatorOf(ctx))
        return this.#html(ctx, error.status, refusedPage(wordsOf(ctx), error.status, message))
      }
      throw error
    }
  }

  /**
   * The link's row, person and action, or the page refusing it: 403 for a
   * bad or expired signature or a person who may not settle the row now.
   */
  async #open(ctx: HttpContext): Promise<Opened | { page: string }> {
    const words = wordsOf(ctx)
    const refuse = (status: number, message: WordKey) => ({
      page: this.#html(ctx, status, refusedPage(words, status, words.t(message))),
    })
    if (!ctx.request.hasValidSignature(LINK_PURPOSE)) return refuse(403, 'link.expired')
    const { person, action } = ctx.request.qs()
    const id: unknown = ctx.params.id
    if (!isRowId(id) || typeof person !== 'string' || !ACTIONS.has(action)) {
      return refuse(403, 'link.invalid')
    }
    const agents = await ctx.containerResolver.make('agents.runtime')
    const access = await ctx.containerResolver.make('agents.access')
    const row = await agents.inbox.find(id)
    if (!row) return refuse(404, 'link.gone')
    if (row.status === 'pending' && !(await mayDecide(ctx, { access, person }, row))) {
      return refuse(403, 'link.handed_on')
    }
    return { row, person, action }
  }

  async #settled(ctx: HttpContext, row: ToolCall, person: string, status = 200) {
    const access = await ctx.containerResolver.make('agents.access')
    const names = await namePeople(access, ctx, [row.answeredBy])
    const mine = status === 200 && row.answeredBy === person && row.answeredVia === 'mail'
    return this.#html(ctx, status, settledPage(wordsOf(ctx), row, names, mine))
  }

  #html(ctx: HttpContext, status: number, html: string) {
    ctx.response.status(status).header('content-type', 'text/html; charset=utf-8')
    ctx.response.header('cache-control', 'no-store')
    return html
  }
}
