/*
 * The part of the package the inbox page runs in the browser, importable as
 * `adonis-agent-inbox/questions/client`: which defaults hold, the input
 * rules (a pattern's safety among them), and the name of a person's Transmit channel, so the page carries no
 * copies of them. Browser-safe on purpose: nothing here (or in what it
 * imports) may reach Vine, the errors module, Lucid or any `node:` module.
 */

export { effectiveDefaults, splitDefaults, type SplitDefaults } from './defaults.ts'
export { checkValue, inputTypeOf, isSingleChoice } from './values.ts'
export { matchesPattern, patternProblem } from './pattern.ts'

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
