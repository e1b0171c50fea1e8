/*
 * The confirmation page a one-tap link opens (docs/design.md §7.7): plain
 * HTML the package renders itself, so it works in any app and without a
 * session. It shows what will be decided — the question set with its
 * defaults, or the action's summary and args — and a form that posts the
 * decision with the digest of what it showed (docs/design.md §11.4); or
 * who settled the row, when someone did first. In the words of the
 * request's language (`ctx.i18n`, English without i18n).
 */

import type { ToolCall } from '../persistence/models/tool_call.ts'
import { viewDigest } from '../governance/view.ts'
import { escape, listHtml, rowLines } from '../notify/mail_text.ts'
import type { Words } from '../i18n/words.ts'
import type { WordKey } from '../i18n/catalogue/en.ts'

export type LinkAction = 'approve' | 'reject' | 'confirm'

const VERBS: Record<LinkAction, WordKey> = {
  approve: 'action.approve',
  reject: 'action.reject',
  confirm: 'action.confirm_defaults',
}

/** When a row was settled: the page has no time zone of the person's, so UTC, said so */
const WHEN: Intl.DateTimeFormatOptions = {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
}

function layout(words: Words, title: string, body: string): string {
  return `<!doctype html>
<html lang="${escape(words.locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
pre{background:#f4f4f4;padding:.5rem;overflow:auto}button{font:inherit;padding:.4rem 1rem}</style>
</head><body><main>${body}</main></body></html>`
}

/**
 * The form: what the row asks, and one button doing `action`.
 */
export function confirmPage(
  words: Words,
  row: ToolCall,
  action: LinkAction,
  person: string,
  csrf?: string
) {
  const { title, lines } = rowLines({ row }, words)
  const verb = words.t(VERBS[action])
  return layout(
    words,
    words.t('link.title', { verb, title }),
    `<h1>${escape(words.t('link.heading', { verb }))}</h1>
<p><strong>${escape(title)}</strong></p>
${listHtml(lines)}
<p>${escape(words.t('link.signed_in'))} <strong>${escape(person)}</strong>. ${escape(words.t('link.nothing_yet'))}</p>
<form method="post">
<input type="hidden" name="digest" value="${viewDigest(row)}">
${csrf ? `<input type="hidden" name="_csrf" value="${escape(csrf)}">` : ''}
${action === 'reject' ? `<p><label>${escape(words.t('link.reason'))}<br><textarea name="reason" rows="3" cols="50"></textarea></label></p>` : ''}
<button type="submit">${escape(verb)}</button>
</form>`
  )
}

/**
 * A row settled already: by whom, through what and when.
 */
export function settledPage(
  words: Words,
  row: ToolCall,
  names: Record<string, string>,
  mine: boolean
) {
  const by = row.answeredBy ? (names[row.answeredBy] ?? row.answeredBy) : words.t('link.nobody')
  const heading = words.t(mine ? 'link.done' : 'link.already_settled')
  const data = {
    what: words.t(row.kind === 'action' ? 'link.approval' : 'link.question'),
    status: `<strong>${escape(words.t(`page.status.${row.status}`))}</strong>`,
    by: `<strong>${escape(by)}</strong>`,
    via: escape(row.answeredVia ?? 'unknown'),
    when: row.settledAt ? escape(words.date(row.settledAt.toMillis(), WHEN)) : '',
  }
  const line = words.t(data.when ? 'link.settled_at' : 'link.settled', data)
  return layout(words, heading, `<h1>${escape(heading)}</h1>\n<p role="status">${line}</p>`)
}

/**
 * A pending row whose vote was counted without deciding it (a quorum).
 */
export function votedPage(words: Words) {
  const heading = words.t('link.voted')
  return layout(
    words,
    heading,
    `<h1>${escape(heading)}</h1><p role="status">${escape(words.t('link.voted_text'))}</p>`
  )
}

/**
 * A link that does not open anything: a bad or expired signature, a row
 * the person may no longer settle, a stale page.
 */
export function refusedPage(words: Words, status: number, message: string) {
  const heading = words.t(status === 403 ? 'link.broken' : 'link.not_done')
  return layout(words, heading, `<h1>${escape(heading)}</h1><p role="alert">${escape(message)}</p>`)
}
