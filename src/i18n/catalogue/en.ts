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
