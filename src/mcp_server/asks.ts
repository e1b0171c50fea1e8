/*
 * An outside agent's call as a row of the inbox (docs/design.md §7.8): a
 * run-less wait (`inbox.open({ id: null, ownerId }, …)`) owned by whom the
 * app names, with the configured expiry and ladder, its `tool_call_id`
 * naming who asked (config.ts `askerTag`) and its `created` entry the
 * client. `request_approval` is governed as a tool of an agent is
 * (runtime/calls/governed.ts): the app's policy decides first — allow and
 * deny write the row already settled, ask may bring a quorum — and a plain
 * approval is first looked up among the owner's remembered grants.
 */

import { DateTime } from 'luxon'
import type { Inbox } from '../inbox/inbox.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { findGrant } from '../inbox/grants.ts'
import { decide, type ApprovalsConfig } from '../governance/policy.ts'
import { grantDecided, policyDecided, quorumOf } from '../runtime/calls/governed.ts'
import type { QuestionSet } from '../questions/types.ts'
import { askerTag, type McpClient, type ResolvedMcpConfig } from './config.ts'
import { ASK_HUMAN, type ApprovalRequest } from './tools.ts'

export type AskContext = {
  inbox: Inbox
  config: ResolvedMcpConfig
  approvals: ApprovalsConfig
  client: McpClient
}

/** A row opened, or the text of why none could be */
export type Opened = { row: ToolCall } | { error: string }

function opening(context: AskContext, onExpiry: 'ask' | 'approval') {
  const { config, client } = context
  return {
    expiresAt: DateTime.now().plus({ milliseconds: config.expiresIn }),
    onExpiry: config.onExpiry[onExpiry],
    ladder: config.ladder,
    openedBy: {
      actor: `mcp:${client.name}`,
      channel: 'mcp',
      data: { client: client.name, tokenId: client.tokenId, user: client.userId },
    },
  }
}

async function ownerOf(
  context: AskContext,
  tool: 'ask_human' | 'request_approval',
  to: string | null
) {
  return context.config.owner({ client: context.client, tool, to })
}

/**
 * Opens the row of an `ask_human` call.
 */
export async function openAsk(
  context: AskContext,
  set: QuestionSet,
  to: string | null
): Promise<Opened> {
  const owner = await ownerOf(context, ASK_HUMAN, to)
  if (owner === null) return { error: nobody(to) }
  const row = await context.inbox.open(
    { id: null, ownerId: owner },
    { kind: 'ask', set, toolName: ASK_HUMAN, toolCallId: askerTag(context.client) },
    opening(context, 'ask')
  )
  return { row }
}

/**
 * Opens, or settles at once by policy or grant, the row of a
 * `request_approval` call.
 */
export async function openApproval(context: AskContext, action: ApprovalRequest): Promise<Opened> {
  const { inbox, client, approvals } = context
  const owner = await ownerOf(context, 'request_approval', action.to)
  if (owner === null) return { error: nobody(action.to) }
  const holder = { id: null, ownerId: owner }
  // The client's name travels with the args: the card shows it, a grant may pin it
  const args = { client: client.name, ...action.arguments }
  const call = {
    kind: 'action' as const,
    toolName: action.title,
    toolCallId: askerTag(client),
    args,
    summary: action.summary,
  }
  const clientData = { client: client.name, tokenId: client.tokenId, user: client.userId }
  const verdict = approvals.policy
    ? await decide(
        {
          tool: { name: action.title, kind: 'action', irreversible: action.irreversible },
          input: args,
          run: { id: `mcp:${client.tokenId}`, agent: 'mcp', ownerId: client.userId },
          owner: client.userId,
          client,
        },
        [approvals.policy]
      )
    : null
  const byPolicy = verdict ? policyDecided(verdict, action.title, clientData) : null
  if (byPolicy) return { row: await inbox.record(holder, call, { decided: byPolicy }) }
  const decidedBy = verdict ? { decision: 'ask', rule: verdict.rule ?? null } : undefined
  const quorumOptions = verdict?.decision === 'ask' ? verdict.quorum : undefined
  if (quorumOptions) {
    const quorum = await quorumOf(quorumOptions, client.userId, approvals)
    if (typeof quorum === 'string') {
      return {
        error: `This action needs an approval nobody can give: ${quorum}. Nothing was asked.`,
      }
    }
    const row = await inbox.open(holder, call, {
      ...opening(context, 'approval'),
      quorum,
      decidedBy: { ...decidedBy, quorum },
    })
    return { row }
  }
  if (!action.irreversible && context.config.grants.length > 0) {
    const grant = await findGrant({ toolName: action.title, runId: null, ownerId: owner, args })
    if (grant) {
      return {
        row: await inbox.record(holder, call, { decided: grantDecided(grant, clientData) }),
      }
    }
  }
  const grants = action.irreversible ? [] : context.config.grants
  const row = await inbox.open(
    holder,
    { ...call, grants },
    { ...opening(context, 'approval'), decidedBy }
  )
  return { row }
}

function nobody(to: string | null) {
  return `Nobody can answer${to ? ` as "${to}"` : ''} here: ask without "to", or name someone the app knows. Nothing was asked.`
}
