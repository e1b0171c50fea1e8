/*
 * Answering rows by a rule instead of a person, for tests: every question
 * set on its defaults (or on given answers by question id), approvals
 * approved or rejected by tool name. `autoReply` is the pure rule (which
 * reply a row gets, or none); `AutoAnswerer` settles rows through the
 * inbox's one settle path as they are opened, so a run completes headless
 * and leaves the same audit as a person's reply (`answeredVia: 'test'`).
 */

import debug from '../debug.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { waitsForAnswers } from './wait.ts'

/**
 * What to answer. Question sets (the model's `ask`, an intake, an MCP form)
 * take `answers`: `'defaults'` (the default) confirms their pre-picked
 * defaults, an object gives answers by question id (unnamed questions keep
 * their defaults). Approvals are decided by tool name: `approve` lists the
 * tools approved (`'*'` for all), `reject` the tools rejected, with the
 * reason the model reads. A row no rule covers stays pending, for the test
 * to settle or assert.
 */
export type AutoAnswerRule = {
  answers?: 'defaults' | Record<string, string[]> | null
  approve?: string[] | '*'
  reject?: Record<string, string>
  /** Recorded as `answered_by`; default `'auto-answer'` */
  by?: string
}

/**
 * The reply a rule gives a row, or null when the row is left alone.
 *
 * @example
 * autoReply(row, { approve: ['deploy'] }) // { approved: true } for a deploy approval
 */
export function autoReply(
  row: Pick<ToolCall, 'kind' | 'toolName'>,
  rule: AutoAnswerRule
): Record<string, unknown> | null {
  if (waitsForAnswers(row)) {
    const answers = rule.answers === undefined ? 'defaults' : rule.answers
    if (answers === null) return null
    return { answers: answers === 'defaults' ? {} : answers }
  }
  const reason = rule.reject?.[row.toolName]
  if (reason !== undefined) return { approved: false, reason }
  const approve = rule.approve
  if (approve === '*' || approve?.includes(row.toolName)) return { approved: true }
  return null
}

type Settle = (rowId: string, reply: unknown, by: string) => Promise<unknown>

/**
 * Settles rows by a rule as they are opened, each on the next tick (the
 * opener first finishes what it was doing, as it would before a person
 * answered). Keeps its settles in flight, so `settling()` can be awaited,
 * and the errors a reply met (a given answer the question refuses).
 */
export class AutoAnswerer {
  readonly errors: unknown[] = []
  #rule: AutoAnswerRule
  #settle: Settle
  #inFlight = new Set<Promise<void>>()

  constructor(rule: AutoAnswerRule, settle: Settle) {
    this.#rule = rule
    this.#settle = settle
  }

  /**
   * A row was opened pending: settle it if the rule covers it.
   */
  opened(row: ToolCall) {
    const reply = autoReply(row, this.#rule)
    if (!reply) return
    const task: Promise<void> = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.#settle(row.id, reply, this.#rule.by ?? 'auto-answer'))
      .then(
        () => undefined,
        (error) => {
          debug('auto-answer of row %s failed %O', row.id, error)
          this.errors.push(error)
        }
      )
      .finally(() => this.#inFlight.delete(task))
    this.#inFlight.add(task)
  }

  /**
   * Resolves once every settle started so far has ended: true when there
   * were any.
   */
  async settling() {
    const busy = this.#inFlight.size > 0
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight])
    return busy
  }
}
