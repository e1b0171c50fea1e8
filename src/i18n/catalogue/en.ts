/*
 * The package's English words, the catalogue every other language falls
 * back to, key by key. Keys live under `agent_inbox.` in an app's
 * `resources/lang/<locale>/agent_inbox.json`; `{name}` is interpolated.
 */

import { SLACK_WORDS } from '../../slack/english.ts'
import { PAGE_WORDS } from './pages.ts'

export const en = {
  // The Slack channel's words (src/slack/english.ts)
  ...SLACK_WORDS,
  // The published pages' words (./pages.ts)
  ...PAGE_WORDS,
  'mail.hello': 'Hello {name},',
  'mail.why.created': 'waits for you',
  'mail.why.reminded': 'still waits for you',
  'mail.why.reassigned': 'was handed to you',
  'mail.why.released': 'was handed to someone else',
  'mail.approve_title': 'Approve {tool}: {summary}',
  'mail.args': 'Args: {args}',
  'mail.questions_from': 'Questions from {tool}',
  'mail.default': '{prompt} — default: {labels}',
  'mail.none': '(none)',
  'mail.open_inbox': 'Open the inbox',
  'mail.digest_one': '{count} item waits for you in the inbox',
  'mail.digest_many': '{count} items wait for you in the inbox',
  // The page a mail's one-tap link opens (src/http/mail_page.ts)
  'link.title': '{verb}: {title}',
  'link.heading': '{verb}?',
  'link.signed_in': 'Signed in by this link as',
  'link.nothing_yet': 'Nothing is decided until you press the button.',
  'link.reason': 'Reason (optional)',
  'link.nobody': 'nobody (it expired)',
  'link.done': 'Done',
  'link.already_settled': 'Already settled',
  'link.approval': 'approval',
  'link.question': 'question',
  'link.settled': 'This {what} is {status}, settled by {by} via {via}.',
  'link.settled_at': 'This {what} is {status}, settled by {by} via {via} at {when} (UTC).',
  'link.voted': 'Vote counted',
  'link.voted_text': 'Your vote is counted; the approval waits for the others.',
  'link.broken': 'This link does not work',
  'link.not_done': 'Not done',
  'link.expired': 'The link is not valid or has expired. Open the inbox instead.',
  'link.invalid': 'The link is not valid.',
  'link.gone': 'There is nothing behind this link any more.',
  'link.handed_on': 'This is no longer yours to settle: it was handed to someone else.',
  'action.approve': 'Approve',
  'action.reject': 'Reject',
  'action.confirm_defaults': 'Confirm the defaults',
  'action.answer': 'Answer…',
  'settled.approved': 'Approved by {by} via {via}',
  'settled.rejected': 'Rejected by {by} via {via}',
  'settled.answered': 'Answered by {by} via {via}',
  'settled.expired': 'Expired',
} as const

/** A word the package says */
export type WordKey = keyof typeof en

/** A language's words: any key missing falls back to English */
export type Catalogue = Partial<Record<WordKey, string>>
