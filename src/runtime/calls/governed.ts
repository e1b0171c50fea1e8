/*
 * Governing a new call of an app tool before any row is opened
 * (docs/design.md §11.1–§11.3): the tool's policy, else the app's, decides
 * `allow` (recorded already settled, `answered_via: 'policy'`, and run once
 * like any call: the claim on its row keeps it at most once), `deny` (a
 * refusal the model reads, nothing run) or `ask`, where a quorum opens a
 * row with its approvers and a plain ask first looks for a remembered
 * grant (`answered_via: 'grant'`), else opens the approval. A tool with no
 * policy anywhere takes the old path: `needsApproval`, and no statement
 * more than before unless it needs an approval.
 */

import type { DecidedCall } from '../../inbox/row_records.ts'
import type { RecordedCall } from '../../inbox/inbox.ts'
import { findGrant } from '../../inbox/grants.ts'
import {
  decide,
  refusalText,
  type ApprovalsConfig,
  type PolicyCall,
  type PolicyDecision,
} from '../../governance/policy.ts'
import { resolveQuorum, type QuorumOptions, type QuorumSpec } from '../../governance/quorum.ts'
import type { Grant } from '../../persistence/models/grant.ts'
import type { DecisionOutcome } from '../../questions/types.ts'
import type { ToolDefinition } from '../define_tool.ts'
import { WAIT, errorOutput, type CallContext, type CallResult } from './context.ts'
import { executeOnce } from './execute_once.ts'
import { expiry, openWait, recordCall } from './waits.ts'

/**
 * What a policy sees of a call.
 */
export function policyCall(context: CallContext, definition: ToolDefinition, input: unknown) {
  return policyCallOf(context.run, definition, input)
}

/**
 * What a policy sees of a call of `run`'s: also for a row that waits, when
 * the inbox consults the policies in force again (../changed_rows.ts).
 */
export function policyCallOf(
  run: { id: string; agent: string; ownerId: string | null },
  definition: ToolDefinition,
  input: unknown
) {
  return {
    tool: { name: definition.name, kind: definition.kind, irreversible: definition.irreversible },
    input,
    run: { id: run.id, agent: run.agent, ownerId: run.ownerId },
    owner: run.ownerId,
  } satisfies PolicyCall
}

/**
 * The verdict of the tool's policy or the app's, or null when there is
 * none (or neither had an opinion).
 */
export function verdictOf(
  approvals: ApprovalsConfig | undefined,
  definition: ToolDefinition,
  call: PolicyCall
): Promise<PolicyDecision | null> | null {
  if (!definition.policy && !approvals?.policy) return null
  return decide(call, [definition.policy, approvals?.policy])
}

/**
 * Handles a new, validated call: decides it and records, runs or opens
 * what the decision says.
 */
export async function governedCall(
  context: CallContext,
  definition: ToolDefinition,
  recorded: RecordedCall,
  value: unknown
): Promise<CallResult> {
  const verdict = await verdictOf(
    context.approvals,
    definition,
    policyCall(context, definition, value)
  )
  if (!verdict) {
    if (await definition.needsApproval(value)) return ask(context, definition, recorded, null)
    const created = await recordCall(context, recorded)
    return executeOnce(context, definition, created, value, null)
  }
  const byPolicy = policyDecided(verdict, definition.name)
  if (byPolicy?.status === 'auto') {
    const created = await recordCall(context, recorded, byPolicy)
    return executeOnce(context, definition, created, value, null)
  }
  if (byPolicy) {
    await recordCall(context, recorded, byPolicy)
    return { type: 'text', value: byPolicy.outcome.text }
  }
  return ask(context, definition, recorded, verdict)
}

/**
 * An approval is needed: a quorum's row with its approvers, or a grant
 * that covers the call, or a plain approval row offering the tool's grants.
 */
