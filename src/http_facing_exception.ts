/*
 * The base of the errors that render themselves (part of the errors
 * module: imported by src/errors.ts only, and re-exported there). They
 * answer in the ecosystem's shape, `{ errors: [{ message, code, field?,
 * rule?, meta? }] }` (Vine's field errors with the stable code added),
 * negotiate the response as the stock ExceptionHandler does (JSON, JSON:API,
 * else a form post flashed and sent back, or HTML), and take their words
 * from `@adonisjs/i18n` when the app has it. At runtime they depend on
 * nothing but `@adonisjs/core/exceptions`: the HTTP context is a type, the
 * session and i18n (optional peers) are read off it duck-typed, and the
 * HTML escaper loads only when HTML is sent. docs/reference/errors.md
 * documents the shape.
 */

import { Exception } from '@adonisjs/core/exceptions'
import type { HttpContext } from '@adonisjs/core/http'
import { ERRORS_FR } from './i18n/catalogue/errors_fr.ts'
import { byLocale, interpolate } from './i18n/interpolate.ts'

/**
 * One error of a response: the message (translated when the app has
 * `@adonisjs/i18n`), the stable `E_...` code, and for a field error the
 * field and the rule it broke, as Vine reports them; `meta` is what the
 * error carries (who settled a row first).
 */
export type ErrorEntry = {
  message: string
  code: string
  field?: string
  rule?: string
  meta?: Record<string, unknown>
}

/**
 * What an HTTP client receives for an error of the inbox: one entry for a
 * request refused whole, one per field for a request refused field by
 * field (a 422).
 */
export type ErrorResponseBody = { errors: ErrorEntry[] }

/**
 * An error with its status, where no HTTP status carries it: a bulk
 * decision's result for a row, and the inbox page's `feedback`.
 */
export type ErrorReport = ErrorResponseBody & { status: number }

/** A field error of a request, before it is rendered */
export type FieldError = {
  field: string
  message: string
  rule: string
  meta?: Record<string, unknown>
}

/**
 * What the package reads of `@adonisjs/i18n`'s request-bound `I18n`
 * (`ctx.i18n`, set by the app's detect-user-locale middleware).
 */
export type Translator = {
  locale?: string
  t(identifier: string, data?: Record<string, unknown>, fallbackMessage?: string): string
}

/** The messages the package ships in languages other than English, by code (./i18n/catalogue/) */
const SHIPPED_MESSAGES: Record<string, Record<string, string>> = { fr: ERRORS_FR }

/**
 * The package's own message of `key` in `locale` (`fr-CA` reads `fr`),
 * `{name}` filled from `data`; undefined where it ships none.
 */
function shippedMessage(
  locale: string | undefined,
  key: string,
  data: Record<string, unknown>
): string | undefined {
  const template = locale ? byLocale(SHIPPED_MESSAGES, locale)?.[key] : undefined
  return template === undefined ? undefined : interpolate(template, data)
}

/** The namespace of the package's translation identifiers (`resources/lang/<locale>/agent_inbox.json`) */
export const I18N_PREFIX = 'agent_inbox'

/**
 * A message of the package in the request's language: `agent_inbox.<key>`
 * through i18n with `data` to interpolate, else `english`.
 */
function translate(
  i18n: Translator | undefined,
  key: string,
  data: Record<string, unknown>,
  english: string
): string {
  return i18n ? i18n.t(`${I18N_PREFIX}.${key}`, data, english) : english
}

/** The session as rendering needs it: `@adonisjs/session` is the app's choice */
type FlashSession = { flash(key: string, value: unknown): void }

/**
 * The JSON:API rendering of a body, as the stock ExceptionHandler writes
 * errors (`title`, `code`, `status`) and field errors (`source.pointer`,
 * `meta`); the code stays the stable `E_...` code, the rule goes to `meta`.
 */
function jsonApiBody(body: ErrorResponseBody, status: number) {
  return {
    errors: body.errors.map(({ message, code, field, rule, meta }) => ({
      title: message,
      code,
      status,
      ...(field === undefined ? {} : { source: { pointer: field } }),
      ...(rule === undefined && meta === undefined ? {} : { meta: { ...meta, rule } }),
    })),
  }
}

