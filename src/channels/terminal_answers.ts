/*
 * The terminal channel's words, pure: how a question, an approval or a
 * waiting row is written in a terminal, and how what a person types is read
 * back ("2", "1,3", their own words, "y"/"n"). Values are judged by the
 * same rules as the inbox (../questions/values.ts), so a terminal answer
 * can never pass here and fail when settled. No IO, no Lucid, no HTTP: the
 * prompting lives in ./terminal.ts.
 */

import type { Question, QuestionSet } from '../questions/types.ts'
import { effectiveDefaults } from '../questions/defaults.ts'
import { checkValue, inputTypeOf, isSingleChoice, optionLabel } from '../questions/values.ts'
import { waitsForAnswers } from '../inbox/wait.ts'

/**
 * What a person typed for one question:
 *  - `values: null`: an empty line on a question without defaults that
 *    hold, left unanswered (out of the reply, so it is recorded as
 *    defaulted);
 *  - `values`: what they picked or typed, each value acceptable;
 *  - `ok: false`: what is wrong, to show before asking again.
 */
export type ParsedAnswer = { ok: true; values: string[] | null } | { ok: false; message: string }

/**
 * The reason an approval gets when nobody can approve from a terminal
 * (stdin is not a TTY: piped, CI), so a run never waits on a prompt
 * nobody sees.
 */
export const NO_TERMINAL_REASON = 'denied: no terminal to approve from'

/** The prompt an answer is typed after */
export const ANSWER_PROMPT = '> '

/** The prompt of an approval */
export const APPROVAL_PROMPT = 'Approve? [y/n] '

/** The prompt of the optional reason of a rejection */
export const REASON_PROMPT = 'Reason (optional, Enter for none): '

const PICKS = /^[\d\s,]+$/

const TYPE_HINTS: Record<string, string> = {
  text: 'your answer',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'y or n',
  date: 'a date (YYYY-MM-DD)',
  datetime: 'a date and time (YYYY-MM-DDTHH:mm)',
  email: 'an email address',
  url: 'a URL',
}

/**
 * The lines a question is shown with: a title ("Question 1 of 3 · Header",
 * left out for a lone question without a header), the prompt, its description and detail, the numbered options with the
 * pre-picked ones marked, and a hint saying what to type.
 *
 * @example
 * formatQuestion(question, 0, 2)
 * // ['Question 1 of 2', 'Which database?', '  1) PostgreSQL (pre-picked)', '  2) MySQL',
 * //  'Type a number; Enter keeps PostgreSQL']
 */
export function formatQuestion(question: Question, index: number, total: number): string[] {
  const title = [total > 1 ? `Question ${index + 1} of ${total}` : '', question.header ?? '']
    .filter(Boolean)
    .join(' · ')
  const lines = title ? [title, question.prompt] : [question.prompt]
  if (question.description) lines.push(...indent(question.description))
  if (question.detail) lines.push(...indent(question.detail))

  const defaults = new Set(effectiveDefaults(question))
  ;(question.options ?? []).forEach((option, position) => {
    let line = `  ${position + 1}) ${option.label}`
    if (option.hotkey) line += ` [${option.hotkey}]`
    if (defaults.has(option.value)) line += ' (pre-picked)'
    if (option.description) line += ` - ${option.description}`
    lines.push(line)
  })
  lines.push(answerHint(question))
  return lines
}

/**
 * What to type for a question, and what Enter does.
 *
 * @example
 * answerHint(multipleChoice) // 'Type numbers separated by commas (e.g. 1,3); Enter keeps Lint, Tests'
 */
export function answerHint(question: Question): string {
  const options = question.options ?? []
  let hint: string
  if (options.length > 0) {
    hint = isSingleChoice(question)
      ? 'Type a number'
      : 'Type numbers separated by commas (e.g. 1,3)'
    if (question.allowFreeText) hint += ', or your own words'
  } else {
    const input = question.input ?? { type: inputTypeOf(question) }
    hint = `Type ${TYPE_HINTS[input.type] ?? 'your answer'}`
    if (typeof input.min === 'number' && typeof input.max === 'number' && input.type !== 'text') {
      hint += ` from ${input.min} to ${input.max}`
    }
    if (!isSingleChoice(question) && input.type !== 'text') hint += ', several separated by commas'
  }

  const defaults = effectiveDefaults(question)
  if (defaults.length > 0) {
    return `${hint}; Enter keeps ${defaults.map((value) => optionLabel(question, value)).join(', ')}`
  }
  return question.input?.required ? `${hint} (required)` : `${hint}; Enter leaves it unanswered`
}

