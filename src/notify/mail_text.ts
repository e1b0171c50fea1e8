/*
 * What a notification mail says, pure: the subject, a plain-text and an
 * HTML body, for one row or a digest of several. A question set shows
 * each prompt with the defaults the asker pre-picked (what "Confirm"
 * accepts); an approval its summary and args. Every value is escaped:
 * the words come from a model.
 */

import { waitsForAnswers } from '../inbox/wait.ts'
import type { QuestionSet } from '../questions/types.ts'
import type { Recipient, RowNotice } from './notifier.ts'

export type MailBody = { subject: string; text: string; html: string }

const WHY = {
  created: 'waits for you',
  reminded: 'still waits for you',
  reassigned: 'was handed to you',
  released: 'was handed to someone else',
}

/** One row's lines: its title and what it asks */
export function rowLines(notice: Pick<RowNotice, 'row'>): { title: string; lines: string[] } {
  const row = notice.row
  if (!waitsForAnswers(row)) {
    const summary = row.request?.summary ?? row.toolName
    return {
      title: `Approve ${row.toolName}: ${summary}`,
      lines: [`Args: ${JSON.stringify(row.request?.args ?? null)}`],
    }
  }
  const set = row.request as QuestionSet
  const lines = set.questions.map((question) => {
    const labels = question.defaults.map(
      (value) => question.options?.find((option) => option.value === value)?.label ?? value
    )
    return `${question.prompt} — default: ${labels.join(', ') || '(none)'}`
  })
  return { title: set.preamble ?? `Questions from ${row.toolName}`, lines }
}

/**
 * The mail of one row.
 */
export function rowMail(notice: RowNotice, person: Recipient, inboxUrl: string | null): MailBody {
  const { title, lines } = rowLines(notice)
  const why = `${title} — ${WHY[notice.reason]}`
  const text = [
    `Hello ${person.name ?? person.id},`,
    '',
    why,
    ...lines.map((line) => `  ${line}`),
    ...(notice.note ? ['', notice.note] : []),
    '',
    ...(notice.reason === 'released'
      ? []
      : notice.links.map((link) => `${link.label}: ${link.url}`)),
    ...(inboxUrl ? [`Open the inbox: ${inboxUrl}`] : []),
  ].join('\n')
  const html = [
    `<p>Hello ${escape(person.name ?? person.id)},</p>`,
    section(notice),
    inboxUrl ? `<p><a href="${escape(inboxUrl)}">Open the inbox</a></p>` : '',
  ].join('\n')
  return { subject: why.slice(0, 160), text, html }
}

/**
 * The digest of several rows, one mail listing each with its links.
 */
export function digestMail(notices: RowNotice[], person: Recipient, inboxUrl: string | null) {
  const count = notices.length
  const subject = `${count} ${count === 1 ? 'item waits' : 'items wait'} for you in the inbox`
  const text = [
    `Hello ${person.name ?? person.id},`,
    '',
    subject,
    ...notices.flatMap((notice, index) => {
      const { title, lines } = rowLines(notice)
      return [
        '',
        `${index + 1}. ${title}`,
        ...lines.map((line) => `   ${line}`),
        ...notice.links.map((link) => `   ${link.label}: ${link.url}`),
      ]
    }),
    ...(inboxUrl ? ['', `Open the inbox: ${inboxUrl}`] : []),
  ].join('\n')
  const html = [
    `<p>Hello ${escape(person.name ?? person.id)},</p>`,
    `<p>${escape(subject)}</p>`,
    `<ol>${notices.map((notice) => `<li>${section(notice)}</li>`).join('')}</ol>`,
    inboxUrl ? `<p><a href="${escape(inboxUrl)}">Open the inbox</a></p>` : '',
  ].join('\n')
  return { subject, text, html }
}

function section(notice: RowNotice): string {
  const { title, lines } = rowLines(notice)
  const links =
    notice.reason === 'released'
      ? ''
      : notice.links
          .map((link) => `<a href="${escape(link.url)}">${escape(link.label)}</a>`)
          .join(' · ')
  return [
    `<p><strong>${escape(title)}</strong> — ${WHY[notice.reason]}</p>`,
    listHtml(lines),
    notice.note ? `<p><em>${escape(notice.note)}</em></p>` : '',
    links ? `<p>${links}</p>` : '',
  ].join('')
}

/** Lines as an HTML list, escaped */
export function listHtml(lines: string[]): string {
  return `<ul>${lines.map((line) => `<li>${escape(line)}</li>`).join('')}</ul>`
}

/** HTML-escapes text for an element or a quoted attribute */
export function escape(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}
