/*
 * What a settlement writes, built once for every way a row is settled (one
 * reply, or the vote that decides a quorum): the row's settled columns with
 * an approval's signature, the audit entries that go with them, and the
 * check that the reply was made on the row as it is now (docs/design.md
 * §11.4).
 */

import type { DateTime } from 'luxon'
import { E_STALE_VIEW, InvalidReplyException } from '../errors.ts'
import { viewDigest } from '../governance/view.ts'
import type { Grant } from '../persistence/models/grant.ts'
import type { ToolCall, ToolCallStatus } from '../persistence/models/tool_call.ts'
import type { AnsweredVia, Outcome, Reply } from '../questions/types.ts'
import type { AuditEntry } from './audit_log.ts'
import { approvedArgs, signDecision, type DecisionSigner } from './decision_signature.ts'

/** Who settles, and what the request told of them */
export type SettlingActor = {
  by: string | null
  via: AnsweredVia
  requestId?: string | null
  ip?: string | null
}

/**
 * The row's status once settled with `outcome`.
 */
export function statusFor(outcome: Outcome): ToolCallStatus {
  if (outcome.expired) return 'expired'
  if (outcome.kind === 'answers') return 'answered'
  return outcome.approved ? 'approved' : 'rejected'
}

/**
 * The digest of the row as it is now, once the reply's view is checked
 * against it: E_STALE_VIEW for another view, E_INVALID_REPLY for none when
 * one is required.
 */
export function checkedView(
  row: ToolCall,
  view: string | null | undefined,
  requireView: boolean | undefined
): string {
  const digest = viewDigest(row)
  if (view === undefined || view === null) {
    if (requireView) {
      throw new InvalidReplyException([
        { path: 'digest', message: 'send the digest of the row as you were shown it' },
      ])
    }
  } else if (view !== digest) {
    throw new E_STALE_VIEW([row.id])
  }
  return digest
}

/**
 * The columns a settlement writes; an approval is signed over the args it
 * lets run.
 */
export function settledChanges(
  row: ToolCall,
  rawReply: unknown,
  outcome: Outcome,
  who: SettlingActor,
  now: DateTime,
  signer: DecisionSigner | undefined
): Partial<ToolCall> {
  const changes: Partial<ToolCall> = {
    status: statusFor(outcome),
    reply: rawReply as Reply,
    outcome,
    answeredBy: who.by,
    answeredVia: who.via,
    settledAt: now,
  }
  if (outcome.kind === 'decision' && outcome.approved && signer) {
    changes.decisionSignature = signDecision(signer, row, approvedArgs(row, outcome))
  }
  return changes
}

/**
 * Who acts, as the audit log records them.
 */
export function actorOf(who: SettlingActor) {
  return {
    actor: who.by,
    channel: who.via,
    requestId: who.requestId ?? null,
    ip: who.ip ?? null,
  }
}

/**
 * The audit entries of a settlement: `settled`, and `granted` when the
 * approval was remembered.
 */
export function settlementEntries(
  row: ToolCall,
  changes: Partial<ToolCall>,
  digest: string,
  who: SettlingActor,
  grant: Grant | null
): AuditEntry[] {
  const base = { ...actorOf(who), runId: row.runId, rowId: row.id, digest }
  const entries: AuditEntry[] = [
    {
      ...base,
      type: 'settled',
      data: { status: changes.status, ...(grant ? { grantId: grant.id } : {}) },
    },
  ]
  if (grant) {
    entries.push({
      ...base,
      type: 'granted',
      data: {
        grantId: grant.id,
        scope: grant.scope,
        tool: grant.toolName,
        expiresAt: grant.expiresAt?.toISO() ?? null,
      },
    })
  }
  return entries
}
