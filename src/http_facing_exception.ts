/*
 * The base of the errors that render themselves (part of the errors
 * module: imported by src/errors.ts only, and re-exported there). It
 * answers API clients with a JSON body and a form post from the page with
 * flashed errors and a redirect back, so no controller maps codes to
 * statuses. At runtime it depends on nothing but
 * `@adonisjs/core/exceptions`: the HTTP context is a type, and the session
 * (an optional peer) is read duck-typed.
 */

import { Exception } from '@adonisjs/core/exceptions'
import type { HttpContext } from '@adonisjs/core/http'

/**
 * What an HTTP client receives for an error of the inbox: the status again,
 * the stable code, the message, and what the error carries (the field
 * errors of a reply, who settled a row first).
 */
export type ErrorResponseBody = {
  status: number
  code: string
  message: string
  errors?: { field: string; message: string }[]
  settledBy?: string | null
  settledVia?: string | null
  settledAt?: string | null
}

/**
 * The session as rendering needs it. `@adonisjs/session` is the app's
 * choice, so it is read off the context duck-typed, never imported.
 */
type FlashSession = { flash(key: string, value: unknown): void }

/**
 * A form post from a page rather than an API call: a non-GET Inertia visit
 * (`x-inertia`), or a browser form that prefers HTML to JSON. Only those
 * can be redirected back to a page that shows the flashed outcome; a GET
 * (a page load) gets the JSON body, which Inertia shows as it is.
 */
function isFormPost(ctx: HttpContext): boolean {
  if (ctx.request.method() === 'GET') return false
  if (ctx.request.header('x-inertia')) return true
  return ctx.request.accepts(['json', 'html']) === 'html'
}

/**
 * An error the inbox's HTTP routes can raise. It renders itself when the
 * app's exception handler (a stock `ExceptionHandler` does) calls `handle`:
 *  - API clients get `status` with `responseBody()` as JSON;
 *  - a form post from the page, with a session, gets `{ rowId, error: body }`
 *    flashed under `replyFlashKey` and a redirect back; the inbox page's
 *    controller passes it to the page.
 *
 * Subclasses declare `static status` and `static code`, and extend
 * `responseBody()` with what they carry.
 *
 * @example
 * // an app handler that renders these its own way
 * if (error instanceof errors.HttpFacingException) return ctx.response.status(error.status).send(error.responseBody())
 */
export abstract class HttpFacingException extends Exception {
  /**
   * The session key a reply from the inbox page flashes its outcome under:
   * `{ rowId, error }` from here, `{ rowId, settled }` from the controller.
   * The inbox page's own controller reads it back and hands it to the page
   * as its `feedback` prop, so the page needs nothing of the app's Inertia
   * middleware (a starter kit's shares neither this key nor errors of this
   * shape).
   */
  static readonly replyFlashKey = 'agentInbox'

  /**
   * The JSON body API clients receive, and the `error` the page is shown.
   */
  responseBody(): ErrorResponseBody {
    return { status: this.status, code: this.code!, message: this.message }
  }

  /**
   * Converts the error to a response; called by the app's exception handler.
   */
  async handle(error: this, ctx: HttpContext) {
    const body = error.responseBody()
    const session = (ctx as { session?: FlashSession }).session
    if (session && isFormPost(ctx)) {
      const rowId: unknown = ctx.params?.id
      session.flash(HttpFacingException.replyFlashKey, {
        rowId: typeof rowId === 'string' ? rowId : null,
        error: body,
      })
      return ctx.response.redirect().back()
    }
    ctx.response.status(body.status).send(body)
  }
}
