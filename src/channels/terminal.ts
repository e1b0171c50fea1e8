/*
 * The terminal channel (docs/design.md §7.5): asks a waiting row's questions or its
 * approval on a line-based terminal and settles the row through the inbox
 * with `via: 'terminal'`, like any other channel. The words and the parsing
 * are pure (./terminal_answers.ts); this module owns the IO: a line reader
 * over node:readline and the prompt loops. It may import the question
 * model, the errors, the inbox's types and its wait rule (../inbox/wait.ts),
 * never Lucid or HTTP.
 */

import { userInfo } from 'node:os'
import { createInterface, type Interface } from 'node:readline'
import type { Inbox } from '../inbox/inbox.ts'
import { viewDigest } from '../governance/view.ts'
import { waitsForAnswers } from '../inbox/wait.ts'
import {
  AlreadySettledException,
  E_CANCELLED,
  E_EXPIRED,
  E_NOT_FOUND,
  E_STALE_VIEW,
  InvalidReplyException,
} from '../errors.ts'
import type { DecisionReply, QuestionSet, Reply } from '../questions/types.ts'
import {
  ANSWER_PROMPT,
  APPROVAL_PROMPT,
  REASON_PROMPT,
  answersReply,
  formatApproval,
  formatQuestion,
  parseAnswer,
  parseDecision,
} from './terminal_answers.ts'

/**
 * Reads one line per prompt. `ask` resolves with null once input has ended
 * (end of a pipe, Ctrl-D) or was interrupted (Ctrl-C): the caller stops
 * asking and settles nothing.
 */
export interface LineReader {
  ask(prompt: string): Promise<string | null>
  close(): void
}

/**
 * Where the channel writes its lines (the command's logger).
 */
export type LineWriter = (line: string) => void

/**
 * A line reader over a readable stream (stdin by default). Lines typed
 * ahead of a prompt are kept for it rather than dropped, so a fast typist
 * (or a test driving a pseudo-terminal) loses nothing.
 *
 * @example
 * const reader = new TerminalReader()
 * const line = await reader.ask('> ')
 * reader.close()
 */
export class TerminalReader implements LineReader {
  #readline: Interface
  #lines: string[] = []
  #waiting: Array<(line: string | null) => void> = []
  #closed = false

  constructor(
    input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
    output: NodeJS.WritableStream = process.stdout
  ) {
    this.#readline = createInterface({ input, output, terminal: input.isTTY === true })
    this.#readline.on('line', (line) => {
      const waiter = this.#waiting.shift()
      if (waiter) waiter(line)
      else this.#lines.push(line)
    })
    this.#readline.on('close', () => {
      this.#closed = true
      for (const waiter of this.#waiting.splice(0)) waiter(null)
    })
    // Ctrl-C while a prompt waits: stop asking; the row stays pending
    this.#readline.on('SIGINT', () => this.#readline.close())
  }

  ask(prompt: string): Promise<string | null> {
    const typedAhead = this.#lines.shift()
    if (typedAhead !== undefined) return Promise.resolve(typedAhead)
    if (this.#closed) return Promise.resolve(null)
    this.#readline.setPrompt(prompt)
    this.#readline.prompt()
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  close() {
    this.#readline.close()
  }
}

/**
 * Whether a person can answer on this stream: it is a TTY. Piped input and
 * CI are not, so `agents:run` offers no ask tool there and denies approvals.
 */
export function hasTerminal(stream: { isTTY?: boolean } = process.stdin): boolean {
  return stream.isTTY === true
}

/**
 * The name of the person at the terminal, for `answeredBy: 'terminal:<user>'`.
 */
export function terminalUser(): string {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown'
  }
}

/**
 * What the channel needs of a waiting row.
 */
export type TerminalRow = {
  id: string
  kind: 'read' | 'action' | 'ask' | 'intake'
  toolName: string
  request: any
}

/**
 * Asks each question of a set in turn, again after a bad answer, and
 * returns the answers (questions left unanswered left out), or null
 * when input ended first.
 */
