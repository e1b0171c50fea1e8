/*
 * What a pending row waits for. A row of kind `ask` or `intake` waits for
 * answers to its question set; an `action` waits for a yes/no decision.
 * Every channel (the page's cards, the terminal, the settler, MCP) asks
 * this module rather than testing kinds itself, so the rule lives once.
 */

import type { Wait } from '../questions/settle.ts'
import type { QuestionSet } from '../questions/types.ts'
import type { ToolCallKind } from '../persistence/models/tool_call.ts'
import type { GrantChoice } from '../governance/grant_rules.ts'

/**
 * A need for a person, as whoever opens it describes it: a question set
 * (the model's `ask`, the agent's intake form, an MCP elicitation) or the
 * approval of a tool call with the args that will be shown.
 */
export type WaitRequest =
  | {
      kind: 'ask' | 'intake'
      set: QuestionSet
      /** Shown as the row's tool; defaults to the kind */
      toolName?: string
      /** The model's id of the call that asked, answered in the transcript */
      toolCallId?: string | null
    }
  | {
      /** The tool's kind; either way the row waits for a yes/no */
      kind: 'read' | 'action'
      toolName: string
      toolCallId?: string | null
      args: unknown
      /** A readable line of what the action will do */
      summary: string
      /** What an approval may remember, as the card offers it (docs/design.md §11.2) */
      grants?: GrantChoice[]
    }

/**
 * Whether a row of this kind waits for answers to a question set (as
 * opposed to a decision).
 *
 * @example
 * waitsForAnswers(row) // true for ask and intake rows
 */
export function waitsForAnswers(row: { kind: ToolCallKind }): boolean {
  return row.kind === 'ask' || row.kind === 'intake'
}

/**
 * The wait a row stands for, in the pure question model's terms: what
 * settling a reply to it needs.
 */
export function waitOf(row: { kind: ToolCallKind; request: any; toolName: string }): Wait {
  return waitsForAnswers(row)
    ? { kind: 'question', set: row.request as QuestionSet }
    : { kind: 'approval', toolName: row.toolName }
}