/**
 * An error of the inbox's HTTP routes. It renders itself when the app's
 * exception handler (a stock `ExceptionHandler` does) calls `handle`,
 * negotiating as that handler does:
 *  - `application/vnd.api+json`: the JSON:API form of the body;
 *  - JSON: `status` with `responseBody()`;
 *  - HTML (or nothing acceptable): a form post with a session (an Inertia
 *    visit, a browser form) gets `{ rowId, error: { status, errors } }`
 *    flashed under `replyFlashKey` and a redirect back, which the inbox
 *    page's controller passes to the page; anything else gets the
 *    messages as HTML.
 *
 * Subclasses declare `static status` and `static code`, and override
 * `fieldErrors()`, `meta()` and `messageData()` with what they carry.
 *
 * @example
 * // an app handler that renders these its own way
 * if (error instanceof errors.HttpFacingException) return ctx.response.status(error.status).send(error.responseBody(ctx.i18n))
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
   * The request's translator, when the app has `@adonisjs/i18n` and its
   * middleware gave the request one (`ctx.i18n`); never imported.
   */
  static translatorOf(ctx: HttpContext): Translator | undefined {
    const i18n = (ctx as { i18n?: Partial<Translator> }).i18n
    return typeof i18n?.t === 'function' ? (i18n as Translator) : undefined
  }

  /**
   * The translation identifier of the message, `agent_inbox.<code>`.
   */
  get identifier(): string {
    return `${I18N_PREFIX}.${this.code}`
  }

  /**
   * What a translation of the message may interpolate (`{rowId}`).
   */
  messageData(): Record<string, unknown> {
    return {}
  }

  /**
   * What the error carries beyond its message, sent as the entry's `meta`.
   */
  meta(): Record<string, unknown> | undefined {
    return undefined
  }

  /**
   * The field errors of a request refused field by field; none for one
   * refused whole.
   */
  fieldErrors(): FieldError[] {
    return []
  }

  /**
   * Which of the code's messages this one is, for a language the package
   * ships (`E_RUN_NOT_ACTIONABLE.cancel`); the code where it has one.
   */
  messageKey(): string {
    return this.code!
  }

  /**
   * The message in the language of `i18n`: the app's own message
   * (`agent_inbox.<code>`), else the package's in that language, else
   * English (English without i18n).
   */
  translatedMessage(i18n?: Translator): string {
    if (!i18n) return this.message
    const data = this.messageData()
    const fallback = shippedMessage(i18n.locale, this.messageKey(), data) ?? this.message
    return i18n.t(this.identifier, data, fallback)
  }

  /**
   * The JSON body API clients receive: an entry per field error (its
   * message looked up as `agent_inbox.rules.<rule>` with `{ field, ...meta }`),
   * or one entry for the whole request.
   */
  responseBody(i18n?: Translator): ErrorResponseBody {
    const code = this.code!
    const fields = this.fieldErrors()
    if (fields.length > 0) {
      return {
        errors: fields.map(({ field, message, rule, meta }) => ({
          message: translate(i18n, `rules.${rule}`, { field, ...meta }, message),
          code,
          field,
          rule,
          ...(meta === undefined ? {} : { meta }),
        })),
      }
    }
    const meta = this.meta()
    const entry: ErrorEntry = { message: this.translatedMessage(i18n), code }
    return { errors: [meta === undefined ? entry : { ...entry, meta }] }
  }

  /**
   * The body with the status, for a bulk result or the page's feedback.
   */
  errorReport(i18n?: Translator): ErrorReport {
    return { status: this.status, ...this.responseBody(i18n) }
  }

  /**
   * Converts the error to a response; called by the app's exception handler.
   */
  async handle(error: this, ctx: HttpContext) {
    const body = error.responseBody(HttpFacingException.translatorOf(ctx))
    switch (ctx.request.accepts(['html', 'application/vnd.api+json', 'json'])) {
      case 'application/vnd.api+json':
        return ctx.response.status(error.status).send(jsonApiBody(body, error.status))
      case 'json':
        return ctx.response.status(error.status).send(body)
    }
    const session = (ctx as { session?: FlashSession }).session
    // A page load cannot be sent back to the page it came from; a form post can
    if (session && ctx.request.method() !== 'GET') {
      const rowId: unknown = ctx.params?.id
      session.flash(HttpFacingException.replyFlashKey, {
        rowId: typeof rowId === 'string' ? rowId : null,
        error: { status: error.status, ...body },
      })
      return ctx.response.redirect().back()
    }
    const { default: string } = await import('@adonisjs/core/helpers/string')
    const html = body.errors.some((entry) => entry.field !== undefined)
      ? body.errors
          .map(
            (entry) =>
              `${string.escapeHTML(entry.field ?? '')} - ${string.escapeHTML(entry.message)}`
          )
          .join('<br />')
      : `<p> ${body.errors.map((entry) => string.escapeHTML(entry.message)).join(' ')} </p>`
    ctx.response.status(error.status).type('html').send(html)
  }
}

/**
 * An HTTP-facing error about one row, its message built from the row id
 * (and a flag), which a translation of it interpolates as `{rowId}` (and
 * `{flag}`).
 */
export function rowError(
  status: number,
  code: string,
  message: (rowId: string, flag?: boolean) => string
) {
  return class extends HttpFacingException {
    static status = status
    static code = code
    readonly rowId: string
    readonly flag: boolean

    constructor([rowId, flag]: [rowId: string, flag?: boolean], options?: ErrorOptions) {
      super(message(rowId, flag), options)
      this.rowId = rowId
      this.flag = flag === true
    }

    messageData(): Record<string, unknown> {
      return { rowId: this.rowId, flag: this.flag }
    }

    messageKey(): string {
      return this.flag ? `${code}.flag` : code
    }
  }
}

/**
 * An HTTP-facing 422 about fields of a request (a query string, a body):
 * each field error is rendered as one entry of `errors`, and the message
 * lists them after `what` ("The query string is invalid").
 */
export function fieldsError(code: string, what: string) {
  return class extends HttpFacingException {
    static status = 422
    static code = code

    constructor(public errors: FieldError[]) {
      super(`${what}: ${errors.map((error) => `${error.field}: ${error.message}`).join('; ')}`)
    }

    fieldErrors(): FieldError[] {
      return this.errors
    }
  }
}
