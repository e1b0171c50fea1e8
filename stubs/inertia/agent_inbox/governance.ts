/*
 * What the inbox page says of governed approvals, without a framework, so
 * the React and the Vue cards say the same (docs/design.md §11): where a
 * quorum stands ("1 of 2 approvals", who voted what) and whether the
 * signed-in person may vote, the buttons that approve and remember a grant,
 * and the remembered grants with their revocation. The app receives this
 * file in inertia/agent_inbox/.
 */

import type { People, RowCard } from 'adonis-agent-inbox/types'
import type { Reply } from './form_state'
import { nameOf, t } from './words'

/** A remembered grant as the inbox page lists it */
export type GrantItem = {
  id: string
  scope: 'run' | 'person' | 'args'
  toolName: string
  runId: string | null
  predicate: Record<string, unknown> | null
  createdAt: string | null
  expiresAt: string | null
}

/** Where a card's quorum stands, for the person looking at it */
export type QuorumView = {
  /** "1 of 2 approvals" (with the stage when there are several) */
  count: string
  /** "Grace Hopper approved", one per vote */
  votes: string[]
  /** Whether the signed-in person may still vote */
  canVote: boolean
  /** Why not, when they may not */
  note: string | null
}

/**
 * The quorum of a card as words, or null for a card one person settles.
 *
 * @example
 * quorumView(card, 'ada', people)?.count // '1 of 2 approvals'
 */
export function quorumView(card: RowCard, person: string, people?: People): QuorumView | null {
  const quorum = card.quorum
  if (!quorum) return null
  const stages = quorum.stages.length
  const approvals = t(quorum.approvals === 1 ? 'page.card.quorum_one' : 'page.card.quorum_many', {
    count: quorum.approvals,
    needed: quorum.needed,
  })
  const stageWords =
    stages > 1 ? t('page.card.quorum_stage', { stage: quorum.stage + 1, stages }) : ''
  const count = `${approvals}${stageWords}`
  const votes = quorum.votes.map((vote) =>
    t(vote.vote === 'approve' ? 'page.card.voted_approve' : 'page.card.voted_reject', {
      name: nameOf(people, vote.personId),
    })
  )
  const mine = quorum.votes.find((vote) => vote.personId === person)
  const myStage = quorum.stages.findIndex((stage) => stage.approvers.includes(person))
  let note: string | null = null
  if (quorum.excludeRequester && quorum.requester === person) {
    note = t('page.card.vote_requester')
  } else if (mine) note = t('page.card.vote_cast')
  else if (myStage < 0) note = t('page.card.vote_not_approver')
  else if (myStage > quorum.stage) note = t('page.card.vote_later_stage')
  return { count, votes, canVote: note === null, note }
}

/**
 * The reply that approves and remembers the approval with a grant scope.
 */
export function grantReply(scope: string): Reply {
  return { approved: true, grant: scope } as Reply
}

/**
 * A grant in a line: what it allows, and until when.
 */
export function grantWords(grant: GrantItem, formatTime: (iso: string) => string): string {
  const tool = grant.toolName
  const what =
    grant.scope === 'run'
      ? t('page.card.grant_run', { tool, run: grant.runId?.slice(0, 8) ?? '' })
      : grant.scope === 'person'
        ? t('page.card.grant_person', { tool })
        : t('page.card.grant_args', {
            tool,
            args: Object.entries(grant.predicate ?? {})
              .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
              .join(', '),
          })
  return grant.expiresAt
    ? t('page.card.grant_until', { grant: what, time: formatTime(grant.expiresAt) })
    : what
}

/**
 * Where a grant is revoked.
 */
export function revokeUrl(inbox: string, id: string): string {
  return `${inbox.replace(/\/+$/, '')}/grants/${encodeURIComponent(id)}/revoke`
}

/** One audit entry of a timeline call, as the server sends it */
type AuditLine = {
  type: string
  actor: string | null
  channel: string | null
  at: string | null
  data: Record<string, unknown> | null
}

/**
 * A call's audit entries as a block of text, one line each (who, through
 * what, when, and what was decided), or null when it has none.
 *
 * @example
 * auditText(entry.audit, people, formatTime) // '09:12  voted — Grace Hopper, web: approve'
 */
export function auditText(
  audit: AuditLine[] | undefined,
  people: People,
  formatTime: (iso: string) => string
): string | null {
  if (!audit || audit.length === 0) return null
  return audit
    .map((line) => {
      // "voted — Grace Hopper, web": not the "By … via …" line the call's settlement has
      const parties = [line.actor ? nameOf(people, line.actor) : null, line.channel].filter(Boolean)
      const who = parties.length > 0 ? ` — ${parties.join(', ')}` : ''
      const data = line.data ?? {}
      const what =
        typeof data.vote === 'string'
          ? `: ${data.vote}`
          : typeof data.decision === 'string'
            ? `: ${data.decision}${typeof data.rule === 'string' ? ` (${data.rule})` : ''}`
            : ''
      return `${line.at ? `${formatTime(line.at)}  ` : ''}${line.type}${who}${what}`
    })
    .join('\n')
}
