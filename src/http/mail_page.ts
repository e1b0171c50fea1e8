/*
 * The confirmation page a one-tap link opens (docs/design.md §7.7): plain
 * HTML the package renders itself, so it works in any app and without a
 * session. It shows what will be decided — the question set with its
 * defaults, or the action's summary and args — and a form that posts the
 * decision with the digest of what it showed (docs/design.md §11.4); or
 * who settled the row, when someone did first.
 */

import type { ToolCall } from '../persistence/models/tool_call.ts'
import { viewDigest } from '../governance/view.ts'
import { escape, listHtml, rowLines } from '../notify/mail_text.ts'

export type LinkAction = 'approve' | 'reject' | 'confirm'

const VERBS: Record<LinkAction, string> = {
  approve: 'Approve',
  reject: 'Reject',
  confirm: 'Confirm the defaults',
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
pre{background:#f4f4f4;padding:.5rem;overflow:auto}button{font:inherit;padding:.4rem 1rem}</style>
</head><body><main>${body}</main></body></html>`
}

/**
 * The form: what the row asks, and one button doing `action`.
 */
export function confirmPage(row: ToolCall, action: LinkAction, person: string, csrf?: string) {
  const { title, lines } = rowLines({ row })
  const verb = VERBS[action]
  return layout(
    `${verb}: ${title}`,
    `<h1>${escape(verb)}?</h1>
<p><strong>${escape(title)}</strong></p>
${listHtml(lines)}
<p>Signed in by this link as <strong>${escape(person)}</strong>. Nothing is decided until you press the button.</p>
<form method="post">
<input type="hidden" name="digest" value="${viewDigest(row)}">
${csrf ? `<input type="hidden" name="_csrf" value="${escape(csrf)}">` : ''}
${action === 'reject' ? '<p><label>Reason (optional)<br><textarea name="reason" rows="3" cols="50"></textarea></label></p>' : ''}
<button type="submit">${escape(verb)}</button>
</form>`
  )
}

/**
 * A row settled already: by whom, through what and when.
 */
export function settledPage(row: ToolCall, names: Record<string, string>, mine: boolean) {
  const by = row.answeredBy ? (names[row.answeredBy] ?? row.answeredBy) : 'nobody (it expired)'
  const when = row.settledAt?.toUTC().toFormat("yyyy-LL-dd HH:mm 'UTC'") ?? ''
  const heading = mine ? 'Done' : 'Already settled'
  return layout(
    heading,
    `<h1>${heading}</h1>
<p role="status">This ${row.kind === 'action' ? 'approval' : 'question'} is <strong>${escape(row.status)}</strong>, settled by <strong>${escape(by)}</strong> via ${escape(row.answeredVia ?? 'unknown')}${when ? ` at ${escape(when)}` : ''}.</p>`
  )
}

/**
 * A pending row whose vote was counted without deciding it (a quorum).
 */
export function votedPage() {
  return layout(
    'Vote counted',
    '<h1>Vote counted</h1><p role="status">Your vote is counted; the approval waits for the others.</p>'
  )
}

/**
 * A link that does not open anything: a bad or expired signature, a row
 * the person may no longer settle, a stale page.
 */
export function refusedPage(status: number, message: string) {
  const heading = status === 403 ? 'This link does not work' : 'Not done'
  return layout(heading, `<h1>${heading}</h1><p role="alert">${escape(message)}</p>`)
}
