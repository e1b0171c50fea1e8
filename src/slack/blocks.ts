/*
 * The Block Kit of the Slack channel, pure: a row's message (an approval's
 * summary and args with Approve / Reject; a question set's questions and
 * defaults with Confirm the defaults / Answer…), its settled state, and the
 * two modals (a rejection's reason, the answers pre-filled with the
 * defaults). Buttons and modals carry the row's id and the view digest of
 * what the message showed, so a reply is bound to that version of the row.
 */

import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { Question, QuestionSet } from '../questions/types.ts'
import { waitsForAnswers } from '../inbox/wait.ts'
import { viewDigest } from '../governance/view.ts'
import { Words } from '../i18n/words.ts'
import type { WordKey } from '../i18n/catalogue/en.ts'
import { slackText } from './words.ts'
import { optionLabel } from '../questions/values.ts'
import { rowTitle } from '../notify/mail_text.ts'

export const SLACK_ACTIONS = {
  approve: 'agent_inbox.approve',
  reject: 'agent_inbox.reject',
  confirm: 'agent_inbox.confirm',
  answer: 'agent_inbox.answer',
} as const

/** What a button or a modal carries: the row and the digest of what was shown */
export type SlackRef = { row: string; view: string; channel?: string; ts?: string }

type Block = Record<string, unknown>

const plain = (text: string) => ({ type: 'plain_text', text: clip(text, 150), emoji: true })
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text: clip(text, 2900) })
const clip = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, length - 1)}…` : text
/** Slack's mrkdwn reads `&`, `<` and `>` as markup */
const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** What the message shows of the row, without its buttons */
function body(row: ToolCall, words: Words): Block[] {
  const head: Block = { type: 'section', text: mrkdwn(`*${escape(rowTitle(row, words))}*`) }
  if (!waitsForAnswers(row)) {
    const args = JSON.stringify(row.request?.args ?? null, null, 2)
    const text = `*${slackText('slack.args', {}, words)}*\n\`\`\`${escape(clip(args, 2800))}\`\`\``
    return [head, { type: 'section', text: mrkdwn(text) }]
  }
  const set = row.request as QuestionSet
  const lines = set.questions.map((question) => {
    const value =
      question.defaults.map((item) => optionLabel(question, item)).join(', ') ||
      slackText('slack.no_default', {}, words)
    return `• ${escape(question.prompt)} — _${escape(slackText('slack.default', { value }, words))}_`
  })
  return [head, { type: 'section', text: mrkdwn(lines.join('\n')) }]
}

/** A row's message while it waits: what it asks and its buttons */
export function rowMessage(
  row: ToolCall,
  words: Words = Words.english
): { text: string; blocks: Block[] } {
  const ref = JSON.stringify({ row: row.id, view: viewDigest(row) } satisfies SlackRef)
  const button = (action: keyof typeof SLACK_ACTIONS, word: WordKey, style?: string) => ({
    type: 'button',
    action_id: SLACK_ACTIONS[action],
    text: plain(slackText(word, {}, words)),
    value: ref,
    ...(style ? { style } : {}),
  })
  const buttons = waitsForAnswers(row)
    ? [button('confirm', 'action.confirm_defaults', 'primary'), button('answer', 'action.answer')]
    : [button('approve', 'action.approve', 'primary'), button('reject', 'action.reject', 'danger')]
  return {
    text: rowTitle(row, words),
    blocks: [...body(row, words), { type: 'actions', block_id: 'agent_inbox', elements: buttons }],
  }
}

/** The line a settled row's message ends with ("Approved by Ada via Slack") */
export function settledLine(row: ToolCall, name: string, words: Words = Words.english): string {
  if (row.status === 'expired') return slackText('settled.expired', {}, words)
  if (row.status === 'cancelled') return slackText('slack.settled.cancelled', {}, words)
  const state = row.status === 'approved' || row.status === 'rejected' ? row.status : 'answered'
  const via = row.answeredVia ?? 'web'
  if (via === 'web') return slackText(`slack.settled.${state}_inbox`, { name }, words)
  const channel = via === 'slack' ? slackText('slack.via.slack', {}, words) : via
  return slackText(`settled.${state}`, { by: name, via: channel }, words)
}

