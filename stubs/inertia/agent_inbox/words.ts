/*
 * How the inbox's pages put things into words, without a framework so both
 * pages (React, Vue) say the same and Node can test it: times, a card's
 * title, what expiry does, people by name, a run's status, what an answer
 * or a decision was, and the links between the pages. The app receives
 * this file in inertia/agent_inbox/.
 */

import type { Outcome, People, RowCard, RunSummary } from 'adonis-agent-inbox/types'
import { interpolate, PAGE_WORDS, type PageWordKey } from 'adonis-agent-inbox/questions/client'
import { argsChangeLines } from './args_changes'
import { argsForm } from './schema_form'

/**
 * What a page receives of its person's language: the locale and the words
 * that differ from English (the server sends them with every page, from
 * the app's `@adonisjs/i18n` messages or the package's catalogue; no
 * locale in an app without i18n, where dates follow the browser).
 */
export type PageWords = { locale?: string; words?: Record<string, string> }

let language: PageWords & { words: Record<string, string> } = { words: {} }

/**
 * Takes a page's words for everything it renders; each page calls it
 * first, with its props, before anything is put into words.
 */
export function useWords(props: PageWords): void {
  language = { locale: props.locale, words: props.words ?? {} }
}

/** The locale the page speaks, for dates and numbers (the browser's without one) */
export function pageLocale(): string[] {
  return language.locale ? [language.locale] : []
}

/**
 * A word of the page in its person's language, `{name}` placeholders
 * filled from `data`; a key the server did not send reads English.
 *
 * @example
 * t('page.via', { via: 'web' }) // 'via web'
 */
export function t(key: PageWordKey, data: Record<string, string | number> = {}): string {
  return interpolate(language.words[key] ?? PAGE_WORDS[key] ?? key, data)
}

/**
 * A run's or a row's status (`completed`, `pending`) in the page's words;
 * a status the pages have no word for, as it is.
 */
export function statusWord(status: string): string {
  const key = `page.status.${status}`
  return key in PAGE_WORDS ? t(key as PageWordKey) : status
}

/** A row's kind (`ask`, `action`, `intake`) in the page's words */
export function kindWord(kind: string): string {
  const key = `page.kind.${kind}`
  return key in PAGE_WORDS ? t(key as PageWordKey) : kind
}

/** `one` or `many` by count, the count filled in */
export function tCount(count: number, one: PageWordKey, many: PageWordKey): string {
  return t(count === 1 ? one : many, { count: count.toLocaleString(pageLocale()) })
}

