/*
 * Quorum and separation of duties, pure (docs/design.md §11.3). An approval
 * may need `quorum` of a set of approvers (people, or roles the app's
 * `approvals.resolveRole` hook turns into people), optionally in stages
 * voted one after another; the run's owner can be excluded
 * (`excludeRequester`); any approver's rejection is a veto. The set is
 * resolved once, when the row is opened, and stored with it, so a vote is
 * judged against what the row was opened with. Counting the votes (`tally`)
 * is here; casting one (a locked transaction) is src/inbox/votes.ts.
 */

/** People by id, or a role the app resolves to people */
export type ApproverRef = string | { role: string }

/**
 * How a policy asks for a quorum: `quorum` of `approvers` (default: all of
 * them), or `stages`, each with its own approvers and quorum, voted in order.
 */
export type QuorumOptions = {
  approvers?: ApproverRef | ApproverRef[]
  quorum?: number
  stages?: { approvers: ApproverRef | ApproverRef[]; quorum?: number }[]
  /** The run's owner may not vote, even when in the set */
  excludeRequester?: boolean
}

/**
 * The quorum a row was opened with: people resolved, the requester taken
 * out when excluded. Stored in the row's request as `approval`.
 */
export type QuorumSpec = {
  stages: { approvers: string[]; quorum: number }[]
  excludeRequester: boolean
  requester: string | null
}

/** One approver's vote as stored */
export type Vote = { personId: string; stage: number; vote: 'approve' | 'reject' | null }

/**
 * Where the votes stand: still open (at a stage, with its count), or
 * decided.
 */
export type Tally =
  | { state: 'open'; stage: number; approvals: number; needed: number }
  | { state: 'approved' }
  | { state: 'rejected'; by: string }

/**
 * Resolves a policy's quorum into the spec a row stores: roles through
 * `resolveRole`, each person once per row (in the first stage naming them),
 * the requester out when excluded. Throws when a stage cannot reach its
 * quorum with the people left, since such a row could never be approved.
 *
 * @example
 * await resolveQuorum({ approvers: { role: 'finance' }, quorum: 2, excludeRequester: true }, 'ada', roles)
 */
export async function resolveQuorum(
  options: QuorumOptions,
  requester: string | null,
  resolveRole: (role: string) => string[] | Promise<string[]>
): Promise<QuorumSpec> {
  const excludeRequester = options.excludeRequester === true
  const asked = options.stages ?? [{ approvers: options.approvers ?? [], quorum: options.quorum }]
  const seen = new Set<string>()
  const stages: QuorumSpec['stages'] = []
  for (const [index, stage] of asked.entries()) {
    const refs = Array.isArray(stage.approvers) ? stage.approvers : [stage.approvers]
    const people: string[] = []
    for (const ref of refs) {
      const ids = typeof ref === 'string' ? [ref] : await resolveRole(ref.role)
      for (const id of ids) {
        if (seen.has(id) || (excludeRequester && id === requester)) continue
        seen.add(id)
        people.push(id)
      }
    }
    const quorum = stage.quorum ?? people.length
    if (!Number.isInteger(quorum) || quorum < 1 || quorum > people.length) {
      throw new RangeError(
        `Stage ${index + 1} of the approval needs ${quorum} of ${people.length} eligible approvers${
          excludeRequester ? ' (the requester excluded)' : ''
        }: it could never be approved. Name more approvers or lower the quorum`
      )
    }
    stages.push({ approvers: people, quorum })
  }
  if (stages.length === 0) throw new RangeError('An approval quorum needs at least one stage')
  return { stages, excludeRequester, requester }
}

/**
 * Counts the votes: any rejection in a stage that is open or done vetoes;
 * a stage is done when `quorum` of its approvers approved; the row is
 * approved when the last stage is done.
 */
export function tally(spec: QuorumSpec, votes: Vote[]): Tally {
  for (const [stage, { quorum }] of spec.stages.entries()) {
    const cast = votes.filter((vote) => vote.stage === stage)
    const veto = cast.find((vote) => vote.vote === 'reject')
    if (veto) return { state: 'rejected', by: veto.personId }
    const approvals = cast.filter((vote) => vote.vote === 'approve').length
    if (approvals < quorum) return { state: 'open', stage, approvals, needed: quorum }
  }
  return { state: 'approved' }
}

/**
 * Why `person` may not vote on the row now, or null when they may: the
 * requester when excluded, someone not in the set, or an approver of a
 * stage that has not opened.
 */
export function voteRefusal(
  spec: QuorumSpec,
  votes: Vote[],
  person: string
): 'requester-excluded' | 'not-an-approver' | 'stage-not-open' | null {
  if (spec.excludeRequester && person === spec.requester) return 'requester-excluded'
  const stage = spec.stages.findIndex((item) => item.approvers.includes(person))
  if (stage < 0) return 'not-an-approver'
  const now = tally(spec, votes)
  if (now.state === 'open' && now.stage < stage) return 'stage-not-open'
  return null
}
