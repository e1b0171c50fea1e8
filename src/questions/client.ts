/*
 * The part of the package the inbox page runs in the browser, importable as
 * `adonis-agent-inbox/questions/client`: which defaults hold, the input
 * rules (a pattern's safety among them), the names of a person's and a
 * run's Transmit channels, and the pages' English words, so the page
 * carries no copies of them. Browser-safe on purpose: nothing here (or in what it
 * imports) may reach Vine, the errors module, Lucid or any `node:` module.
 */

export { effectiveDefaults, splitDefaults, type SplitDefaults } from './defaults.ts'
export { checkValue, inputTypeOf, isSingleChoice } from './values.ts'
export { matchesPattern, patternProblem } from './pattern.ts'
// The pages' English words, their fallback for a key the server did not send, and how a word is filled
export { PAGE_WORDS, type PageWordKey } from '../i18n/catalogue/pages.ts'
export { interpolate } from '../i18n/interpolate.ts'

/**
 * A person's Transmit channel, on which the server broadcasts their rows'
 * events (src/http/live.ts) and the page subscribes; null when the id
 * cannot name one: no owner, or an id with a `/`, which would not match
 * the `agent_inbox/:person` pattern and so would not be authorized.
 *
 * @example
 * transmitChannel('user:1') // 'agent_inbox/user:1'
 * transmitChannel(null) // null
 */
export function transmitChannel(person: string | null | undefined): string | null {
  if (!person || person.includes('/')) return null
  return `agent_inbox/${person}`
}

/**
 * A run's Transmit channel, on which a streaming agent's steps are
 * broadcast as they arrive (src/http/live.ts); those who may read the
 * whole run may subscribe. Null for an id that cannot name one.
 *
 * @example
 * runChannel('7d1c…') // 'agent_inbox/runs/7d1c…'
 */
export function runChannel(runId: string | null | undefined): string | null {
  if (!runId || runId.includes('/')) return null
  return `agent_inbox/runs/${runId}`
}

/**
 * A person's Transmit channel of one chat (a conversation, docs/guides/chat.md),
 * on which its turns' steps and statuses go: the person's own, so a chat's
 * page can subscribe before the conversation's first message creates it.
 * Null for an id that cannot be one.
 *
 * @example
 * chatChannel('user:1', 'c0ffee12') // 'agent_inbox/chats/user:1/c0ffee12'
 */
export function chatChannel(
  person: string | null | undefined,
  chatId: string | null | undefined
): string | null {
  if (!person || !chatId || person.includes('/') || chatId.includes('/')) return null
  return `agent_inbox/chats/${person}/${chatId}`
}
