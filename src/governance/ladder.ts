/*
 * Escalation ladders, pure (docs/design.md §7.7): the timed steps a pending
 * row takes before its expiry — remind the people who may settle it, hand
 * it to others — resolved to times when the row is opened and stored on
 * it, so a changed config never rewrites a waiting row's ladder. The last
 * step is the row's own expiry (`expires_at`, `on_expiry`), run by the
 * expiry sweep as before. What the card says of it ("reminded 2 h ago;
 * escalates to @oncall in 2 h") is written here too.
 */

import { DateTime } from 'luxon'
import { durationMs, type Duration } from './grant_rules.ts'
import type { ExpiryRule } from '../questions/settle.ts'
import { tally, type QuorumSpec, type Vote } from './quorum.ts'

/**
 * A step of an agent's (or a wait's) ladder, `after` the row was opened:
 * remind who may settle it, or reassign it to people (`'@role'` names a
 * role, resolved by `approvals.resolveRole` when the step runs).
 *
 * @example
 * expiry: {
 *   ladder: [{ after: '1h', remind: true }, { after: '4h', reassign: '@oncall' }],
 *   ttl: '24h',
 *   onExpiry: 'reject',
 * }
 */
export type LadderStep =
  { after: Duration; remind: true } | { after: Duration; reassign: string | string[] }

/** A step as stored on the row: when it is due and, once run, when it ran and what it did */
export type LadderEntry = {
  at: string
  do: 'remind' | 'reassign'
  /** reassign: the people and roles named */
  to?: string[]
  doneAt?: string
  /** reassign, once run: who held the row before and who holds it now */
  from?: string[]
  assigned?: string[]
}

export type LadderState = LadderEntry[]

/**
 * Checks a ladder when it is defined: durations that parse, in order,
 * before the expiry, each step reminding or naming someone. Throws a
 * RangeError naming the step.
 */
export function checkLadder(steps: LadderStep[], ttl?: Duration): void {
  let last = 0
  for (const [index, step] of steps.entries()) {
    const after = durationMs(step.after)
    const to = 'reassign' in step ? [step.reassign].flat() : null
    if (!('remind' in step && step.remind === true) && (!to || to.length === 0)) {
      throw new RangeError(`ladder[${index}]: remind: true, or reassign to someone`)
    }
    if (after <= last) throw new RangeError(`ladder[${index}].after: steps must come in order`)
    if (ttl !== undefined && after >= durationMs(ttl)) {
      throw new RangeError(`ladder[${index}].after: must come before the expiry (ttl)`)
    }
    last = after
  }
}

/**
 * A ladder as defined on an agent or a tool, checked (`checkLadder`):
 * none when empty; a bad step throws, its message led by `owner` (`Agent
 * "triage": expiry.`).
 */
export function checkedLadder(
  owner: string,
  steps: LadderStep[] | undefined,
  ttl?: Duration
): { ladder?: LadderStep[] } {
  if (!steps?.length) return {}
  try {
    checkLadder(steps, ttl)
  } catch (error) {
    throw new Error(`${owner}${(error as Error).message}`)
  }
  return { ladder: steps }
}

/**
 * The ladder of a row opened at `openedAt`: its entries and when the first
 * is due; none for an empty ladder.
 */
export function resolveLadder(steps: LadderStep[] | undefined, openedAt: DateTime) {
  if (!steps || steps.length === 0) return { ladder: null, ladderDueAt: null }
  const ladder: LadderState = steps.map((step) => ({
    at: openedAt.plus({ milliseconds: durationMs(step.after) }).toISO()!,
    ...('reassign' in step
      ? { do: 'reassign' as const, to: [step.reassign].flat() }
      : { do: 'remind' as const }),
  }))
  return { ladder, ladderDueAt: DateTime.fromISO(ladder[0].at) }
}

/**
 * When the step after `done` steps is due, or null when none is left.
 */
export function nextDue(ladder: LadderState | null, done: number): DateTime | null {
  const next = ladder?.[done]
  return next ? DateTime.fromISO(next.at) : null
}

/**
 * The row's ladder once step `index` ran at `now` (reassign: from whom, to
 * whom), to write with the step.
 */
export function ranStep(
  ladder: LadderState,
  index: number,
  now: DateTime,
  change?: { from: string[]; assigned: string[] }
): LadderState {
  return ladder.map((entry, at) =>
    at === index ? { ...entry, doneAt: now.toISO()!, ...(change ?? {}) } : entry
  )
}

