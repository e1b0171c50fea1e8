/*
 * The words of the pages, mails and chat messages in a person's language.
 * One way to translate: the app's own `@adonisjs/i18n` messages
 * (`agent_inbox.<key>`) win, then the catalogue the package ships for the
 * language, then English; a key never shows. Without i18n in the app, the
 * package's catalogue for the locale asked (English by default). Dates and
 * numbers follow the locale through Intl.
 */

import { en, type Catalogue, type WordKey } from './catalogue/en.ts'
import { fr } from './catalogue/fr.ts'
import { byLocale, interpolate } from './interpolate.ts'

/** The namespace of the package's words in an app's translations */
export const WORDS_PREFIX = 'agent_inbox'

/** The languages the package ships, by language code */
export const CATALOGUES: Record<string, Catalogue> = { en, fr }

/** What the package reads of an `@adonisjs/i18n` I18n instance */
export type AppTranslator = {
  locale?: string
  t(identifier: string, data?: Record<string, unknown>, fallbackMessage?: string): string
  hasMessage?(identifier: string): boolean
}

/** Data a message interpolates */
export type WordData = Record<string, string | number | null | undefined>

export { interpolate }

/** The package's catalogue of a locale (`fr-CA` reads `fr`), if it ships one */
export function catalogueOf(locale: string): Catalogue | undefined {
  return byLocale(CATALOGUES, locale)
}

export class Words {
  readonly #shipped: Catalogue
  readonly #app: AppTranslator | undefined

  /**
   * The words of `locale`; with `app` (the request's or person's `ctx.i18n`,
   * or `i18nManager.locale(...)`), its own messages win and its locale is used.
   */
  constructor(locale = 'en', app?: AppTranslator) {
    this.locale = app?.locale ?? locale
    this.#app = app
    this.#shipped = catalogueOf(this.locale) ?? {}
  }

  readonly locale: string

  /** English, the words without an app or a language */
  static english = new Words('en')

  /** The template of a key in this language, before interpolation */
  template(key: WordKey): string {
    return this.#shipped[key] ?? en[key]
  }

  /** A message in this language with data interpolated */
  t(key: WordKey, data: WordData = {}): string {
    const identifier = `${WORDS_PREFIX}.${key}`
    const template = this.template(key)
    if (this.#app && (this.#app.hasMessage?.(identifier) ?? true)) {
      const message = this.#app.t(identifier, data, interpolate(template, data))
      if (message !== identifier && !message.startsWith('translation missing')) return message
    }
    return interpolate(template, data)
  }

  /** Every message of the catalogue (templates), for a page to interpolate itself */
  messages(prefix = ''): Record<string, string> {
    const keys = (Object.keys(en) as WordKey[]).filter((key) => key.startsWith(prefix))
    return Object.fromEntries(keys.map((key) => [key, this.appTemplate(key)]))
  }

  /** A date and time as people of this locale write it */
  date(value: Date | string | number, options: Intl.DateTimeFormatOptions = {}): string {
    const style = Object.keys(options).length
      ? options
      : { dateStyle: 'medium', timeStyle: 'short' }
    return new Intl.DateTimeFormat(this.locale, style as Intl.DateTimeFormatOptions).format(
      new Date(value)
    )
  }

  /** A number as people of this locale write it */
  number(value: number, options: Intl.NumberFormatOptions = {}): string {
    return new Intl.NumberFormat(this.locale, options).format(value)
  }

  /** The app's own template of a key in its locale, or the package's */
  private appTemplate(key: WordKey): string {
    const app = this.#app as
      | { resolveIdentifier?(id: string): { message: string; isFallback: boolean } | null }
      | undefined
    const resolved = app?.resolveIdentifier?.(`${WORDS_PREFIX}.${key}`)
    return resolved && !resolved.isFallback ? resolved.message : this.template(key)
  }
}

/** The words of a request: its `ctx.i18n` when the app has i18n, else English */
export function wordsOf(ctx: object): Words {
  const i18n = (ctx as { i18n?: Partial<AppTranslator> }).i18n
  return typeof i18n?.t === 'function' ? new Words('en', i18n as AppTranslator) : Words.english
}

/** What the package reads of the app's `@adonisjs/i18n` manager */
type I18nManagerLike = {
  getSupportedLocaleFor?(languages: string[]): string | null
  locale(locale: string): AppTranslator
}

/**
 * The words of a person away from a request (a mail, a chat message): the
 * app's i18n manager for their locale when the container has one, else the
 * package's catalogue; no locale, English.
 */
export async function wordsFor(
  make: (binding: string) => Promise<unknown>,
  locale: string | null | undefined
): Promise<Words> {
  if (!locale) return Words.english
  const manager = (await make('i18n').catch(() => null)) as I18nManagerLike | null
  if (!manager || typeof manager.locale !== 'function') return new Words(locale)
  const supported = manager.getSupportedLocaleFor?.([locale]) ?? null
  return supported ? new Words(supported, manager.locale(supported)) : new Words(locale)
}