function indent(text: string): string[] {
  return text.split('\n').map((line) => `    ${line}`)
}

/**
 * The option a typed token names: its number, its hotkey, its value, or
 * its label (case-insensitive), in that order.
 */
function optionFor(question: Question, token: string) {
  const options = question.options ?? []
  if (/^\d+$/.test(token)) return options[Number(token) - 1]
  const lower = token.toLowerCase()
  return (
    options.find((option) => option.hotkey?.toLowerCase() === lower) ??
    options.find((option) => option.value === token) ??
    options.find((option) => option.label.toLowerCase() === lower)
  )
}

/**
 * Reads what a person typed for one question. An empty line keeps the
 * defaults, sent as the person's answer, as the page sends a card
 * confirmed untouched: the model reads the same "Answer: …" whichever
 * channel kept them (an empty line is refused for a required question
 * without defaults). On an option
 * question, "2" picks the second option and "1,3" several (when the
 * question takes several); hotkeys, values and labels pick too. Anything
 * else is the person's own words when the question allows free text, and
 * checked by its typed rules. A typed question reads the line as its
 * value ("y"/"n" for a boolean; several separated by commas when it takes
 * several and is not plain text).
 *
 * @example
 * parseAnswer(db, '2') // { ok: true, values: ['mysql'] }
 * parseAnswer(db, '') // { ok: true, values: ['postgres'] } (its default)
 * parseAnswer(db, '7') // { ok: false, message: 'There is no option 7: type a number from 1 to 2' }
 */
export function parseAnswer(question: Question, line: string): ParsedAnswer {
  const text = line.trim()
  if (text === '') {
    const defaults = effectiveDefaults(question)
    if (defaults.length > 0) return { ok: true, values: defaults }
    if (question.input?.required) return { ok: false, message: 'An answer is required' }
    return { ok: true, values: null }
  }
  const options = question.options ?? []
  return options.length > 0 ? parsePicks(question, text) : parseTyped(question, text)
}

function parsePicks(question: Question, text: string): ParsedAnswer {
  const options = question.options!
  const tokens = text
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '')
  const picked = tokens.map((token) => optionFor(question, token))

  if (picked.every((option) => option !== undefined)) {
    const values = [...new Set(picked.map((option) => option.value))]
    if (values.length > 1 && isSingleChoice(question)) {
      return { ok: false, message: 'Pick one option only' }
    }
    return { ok: true, values }
  }

  // Numbers that name no option are a typo, not someone's own words
  if (PICKS.test(text)) {
    const missing = tokens.find((token) => optionFor(question, token) === undefined)
    return {
      ok: false,
      message: `There is no option ${missing}: type a number from 1 to ${options.length}`,
    }
  }
  if (!question.allowFreeText) {
    const missing = tokens.find((token) => optionFor(question, token) === undefined)
    return {
      ok: false,
      message: `"${missing}" is not an option: type a number from 1 to ${options.length}`,
    }
  }
  const problem = checkValue(question, text)
  return problem
    ? { ok: false, message: sentence('Your answer', problem) }
    : { ok: true, values: [text] }
}

function parseTyped(question: Question, text: string): ParsedAnswer {
  const type = inputTypeOf(question)
  const several = !isSingleChoice(question) && type !== 'text'
  const raw = several
    ? text
        .split(',')
        .map((value) => value.trim())
        .filter((value) => value !== '')
    : [text]

  const values: string[] = []
  for (const candidate of raw) {
    const value = type === 'boolean' ? (booleanOf(candidate) ?? candidate) : candidate
    const problem = checkValue(question, value)
    if (problem) {
      const which = raw.length > 1 ? `"${candidate}"` : 'Your answer'
      return { ok: false, message: sentence(which, problem) }
    }
    if (!values.includes(value)) values.push(value)
  }
  return { ok: true, values }
}