/** A row as its ladder is read */
export type LadderedRow = {
  ladder: LadderState | null
  ladderStep: number
  expiresAt: DateTime | null
  onExpiry: ExpiryRule
}

/**
 * What a card says of a pending row's ladder: its last step and its next
 * one (or its expiry), relative to `now`; null for a row with neither.
 *
 * @example
 * ladderNote(row, now) // 'reminded 2 h ago; escalates to @oncall in 2 h'
 */
export function ladderNote(row: LadderedRow, now: DateTime): string | null {
  const parts: string[] = []
  const done = row.ladder?.[row.ladderStep - 1]
  if (done?.doneAt) {
    const ago = span(now.diff(DateTime.fromISO(done.doneAt)).toMillis())
    parts.push(
      done.do === 'remind' ? `reminded ${ago} ago` : `escalated to ${names(done)} ${ago} ago`
    )
  }
  const next = row.ladder?.[row.ladderStep]
  if (next) {
    const within = span(DateTime.fromISO(next.at).diff(now).toMillis())
    parts.push(
      next.do === 'remind' ? `reminder in ${within}` : `escalates to ${names(next)} in ${within}`
    )
  } else if (row.expiresAt) {
    const rule = {
      defaults: 'takes its defaults',
      reject: 'is rejected',
      cancel: 'cancels the run',
    }
    parts.push(`${rule[row.onExpiry]} in ${span(row.expiresAt.diff(now).toMillis())}`)
  }
  return parts.length > 0 ? parts.join('; ') : null
}

function names(entry: LadderEntry): string {
  return (entry.to ?? []).map((name) => (name.startsWith('@') ? name : `@${name}`)).join(', ')
}

/** "2 h", "35 min", "3 d": a span as a card reads it, never below a minute */
export function span(ms: number): string {
  const minutes = Math.max(1, Math.round(Math.max(0, ms) / 60_000))
  if (minutes < 90) return `${minutes} min`
  const hours = Math.round(minutes / 60)
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} d`
}

/**
 * Who a reassign step hands a row to, as a change of the row (docs/design.md
 * §7.7). An approval gets the people as approvers: one of them settles a
 * row that had no quorum (`quorum: 1`, the old owner no longer may), and a
 * quorum's open stage gains them beside its approvers (votes cast stay).
 * A question set has one answerer: its owner becomes the first of them.
 * Returns the new request or owner, who held it before, and who now does.
 */
export function reassignment(
  row: { kind: string; ownerId: string | null; request: any },
  spec: QuorumSpec | null,
  votes: Vote[],
  people: string[]
) {
  if (row.kind === 'ask' || row.kind === 'intake') {
    const owner = people[0] ?? row.ownerId
    return {
      ownerId: owner,
      request: row.request,
      from: row.ownerId ? [row.ownerId] : [],
      assigned: owner && owner !== row.ownerId ? [owner] : [],
      stage: undefined,
    }
  }
  if (!spec) {
    const approval: QuorumSpec = {
      stages: [{ approvers: people, quorum: 1 }],
      excludeRequester: false,
      requester: row.ownerId,
    }
    const from = row.ownerId ? [row.ownerId] : []
    const request = { ...row.request, approval }
    return { ownerId: row.ownerId, request, from, assigned: people, stage: undefined }
  }
  const counted = tally(spec, votes)
  const stage = counted.state === 'open' ? counted.stage : spec.stages.length - 1
  const everyone = new Set(spec.stages.flatMap((item) => item.approvers))
  const assigned = people.filter((person) => !everyone.has(person))
  const from = undecided(spec, stage, votes)
  const stages = spec.stages.map((item, index) =>
    index === stage ? { ...item, approvers: [...item.approvers, ...assigned] } : item
  )
  const approval: QuorumSpec = { ...spec, stages }
  return { ownerId: row.ownerId, request: { ...row.request, approval }, from, assigned, stage }
}

/**
 * Who may settle a pending row now, as a reminder reaches them: the
 * approvers of a quorum's open stage who have not voted, else its owner.
 */
export function settlers(ownerId: string | null, spec: QuorumSpec | null, votes: Vote[]): string[] {
  if (!spec) return ownerId ? [ownerId] : []
  const counted = tally(spec, votes)
  return counted.state === 'open' ? undecided(spec, counted.stage, votes) : []
}

/** The approvers of a stage who have not voted */
function undecided(spec: QuorumSpec, stage: number, votes: Vote[]): string[] {
  const voted = new Set(votes.filter((vote) => vote.vote !== null).map((vote) => vote.personId))
  return spec.stages[stage].approvers.filter((person) => !voted.has(person))
}