/** A settled row's message: what it asked, and who settled it where, without buttons */
export function settledMessage(row: ToolCall, name: string, words: Words = Words.english) {
  const line = settledLine(row, name, words)
  return {
    text: `${rowTitle(row, words)} — ${line}`,
    blocks: [...body(row, words), { type: 'context', elements: [mrkdwn(`*${escape(line)}*`)] }],
  }
}

/** The modal asking a rejection's reason */
export function rejectModal(ref: SlackRef, words: Words = Words.english) {
  return {
    type: 'modal',
    callback_id: SLACK_ACTIONS.reject,
    private_metadata: JSON.stringify(ref),
    title: plain(slackText('slack.reject_title', {}, words)),
    submit: plain(slackText('action.reject', {}, words)),
    close: plain(slackText('slack.cancel', {}, words)),
    blocks: [
      {
        type: 'input',
        block_id: 'reason',
        optional: true,
        label: plain(slackText('slack.reason', {}, words)),
        element: { type: 'plain_text_input', action_id: 'value', multiline: true },
      },
    ],
  }
}

/** An input of the answer modal, pre-filled with the question's defaults */
function questionInput(question: Question): Block {
  const option = (value: string) => ({ text: plain(optionLabel(question, value)), value })
  let element: Record<string, unknown>
  if (question.options?.length && !question.allowFreeText) {
    const options = question.options.map((item) => option(item.value))
    const chosen = question.defaults.filter((value) =>
      question.options!.some((item) => item.value === value)
    )
    element = question.multiple
      ? {
          type: 'multi_static_select',
          options,
          ...(chosen.length ? { initial_options: chosen.map(option) } : {}),
        }
      : {
          type: 'static_select',
          options,
          ...(chosen[0] ? { initial_option: option(chosen[0]) } : {}),
        }
  } else {
    const initial = question.defaults.join('\n')
    element = {
      type: 'plain_text_input',
      multiline: Boolean(question.multiple),
      ...(initial ? { initial_value: initial } : {}),
    }
  }
  return {
    type: 'input',
    block_id: `q:${question.id}`,
    optional: !question.input?.required,
    label: plain(question.prompt),
    element: { ...element, action_id: 'value' },
  }
}

/** The modal answering a question set, each input holding its default */
export function answerModal(row: ToolCall, ref: SlackRef, words: Words = Words.english) {
  const set = row.request as QuestionSet
  return {
    type: 'modal',
    callback_id: SLACK_ACTIONS.answer,
    private_metadata: JSON.stringify(ref),
    title: plain(slackText('slack.answer_title', {}, words)),
    submit: plain(slackText('slack.submit', {}, words)),
    close: plain(slackText('slack.cancel', {}, words)),
    blocks: set.questions.map(questionInput),
  }
}

type StateValue = {
  value?: string | null
  selected_option?: { value: string } | null
  selected_options?: { value: string }[]
}

/** The answers of a submitted answer modal (`view.state.values`), by question id */
export function modalAnswers(
  values: Record<string, Record<string, StateValue>>
): Record<string, string[]> {
  const answers: Record<string, string[]> = {}
  for (const [block, inputs] of Object.entries(values ?? {})) {
    if (!block.startsWith('q:')) continue
    const input = inputs.value ?? {}
    answers[block.slice(2)] = input.selected_options
      ? input.selected_options.map((item) => item.value)
      : input.selected_option
        ? [input.selected_option.value]
        : (input.value ?? '')
            .split('\n')
            .map((line) => line.trim())
            .filter(Boolean)
  }
  return answers
}