/**
 * A rule's message as a sentence about the answer: "Your answer must be a
 * number", or, for the rules that name what they measure ("value must be
 * at most 5"), "Your answer: value must be at most 5".
 */
function sentence(subject: string, problem: string): string {
  return /^(must|is) /.test(problem) ? `${subject} ${problem}` : `${subject}: ${problem}`
}

function booleanOf(text: string): 'true' | 'false' | null {
  const yes = parseDecision(text)
  return yes === null ? null : yes ? 'true' : 'false'
}

/**
 * Reads a yes/no: `y`, `yes`, `true` approve; `n`, `no`, `false` reject;
 * anything else is null (ask again).
 *
 * @example
 * parseDecision('Y') // true
 * parseDecision('maybe') // null
 */
export function parseDecision(line: string): boolean | null {
  const text = line.trim().toLowerCase()
  if (['y', 'yes', 'true'].includes(text)) return true
  if (['n', 'no', 'false'].includes(text)) return false
  return null
}

/**
 * The lines an approval is shown with: the tool, the summary the tool
 * wrote, and the args the run will use, as JSON.
 *
 * @example
 * formatApproval('deploy', { args: { branch: 'main' }, summary: 'Deploy main' })
 * // ['Approve the call to "deploy"?', '  Deploy main', '  args: {', '    "branch": "main"', '  }']
 */
export function formatApproval(toolName: string, request: { args?: unknown; summary?: string }) {
  const lines = [`Approve the call to "${toolName}"?`]
  if (request.summary) lines.push(`  ${request.summary}`)
  const args = JSON.stringify(request.args ?? null, null, 2).split('\n')
  lines.push(`  args: ${args[0]}`, ...args.slice(1).map((line) => `  ${line}`))
  return lines
}

/**
 * The answers a set's parsed lines make: questions left unanswered are
 * left out, so settling records them as defaulted.
 *
 * @example
 * answersReply(new Map([['db', ['mysql']], ['cache', null]])) // { answers: { db: ['mysql'] } }
 */
export function answersReply(parsed: Map<string, string[] | null>) {
  const answers: Record<string, string[]> = {}
  for (const [id, values] of parsed) if (values !== null) answers[id] = values
  return { answers }
}

/**
 * A row waiting for a person, as `agents:inbox` lists it.
 */
export type WaitingRow = {
  id: string
  kind: 'read' | 'action' | 'ask' | 'intake'
  toolName: string
  runId: string
  ownerId: string | null
  request: any
}

/**
 * One line saying what a waiting row needs: the approval's summary, or the
 * first question of a set (and how many more).
 *
 * @example
 * describeWaiting({ kind: 'action', toolName: 'deploy', request: { summary: 'Deploy main' }, ... })
 * // 'approve deploy: Deploy main'
 */
export function describeWaiting(row: Pick<WaitingRow, 'kind' | 'toolName' | 'request'>): string {
  if (waitsForAnswers(row)) {
    const set = row.request as QuestionSet
    const first = set.questions[0]?.prompt ?? ''
    const more = set.questions.length > 1 ? ` (+${set.questions.length - 1} more)` : ''
    return `${row.kind === 'intake' ? 'intake' : 'answer'}: ${clip(first, 70)}${more}`
  }
  const summary = row.request?.summary
  return `approve ${row.toolName}${summary ? `: ${clip(summary, 70)}` : ''}`
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/**
 * The input of a run typed on the command line: JSON when it starts like
 * an object or a list (and parses), else the text itself; none is null.
 *
 * @example
 * parseRunInput('{"service":"api"}') // { service: 'api' }
 * parseRunInput('restart the api') // 'restart the api'
 */
export function parseRunInput(text: string | undefined): unknown {
  if (text === undefined) return null
  const trimmed = text.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed)
    } catch {
      return text
    }
  }
  return text
}