export async function askAnswers(set: QuestionSet, reader: LineReader, write: LineWriter) {
  if (set.preamble) write(set.preamble)
  const parsed = new Map<string, string[] | null>()
  for (const [index, question] of set.questions.entries()) {
    write('')
    for (const line of formatQuestion(question, index, set.questions.length)) write(line)
    for (;;) {
      const line = await reader.ask(ANSWER_PROMPT)
      if (line === null) return null
      const answer = parseAnswer(question, line)
      if (answer.ok) {
        parsed.set(question.id, answer.values)
        break
      }
      write(`  ${answer.message}. Try again.`)
    }
  }
  return answersReply(parsed)
}

/**
 * Asks y/n for an approval, and an optional reason on "n". Returns the
 * decision, or null when input ended first.
 */
export async function askDecision(
  row: Pick<TerminalRow, 'toolName' | 'request'>,
  reader: LineReader,
  write: LineWriter
): Promise<DecisionReply | null> {
  write('')
  for (const line of formatApproval(row.toolName, row.request ?? {})) write(line)
  for (;;) {
    const line = await reader.ask(APPROVAL_PROMPT)
    if (line === null) return null
    const approved = parseDecision(line)
    if (approved === true) return { approved }
    if (approved === false) {
      const reason = await reader.ask(REASON_PROMPT)
      if (reason === null) return null
      return reason.trim() === '' ? { approved } : { approved, reason: reason.trim() }
    }
    write('  Type y to approve or n to reject.')
  }
}

/**
 * The reply to a row, asked on the terminal: answers for a question set
 * (ask, intake), a decision for an action.
 */
export function askReply(
  row: TerminalRow,
  reader: LineReader,
  write: LineWriter
): Promise<Reply | null> {
  return waitsForAnswers(row)
    ? askAnswers(row.request as QuestionSet, reader, write)
    : askDecision(row, reader, write)
}

/**
 * How settling a row from the terminal ended:
 *  - `settled`: the reply won; `status` is the row's new status;
 *  - `lost`: the row was settled elsewhere meanwhile, expired or was
 *    cancelled (`message` says which);
 *  - `aborted`: input ended before the reply was complete; nothing settled.
 */
export type TerminalSettlement =
  | { result: 'settled'; status: string }
  | { result: 'lost'; message: string }
  | { result: 'aborted' }

/** What the inbox throws when the row was lost to another channel, is gone, or changed since shown */
const LOST = [AlreadySettledException, E_EXPIRED, E_CANCELLED, E_NOT_FOUND, E_STALE_VIEW]

/**
 * Asks a row's reply on the terminal and settles it through the inbox as
 * `by` via 'terminal'. A reply the inbox refuses as invalid is asked again
 * with the reasons shown; one that lost the row to another channel is
 * reported, not thrown.
 *
 * @example
 * await settleFromTerminal(agents.inbox, row, new TerminalReader(), write, 'terminal:ada')
 */
export async function settleFromTerminal(
  inbox: Pick<Inbox, 'settle'>,
  row: TerminalRow,
  reader: LineReader,
  write: LineWriter,
  by: string
): Promise<TerminalSettlement> {
  for (;;) {
    const reply = await askReply(row, reader, write)
    if (!reply) return { result: 'aborted' }
    try {
      // Bound to what was printed: a row changed since is refused (E_STALE_VIEW)
      const settled = await inbox.settle(row.id, reply, {
        by,
        via: 'terminal',
        view: viewDigest(row),
      })
      return { result: 'settled', status: settled.status }
    } catch (error) {
      if (error instanceof InvalidReplyException) {
        for (const issue of error.errors) write(`  ${issue.path}: ${issue.message}`)
        write('  Please answer again.')
        continue
      }
      if (LOST.some((Lost) => error instanceof Lost)) {
        return { result: 'lost', message: (error as Error).message }
      }
      throw error
    }
  }
}