async function ask(
  context: CallContext,
  definition: ToolDefinition,
  recorded: RecordedCall,
  verdict: PolicyDecision | null
): Promise<CallResult> {
  const decidedBy = verdict ? { decision: 'ask', rule: verdict.rule ?? null } : undefined
  const quorumOptions = verdict?.decision === 'ask' ? verdict.quorum : undefined
  if (quorumOptions) {
    const quorum = await quorumOf(quorumOptions, context.run.ownerId, context.approvals)
    if (typeof quorum === 'string') {
      return errorOutput(
        `The "${definition.name}" call needs an approval nobody can give: ${quorum}. Nothing was run.`
      )
    }
    await openWait(context, recorded, {
      ...expiry(context.agent, definition),
      quorum,
      decidedBy: { ...decidedBy, quorum },
    })
    return WAIT
  }
  if (definition.grants.length > 0) {
    const grant = await findGrant({
      toolName: definition.name,
      runId: context.run.id,
      ownerId: context.run.ownerId,
      args: recorded.args,
    })
    if (grant) {
      const created = await recordCall(context, recorded, grantDecided(grant))
      return executeOnce(context, definition, created, recorded.args, null)
    }
  }
  await openWait(
    context,
    { ...recorded, grants: definition.grants },
    { ...expiry(context.agent, definition), decidedBy }
  )
  return WAIT
}

/**
 * A policy's allow or deny as the call's settled record (null for ask):
 * `extra` joins the audit entry's data (an outside agent's client,
 * src/mcp_server/).
 */
export function policyDecided(
  verdict: PolicyDecision,
  toolName: string,
  extra: Record<string, unknown> = {}
): DecidedCall | null {
  const rule = verdict.rule ?? null
  if (verdict.decision === 'allow') {
    const text = `Allowed by policy${rule ? ` (${rule})` : ''}.`
    return decided('auto', 'policy', text, { decision: 'allow', rule, ...extra })
  }
  if (verdict.decision === 'deny') {
    const data = { decision: 'deny', rule, reason: verdict.reason, ...extra }
    return decided(
      'rejected',
      'policy',
      refusalText(toolName, verdict.reason),
      data,
      verdict.reason
    )
  }
  return null
}

/**
 * A remembered grant's allow as the call's settled record.
 */
export function grantDecided(grant: Grant, extra: Record<string, unknown> = {}): DecidedCall {
  const text = `Allowed by a remembered approval (${grant.scope} grant).`
  const data = {
    decision: 'allow',
    grantId: grant.id,
    scope: grant.scope,
    grantedBy: grant.personId,
    ...extra,
  }
  return decided('auto', 'grant', text, data)
}

/**
 * A policy's quorum resolved to its approvers, or why nobody can give it
 * (a role the app cannot resolve, too few people).
 */
export async function quorumOf(
  options: QuorumOptions,
  requester: string | null,
  approvals: ApprovalsConfig | undefined
): Promise<QuorumSpec | string> {
  try {
    return await resolveQuorum(options, requester, (role) => {
      const resolve = approvals?.resolveRole
      if (!resolve) {
        throw new RangeError(
          `No "approvals.resolveRole" in config/agents.ts to resolve the role "${role}"`
        )
      }
      return resolve(role)
    })
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    return error.message
  }
}

/**
 * A call recorded as decided without a person.
 */
function decided(
  status: DecidedCall['status'],
  via: DecidedCall['answeredVia'],
  text: string,
  data: Record<string, unknown>,
  reason?: string
): DecidedCall {
  const outcome: DecisionOutcome = {
    kind: 'decision',
    approved: status === 'auto',
    ...(reason ? { reason } : {}),
    ...(via === 'policy' ? { rule: (data.rule as string | null) ?? null } : {}),
    ...(typeof data.grantId === 'string' ? { grantId: data.grantId } : {}),
    expired: false,
    answeredBy: null,
    answeredVia: via,
    text,
  }
  return { status, answeredVia: via, outcome, data }
}
