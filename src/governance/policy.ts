/*
 * Policies, pure (docs/design.md §11.1): app code that decides a tool call
 * before any row is opened — `allow`, `deny(reason)`, `ask`, or
 * `ask({ approvers, quorum })`. A tool's own `policy` speaks first; when it
 * has no opinion (returns nothing), the app-wide `approvals.policy` hook
 * does; when neither does, the tool's `needsApproval` decides as it always
 * did, and nothing is recorded for the policy. No Lucid, no HTTP here: the
 * runtime calls `decide` and writes what it says through the inbox.
 */

import type { QuorumOptions } from './quorum.ts'
import { policyRefusalText } from '../questions/model_text.ts'

/**
 * What a policy sees of a call: the tool, its validated input, the run and
 * the run's owner (the requester).
 */
export type PolicyCall = {
  tool: { name: string; kind: 'read' | 'action'; irreversible: boolean }
  input: any
  run: { id: string; agent: string; ownerId: string | null }
  /** The run's owner, who asked for the work */
  owner: string | null
  /**
   * An outside agent's call through the inbox's MCP server
   * (`request_approval`, src/mcp_server/): the client its token names. Such
   * a call has no run: `run.agent` is `mcp` and `run.id` names the token.
   */
  client?: { name: string; tokenId: string; userId: string }
}

/**
 * A policy's verdict. `rule` names what decided, for the row and the audit
 * log (`answered_via: 'policy'`).
 */
export type PolicyDecision =
  | { decision: 'allow'; rule?: string }
  | { decision: 'deny'; reason: string; rule?: string }
  | { decision: 'ask'; rule?: string; quorum?: QuorumOptions }

/**
 * What a policy may return: a verdict, its short forms `'allow'` and
 * `'ask'`, or nothing (no opinion: the next policy, or `needsApproval`,
 * decides).
 */
export type PolicyResult = PolicyDecision | 'allow' | 'ask' | null | undefined | void

/**
 * A policy function, on a tool (`defineTool({ policy })`) or app-wide
 * (`approvals.policy` in config/agents.ts).
 */
export type Policy = (call: PolicyCall) => PolicyResult | Promise<PolicyResult>

/**
 * Builders of verdicts, so a policy reads as what it decides.
 *
 * @example
 * policy: ({ input }) => input.amount < 50
 *   ? policy.allow('refunds under $50')
 *   : policy.ask({ approvers: { role: 'finance' }, quorum: 2, excludeRequester: true })
 */
export const policy = {
  allow(rule?: string): PolicyDecision {
    return { decision: 'allow', rule }
  },
  deny(reason: string, rule?: string): PolicyDecision {
    return { decision: 'deny', reason, rule }
  },
  ask(quorum?: QuorumOptions, rule?: string): PolicyDecision {
    return { decision: 'ask', rule, quorum }
  },
}

/**
 * A policy's result as a verdict, or null for no opinion. Anything else is
 * a programming error of the app's, thrown with what was returned.
 */
export function normalizeDecision(result: PolicyResult): PolicyDecision | null {
  if (result === null || result === undefined) return null
  if (result === 'allow' || result === 'ask') return { decision: result }
  if (typeof result === 'object' && 'decision' in result) {
    if (result.decision === 'allow' || result.decision === 'ask') return result
    if (result.decision === 'deny') {
      const reason = typeof result.reason === 'string' && result.reason ? result.reason : 'Denied'
      return { ...result, reason }
    }
  }
  throw new TypeError(
    `A policy returned ${JSON.stringify(result)}: return policy.allow(), policy.deny(reason), policy.ask(...) or nothing`
  )
}

/**
 * The verdict of the tool's policy, else the app's, else null (nobody has
 * an opinion: `needsApproval` decides).
 */
export async function decide(
  call: PolicyCall,
  policies: (Policy | undefined)[]
): Promise<PolicyDecision | null> {
  for (const candidate of policies) {
    if (!candidate) continue
    const verdict = normalizeDecision(await candidate(call))
    if (verdict) return verdict
  }
  return null
}

/**
 * The text the model reads of a denied call.
 */
export function refusalText(toolName: string, reason: string): string {
  return policyRefusalText(toolName, reason)
}

/**
 * `approvals` in config/agents.ts: the app-wide policy, and how a role
 * named in a quorum becomes people.
 *
 * @example
 * approvals: {
 *   policy: ({ tool }) => (tool.kind === 'read' ? policy.allow('reads are safe') : undefined),
 *   // The model imported inside the hook, never at the top of config/agents.ts
 *   resolveRole: async (role) => {
 *     const { default: User } = await import('#models/user')
 *     return (await User.query().where('role', role)).map((u) => String(u.id))
 *   },
 * }
 */
export type ApprovalsConfig = {
  /** Decides every tool call whose tool's own policy had no opinion */
  policy?: Policy
  /** The people of a role, for `ask({ approvers: { role } })` */
  resolveRole?: (role: string) => string[] | Promise<string[]>
}
