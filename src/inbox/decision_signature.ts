/*
 * Approvals bound to the app's secret. An approved decision is signed, when
 * it is settled, over the row, the tool and the exact args that will run
 * (the args shown, or the person's edit), with the app's message verifier
 * (`encryption.getMessageVerifier()`, keyed by the app's encryption key). The
 * driver verifies it before running the action: someone who can write the
 * database but does not hold the key cannot rewrite what was approved — the
 * args hash alone is unkeyed, so they could rewrite both args and hash.
 */

import type { DecisionOutcome } from '../questions/types.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { hashArgs } from './args_hash.ts'

/**
 * What signs and verifies: the app's message verifier.
 */
export type DecisionSigner = {
  sign(payload: any, expiresIn?: string | number, purpose?: string): string
  unsign<T>(signed: string, purpose?: string): T | null
}

type SignedRow = Pick<ToolCall, 'id' | 'toolName' | 'request'>

/**
 * The args an approval runs with: the person's edit, else the args shown.
 */
export function approvedArgs(row: SignedRow, decision: DecisionOutcome): unknown {
  return decision.editedInput !== undefined ? decision.editedInput : row.request?.args
}

function digest(row: SignedRow, args: unknown): string {
  return hashArgs({ row: row.id, tool: row.toolName, args })
}

function purpose(row: SignedRow): string {
  return `adonis-agent-inbox:decision:${row.id}`
}

/**
 * The signature of an approval of `row` that runs with `args`.
 */
export function signDecision(signer: DecisionSigner, row: SignedRow, args: unknown): string {
  return signer.sign(digest(row, args), undefined, purpose(row))
}

/**
 * Whether `signature` approves running `row` with `args`.
 */
export function verifyDecision(
  signer: DecisionSigner,
  row: SignedRow,
  args: unknown,
  signature: string | null
): boolean {
  if (!signature) return false
  return signer.unsign<string>(signature, purpose(row)) === digest(row, args)
}
