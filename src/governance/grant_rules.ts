/*
 * Remembered grants, pure (docs/design.md §11.2): what an approval card may
 * offer to remember ("allow `read_logs` for this run", "… for me for 24 h",
 * "… for me with these args"), what a grant row then covers, and when it
 * lapses. The choices are the app's, per tool; a tool marked `irreversible`
 * offers none and is never covered. Storing, finding and revoking grants is
 * src/inbox/grants.ts.
 */

/** A length of time: milliseconds, or `90m`, `24h`, `7d` */
export type Duration = number | `${number}${'s' | 'm' | 'h' | 'd'}`

/**
 * One way an approval card may remember an approval of a tool:
 * - `run`: later calls of the tool in this run;
 * - `person`: the approver's own runs, calling the tool, for `ttl`;
 * - `args`: the approver's own runs, calling the tool with the same values
 *   of `keys` as the call approved, for `ttl`.
 */
export type GrantChoice =
  | { scope: 'run'; ttl?: Duration; label?: string }
  | { scope: 'person'; ttl?: Duration; label?: string }
  | { scope: 'args'; keys: string[]; ttl?: Duration; label?: string }

/** A choice as a card shows it */
export type GrantOption = { scope: GrantChoice['scope']; label: string }

/** What a stored grant is matched on */
export type GrantRecord = {
  scope: GrantChoice['scope']
  personId: string
  runId: string | null
  predicate: Record<string, unknown> | null
}

const UNITS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/**
 * A duration in milliseconds; throws on anything else.
 *
 * @example
 * durationMs('24h') // 86_400_000
 */
export function durationMs(duration: Duration): number {
  if (typeof duration === 'number' && Number.isFinite(duration) && duration > 0) return duration
  const match = typeof duration === 'string' ? /^(\d+)([smhd])$/.exec(duration) : null
  if (!match || Number(match[1]) === 0) {
    throw new RangeError(`Invalid duration ${JSON.stringify(duration)}: use ms, or 90m, 24h, 7d`)
  }
  return Number(match[1]) * UNITS[match[2] as keyof typeof UNITS]
}

/**
 * Checks a tool's grant choices when it is defined: each scope once, args
 * keys named, durations that parse, and none on an irreversible tool.
 */
export function checkGrantChoices(
  toolName: string,
  choices: GrantChoice[],
  irreversible: boolean
): void {
  if (choices.length === 0) return
  if (irreversible) {
    throw new Error(
      `Tool "${toolName}" is irreversible and cannot offer grants: remove "grants" or "irreversible"`
    )
  }
  const scopes = new Set<string>()
  for (const choice of choices) {
    if (!['run', 'person', 'args'].includes(choice.scope) || scopes.has(choice.scope)) {
      throw new Error(`Tool "${toolName}": each grant scope (run, person, args) at most once`)
    }
    scopes.add(choice.scope)
    if (choice.scope === 'args' && (!Array.isArray(choice.keys) || choice.keys.length === 0)) {
      throw new Error(`Tool "${toolName}": an "args" grant names the keys it pins`)
    }
    if (choice.ttl !== undefined) durationMs(choice.ttl)
  }
}

/**
 * What a card offers for a tool's choices.
 */
export function grantOptions(toolName: string, choices: GrantChoice[]): GrantOption[] {
  return choices.map((choice) => ({
    scope: choice.scope,
    label: choice.label ?? defaultLabel(toolName, choice),
  }))
}

function defaultLabel(toolName: string, choice: GrantChoice): string {
  const ttl = choice.ttl === undefined ? '' : ` for ${humanDuration(durationMs(choice.ttl))}`
  if (choice.scope === 'run') return `Approve and allow ${toolName} for this run`
  if (choice.scope === 'person') return `Approve and allow ${toolName} for me${ttl}`
  return `Approve and allow ${toolName} with this ${choice.keys.join(', ')} for me${ttl}`
}

function humanDuration(ms: number): string {
  // "24 h" reads better than "1 day"; whole days from two on
  if (ms % UNITS.d === 0 && ms >= 2 * UNITS.d) return `${ms / UNITS.d} days`
  if (ms % UNITS.h === 0) return `${ms / UNITS.h} h`
  if (ms % UNITS.m === 0) return `${ms / UNITS.m} min`
  return `${Math.round(ms / 1000)} s`
}

/**
 * The predicate an `args` grant stores: the approved call's values of its
 * keys (a key the call lacks is pinned to null).
 */
export function predicateOf(choice: GrantChoice, args: unknown): Record<string, unknown> | null {
  if (choice.scope !== 'args') return null
  const values = (args ?? {}) as Record<string, unknown>
  return Object.fromEntries(choice.keys.map((key) => [key, values[key] ?? null]))
}

/**
 * Whether a live grant covers a call of its tool in a run owned by
 * `ownerId` with `args`. `sameValue` compares values (canonical JSON).
 */
export function covers(
  grant: GrantRecord,
  call: { runId: string | null; ownerId: string | null; args: unknown },
  sameValue: (a: unknown, b: unknown) => boolean
): boolean {
  // A call outside any run (an outside agent's, src/mcp_server/) is in no run's grant
  if (grant.scope === 'run') return call.runId !== null && grant.runId === call.runId
  if (grant.personId !== call.ownerId) return false
  if (grant.scope === 'person') return true
  const values = (call.args ?? {}) as Record<string, unknown>
  return Object.entries(grant.predicate ?? {}).every(([key, value]) =>
    sameValue(values[key] ?? null, value)
  )
}
