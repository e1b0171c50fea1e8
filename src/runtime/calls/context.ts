/*
 * What every tool-call handler in this folder shares: the run and agent of
 * the step being handled, the attempt's rows, and the few services that
 * write (the inbox for rows, the run state for failing a run, the
 * checkpoint hook). A handler answers with output for the model, or with
 * WAIT / CANCELLED for the loop to act on.
 *
 * The folder holds one file per kind of call: intake.ts (the agent's form),
 * ask.ts (the model's questions), app_tool.ts (the app's tools and their
 * approval), execute_once.ts (running a tool at most once), waits.ts
 * (opening waits, expiry, answer memory) and toolset.ts (what the model is
 * offered).
 */

import type { Inbox } from '../../inbox/inbox.ts'
import type { ToolContext } from '../define_tool.ts'
import { callKey } from '../effects/keys.ts'
import type { Outbox } from '../effects/outbox.ts'
import type { DecisionSigner } from '../../inbox/decision_signature.ts'
import type { ApprovalsConfig } from '../../governance/policy.ts'
import type { AgentRun } from '../../persistence/models/agent_run.ts'
import type { ToolCall } from '../../persistence/models/tool_call.ts'
import type { AgentDefinition } from '../define_agent.ts'
import type { OnCheckpoint, ToolOutput } from '../journal.ts'
import type { RunMemory } from '../run_memory.ts'
import type { RunState } from '../run_state.ts'
import type { OpenClaims } from './execute_once.ts'

export type CallContext = {
  run: AgentRun
  agent: AgentDefinition
  /** This attempt's rows, in order; rows opened while handling are added */
  rows: ToolCall[]
  /** What the driver holds of the run: its next row sequence among others */
  memory: RunMemory
  /** Where rows are written and waits opened */
  inbox: Inbox
  /** Verifies approvals before their action runs (the app's message verifier) */
  signer?: DecisionSigner
  /** The app-wide policy and role resolver (docs/design.md §11) */
  approvals?: ApprovalsConfig
  state: RunState
  onCheckpoint?: OnCheckpoint
  /** The driver's lease owner, which its claims on executions name */
  owner: string
  /** Executions the driver claimed whose outcome is not written yet */
  claims: OpenClaims
  /** Delivers the effects of transactional actions after their commit */
  outbox: Outbox
  /**
   * Tool handlers this drive started: one may outlive the lease, so the
   * driver checks its fence before the next model call (docs/design.md §8.2)
   */
  handlersRun: number
}

/** The run must wait for a person */
export const WAIT = Symbol('wait')
/** The run was cancelled under our feet */
export const CANCELLED = Symbol('cancelled')

export type CallResult = ToolOutput | typeof WAIT | typeof CANCELLED

/**
 * Output the model reads as a failed call.
 */
export function errorOutput(value: string): ToolOutput {
  return { type: 'error-text', value }
}

/**
 * What a tool's handler receives besides its input: the run, the call's
 * row (none for a read batched with its response, written after it ran)
 * and the call's idempotency key, derived from the run, its attempt and
 * the call's stored id, so it is the same on every start of the call.
 */
export function toolContext(
  run: AgentRun,
  callId: string,
  row: ToolCall | null,
  argsEdited: boolean,
  storedId: string = callId
): ToolContext {
  return {
    runId: run.id,
    ownerId: run.ownerId,
    toolCallId: callId,
    argsEdited,
    idempotencyKey: rowKey(run, row, storedId),
    run: {
      id: run.id,
      agent: run.agent,
      ownerId: run.ownerId,
      attempt: run.attempt,
      input: run.input,
    },
    row: row && {
      id: row.id,
      sequence: row.sequence,
      approvedBy: row.status === 'approved' ? row.answeredBy : null,
      approvedVia: row.status === 'approved' ? row.answeredVia : null,
      approvedAt: row.status === 'approved' ? row.settledAt : null,
    },
  }
}

/**
 * The idempotency key of a call of `run` (its row's, once it has one).
 */
export function rowKey(run: AgentRun, row: ToolCall | null, callId: string): string {
  return callKey(run.id, row?.attempt ?? run.attempt, row?.toolCallId ?? callId)
}
