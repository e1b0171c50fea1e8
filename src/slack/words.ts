/*
 * Every word the Slack channel shows, keyed `slack.*` with its English
 * text; the English catalogue (src/i18n/catalogue/en.ts) takes them in,
 * so they are translated like the pages' and mails' words.
 */

import { Words } from '../i18n/words.ts'
import type { WordKey } from '../i18n/catalogue/en.ts'
import { SLACK_WORDS } from './english.ts'

export { SLACK_WORDS }

export type SlackWord = keyof typeof SLACK_WORDS

/**
 * The text of `key` (one of `SLACK_WORDS`, or a shared word such as
 * `action.approve`) in the words' language (the app's own
 * `agent_inbox.slack.*` messages first, src/i18n/), `{placeholders}` filled
 */
export function slackText(
  key: WordKey,
  values: Record<string, string> = {},
  words: Words = Words.english
): string {
  return words.t(key, values)
}
