/*
 * What a pending row waits for. A row of kind `ask` or `intake` waits for
 * answers to its question set; an `action` waits for a yes/no decision.
 * Every channel (the page's cards, the terminal, the settler, MCP) asks
 * this module rather than testing kinds itself, so the rule lives once.
 */

import type { DateTime } from 'luxon'
import type { ExpiryRule, Wait } from '../questions/settle.ts'
import type { QuestionOutcome, QuestionSet } from '../questions/types.ts'
import type { QuorumSpec } from '../governance/quorum.ts'
import type { ToolCallKind } from '../persistence/models/tool_call.ts'
import type { GrantChoice } from '../governance/grant_rules.ts'
import type { LadderStep } from '../governance/ladder.ts'
import type { OpenedBy } from './row_records.ts'

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
      /** The model's id of the call that asked, answered in the conversation */
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
      /**
       * A link the person opens to do what is asked (an MCP URL-mode
       * elicitation): the card shows it, and the row is settled when what
       * is behind it reports completion, or by the person (done, decline).
       */
      link?: string
      /** What an approval may remember, as the card offers it (docs/design.md §11.2) */
      grants?: GrantChoice[]
      /** The digest of the tool's input schema the args were validated with (current_tool.ts) */
      schema?: string
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

export type OpenOptions = {
  /** When nobody answered by then, the row is settled by `onExpiry`; null: never */
  expiresAt?: DateTime | null
  /** What expiry does: take the defaults (default), reject, or cancel the run */
  onExpiry?: ExpiryRule
  /** A question of the model's: spends one of the run's ask budget with the row */
  spendsBudget?: boolean
  /**
   * The same questions were answered earlier in this run (answer memory):
   * the row is written already answered with this outcome, via `memory`,
   * and waits for nobody.
   */
  recalled?: QuestionOutcome
  /** The row's sequence, when the caller holds the run and knows it */
  sequence?: number
  /** Who holds the wait open in memory (an MCP elicitation's driver): `claimed_by` */
  heldBy?: string
  /**
   * An approval that needs a quorum (docs/design.md §11.3): stored with the
   * row, each approver a record of `agent_approvers`, in its transaction
   */
  quorum?: QuorumSpec
  /** What decided to open it (a policy's rule), for its audit entry */
  decidedBy?: Record<string, unknown>
  /** Escalation steps before `expiresAt` (docs/design.md §7.7), timed from now */
  ladder?: LadderStep[]
  /** The fingerprint of the agent's definition it is asked under (runtime/definitions.ts) */
  definitionDigest?: string
  /** The traceparent of the drive that opens it, while traced (src/telemetry/) */
  openedTrace?: string
  /** Who opened it from outside the runtime, for its `created` entry (row_records.ts) */
  openedBy?: OpenedBy
}