/**
 * A time as the person reads it: the time alone today, else date and time.
 */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return ''
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return iso
  const today = new Date().toDateString() === at.toDateString()
  return today
    ? at.toLocaleTimeString(pageLocale(), { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleString(pageLocale(), { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * The heading of a card, by what it asks.
 */
export function cardTitle(card: RowCard): string {
  if (card.action?.link !== undefined) return t('page.title.link', { tool: card.toolName })
  if (card.kind === 'intake') return t('page.title.intake')
  if (card.questionSet) {
    return tCount(card.questionSet.questions.length, 'page.title.asks_one', 'page.title.asks_many')
  }
  return t('page.title.approve', { tool: card.toolName })
}

/**
 * A link card's target: `href` only for an http or https URL (anything
 * else, `javascript:` or `data:` first, is shown as text and never made a
 * link), and the URL as the person sees it, so they know where it goes.
 *
 * @example
 * linkTarget('https://example.com/a b') // { href: 'https://example.com/a%20b', text: 'https://example.com/a b' }
 * linkTarget('javascript:alert(1)') // { href: null, text: 'javascript:alert(1)' }
 */
export function linkTarget(url: string): { href: string | null; text: string } {
  let parsed: URL | null = null
  try {
    parsed = new URL(url)
  } catch {
    parsed = null
  }
  const web = parsed !== null && (parsed.protocol === 'http:' || parsed.protocol === 'https:')
  return { href: web ? parsed!.href : null, text: url }
}

/**
 * What happens to a pending row when it expires.
 */
export function expiryWords(card: RowCard): string {
  if (card.onExpiry === 'cancel') return t('page.expiry.cancel')
  if (card.onExpiry === 'reject' || !card.questionSet) return t('page.expiry.reject')
  return t('page.expiry.defaults')
}

/**
 * A person as the pages show them: their name from the `displayName` hook
 * when the server sent it, else their id; "someone" for nobody.
 *
 * @example
 * nameOf({ '1': 'Ada Lovelace' }, '1') // 'Ada Lovelace'
 */
export function nameOf(people: People | undefined, id: string | null | undefined): string {
  if (id === null || id === undefined) return t('page.someone')
  return people?.[id] ?? id
}

/**
 * Who settled a row, through what and when: "Ada Lovelace via web at 10:32".
 */
export function settledWords(
  settled: { by: string | null; via: string | null; at: string | null },
  people: People | undefined
): string {
  return [
    nameOf(people, settled.by),
    settled.via ? t('page.via', { via: settled.via }) : '',
    settled.at ? t('page.at_time', { time: formatTime(settled.at) }) : '',
  ]
    .filter(Boolean)
    .join(' ')
}

/** Whether a run has ended */
export function isFinished(status: RunSummary['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled'
}

/**
 * The first characters of an id, enough to tell runs apart.
 */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id
}

/**
 * The links between the pages, from where the inbox lives (its routes
 * share a prefix, `/inbox` by default).
 *
 * @example
 * inboxLinks('/inbox').run('r1') // '/inbox/runs/r1'
 */
export function inboxLinks(inboxUrl: string) {
  const base = new URL(inboxUrl, 'http://inbox.invalid').pathname.replace(/\/+$/, '')
  return {
    inbox: base || '/',
    history: `${base}/history`,
    bulk: `${base}/bulk`,
    run: (id: string) => `${base}/runs/${encodeURIComponent(id)}`,
    row: (id: string) => `${base}/rows/${encodeURIComponent(id)}`,
    reply: (id: string) => `${base}/rows/${encodeURIComponent(id)}/reply`,
  }
}

/**
 * What an outcome was, in a line per question or one for a decision: the
 * labels picked (marked when a default held), a skip, an expiry, a
 * rejection's reason, the fields an edit changed (before → after).
 *
 * @example
 * outcomeLines(card) // ['Which database? PostgreSQL (default)', 'How many replicas? 3']
 */
export function outcomeLines(card: RowCard): string[] {
  const outcome: Outcome | null | undefined = card.settled?.outcome
  if (!outcome) return []
  const lines: string[] = []
  if (outcome.kind === 'answers') {
    if (outcome.expired) lines.push(t('page.outcome.expired_answers'))
    else if (outcome.skipped) lines.push(t('page.outcome.skipped'))
    for (const question of card.questionSet?.questions ?? []) {
      const values = outcome.answers[question.id] ?? []
      const labels = values.map(
        (value) => question.options?.find((option) => option.value === value)?.label ?? value
      )
      const defaulted = outcome.defaulted.includes(question.id)
        ? t('page.outcome.default_mark')
        : ''
      lines.push(`${question.prompt} ${labels.join(', ') || '—'}${defaulted}`)
    }
    return lines
  }
  if (outcome.expired) lines.push(t('page.outcome.expired_decision'))
  else lines.push(t(outcome.approved ? 'page.outcome.approved' : 'page.outcome.rejected'))
  if (outcome.reason) lines.push(t('page.outcome.reason', { reason: outcome.reason }))
  if (outcome.editedInput !== undefined) {
    const form = argsForm(card.action?.schema)
    lines.push(
      t('page.outcome.edited'),
      ...argsChangeLines(card.action?.args, outcome.editedInput, form)
    )
  }
  return lines
}

/**
 * A value as the run page shows it: text as it is, anything else as JSON.
 */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return value
  return JSON.stringify(value, null, 2) ?? String(value)
}
