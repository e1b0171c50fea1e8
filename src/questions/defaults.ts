/*
 * Which of a question's defaults hold (docs/design.md §3.2): the one rule every
 * channel applies to the values a model pre-picked, so a question left on
 * its defaults settles to the same values whether it was skipped, expired,
 * kept with Enter in a terminal, confirmed untouched on the inbox page or
 * approved over MCP. Pure and browser-safe: imports values.ts and types only.
 */

import type { Question } from './types.ts'
import { checkValue, isSingleChoice } from './values.ts'

/**
 * A question's defaults, split into those that hold and those dropped.
 */
export type SplitDefaults = { values: string[]; dropped: string[] }

/**
 * Splits a question's defaults into those that hold and those dropped. A
 * default holds when the question accepts it as an answer (`checkValue`):
 *  - an option value, on any option question;
 *  - free text, on an option question with `allowFreeText`, when it passes
 *    the question's typed rules, and one only: the page has one field for
 *    a person's own words and the terminal reads one, so no channel could
 *    show a second;
 *  - on a typed question, a value passing its rules.
 * A single-choice question keeps its first default that holds. Repeats are
 * dropped silently. What holds comes in the order the question offers it:
 * option values in the options' order, then free text or typed values in
 * the defaults' order (the order in which the inbox page sends them).
 *
 * @example
 * splitDefaults({ id: 'tz', prompt: 'Time zone?', allowFreeText: true,
 *   options: [{ value: 'UTC', label: 'UTC' }, { value: 'US/Eastern', label: 'New York' }],
 *   defaults: ['Europe/Lisbon'] })
 * // { values: ['Europe/Lisbon'], dropped: [] }
 */
export function splitDefaults(question: Question): SplitDefaults {
  const options = (question.options ?? []).map((option) => option.value)
  const held: string[] = []
  const dropped: string[] = []
  let freeText = false

  for (const value of new Set(question.defaults)) {
    const isOption = options.includes(value)
    const holds =
      checkValue(question, value) === null &&
      (held.length === 0 || !isSingleChoice(question)) &&
      (isOption || options.length === 0 || !freeText)
    if (!holds) {
      dropped.push(value)
      continue
    }
    held.push(value)
    freeText ||= !isOption && options.length > 0
  }

  const rank = (value: string) => {
    const index = options.indexOf(value)
    return index === -1 ? options.length : index
  }
  // A stable sort: values of the same rank keep the defaults' order
  return { values: held.sort((a, b) => rank(a) - rank(b)), dropped }
}

/**
 * The defaults of a question that hold, as every channel takes them (see
 * `splitDefaults` for the rule).
 *
 * @example
 * effectiveDefaults({ id: 'db', prompt: 'Which database?', options: [{ value: 'pg', label: 'PostgreSQL' }], defaults: ['mongo', 'pg'] })
 * // ['pg']
 */
export function effectiveDefaults(question: Question): string[] {
  return splitDefaults(question).values
}
