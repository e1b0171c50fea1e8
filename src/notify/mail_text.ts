/*
 * What a notification mail says, pure: the subject, a plain-text and an
 * HTML body, for one row or a digest of several. A question set shows
 * each prompt with the defaults the asker pre-picked (what "Confirm"
 * accepts); an approval its summary and args. Every value is escaped:
 * the words come from a model.
 */

import { waitsForAnswers } from '../inbox/wait.ts'
import type { QuestionSet } from '../questions/types.ts'
import { optionLabel } from '../questions/values.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { Recipient, RowNotice } from './notifier.ts'
import { Words } from '../i18n/words.ts'

export type MailBody = { subject: string; text: string; html: string }

const why = (words: Words, reason: RowNotice['reason']) => words.t(`mail.why.${reason}`)

/** One row's lines: its title and what it asks */
export function rowLines(
  notice: Pick<RowNotice, 'row'>,
  words: Words = Words.english
): { title: string; lines: string[] } {
  const row = notice.row
  if (!waitsForAnswers(row)) {
    return {
      title: rowTitle(row, words),
      lines: [words.t('mail.args', { args: JSON.stringify(row.request?.args ?? null) })],
    }
  }
  const set = row.request as QuestionSet
  const lines = set.questions.map((question) => {
    const labels = question.defaults.map((value) => optionLabel(question, value))
    const shown = labels.join(', ') || words.t('mail.none')
    return words.t('mail.default', { prompt: question.prompt, labels: shown })
  })
  return { title: rowTitle(row, words), lines }
}

/**
 * What a row asks, in one line: its question set's preamble (else whose
 * questions they are), or the approval asked. The mails and Slack's
 * messages both lead with it.
 */
export function rowTitle(row: ToolCall, words: Words = Words.english): string {
  if (waitsForAnswers(row)) {
    const set = row.request as QuestionSet
    return set.preamble ?? words.t('mail.questions_from', { tool: row.toolName })
  }
  const summary = row.request?.summary ?? row.toolName
  return words.t('mail.approve_title', { tool: row.toolName, summary })
}

/**
 * The mail of one row.
 */
export function rowMail(
  notice: RowNotice,
  person: Recipient,
  inboxUrl: string | null,
  words: Words = Words.english
): MailBody {
  const { title, lines } = rowLines(notice, words)
  const subject = `${title} — ${why(words, notice.reason)}`
  const hello = words.t('mail.hello', { name: person.name ?? person.id })
  const text = [
    hello,
    '',
    subject,
    ...lines.map((line) => `  ${line}`),
    ...(notice.note ? ['', notice.note] : []),
    '',
    ...(notice.reason === 'released'
      ? []
      : notice.links.map((link) => `${link.label}: ${link.url}`)),
    ...(inboxUrl ? [`${words.t('mail.open_inbox')}: ${inboxUrl}`] : []),
  ].join('\n')
  const html = [`<p>${escape(hello)}</p>`, section(notice, words), openInbox(inboxUrl, words)].join(
    '\n'
  )
  return { subject: subject.slice(0, 160), text, html }
}

/**
 * The digest of several rows, one mail listing each with its links.
 */
export function digestMail(
  notices: RowNotice[],
  person: Recipient,
  inboxUrl: string | null,
  words: Words = Words.english
) {
  const count = notices.length
  const subject = words.t(count === 1 ? 'mail.digest_one' : 'mail.digest_many', {
    count: words.number(count),
  })
  const hello = words.t('mail.hello', { name: person.name ?? person.id })
  const text = [
    hello,
    '',
    subject,
    ...notices.flatMap((notice, index) => {
      const { title, lines } = rowLines(notice, words)
      return [
        '',
        `${index + 1}. ${title}`,
        ...lines.map((line) => `   ${line}`),
        ...notice.links.map((link) => `   ${link.label}: ${link.url}`),
      ]
    }),
    ...(inboxUrl ? ['', `${words.t('mail.open_inbox')}: ${inboxUrl}`] : []),
  ].join('\n')
  const html = [
    `<p>${escape(hello)}</p>`,
    `<p>${escape(subject)}</p>`,
    `<ol>${notices.map((notice) => `<li>${section(notice, words)}</li>`).join('')}</ol>`,
    openInbox(inboxUrl, words),
  ].join('\n')
  return { subject, text, html }
}

function openInbox(inboxUrl: string | null, words: Words): string {
  return inboxUrl
    ? `<p><a href="${escape(inboxUrl)}">${escape(words.t('mail.open_inbox'))}</a></p>`
    : ''
}

function section(notice: RowNotice, words: Words): string {
  const { title, lines } = rowLines(notice, words)
  const links =
    notice.reason === 'released'
      ? ''
      : notice.links
          .map((link) => `<a href="${escape(link.url)}">${escape(link.label)}</a>`)
          .join(' · ')
  return [
    `<p><strong>${escape(title)}</strong> — ${escape(why(words, notice.reason))}</p>`,
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
