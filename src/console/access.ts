/*
 * Who may use the operator's console, and who a row may be reassigned to:
 * hooks the app gives as `console` in config/agents.ts, over defaults.
 * The console is closed unless the app opens it: by default it asks
 * Bouncer (when the app has it, `ctx.bouncer`) for the ability named
 * CONSOLE_ABILITY, and refuses everyone else.
 */

import type { HttpContext } from '@adonisjs/core/http'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { ApprovalsConfig } from '../governance/policy.ts'
import debug from '../debug.ts'
import { resolvePeople } from '../inbox/ladder_steps.ts'

/** The Bouncer ability the default `authorize` asks for */
export const CONSOLE_ABILITY = 'viewAgentConsole'

/** `console` in config/agents.ts */
export type ConsoleConfig = {
  /**
   * Whether the signed-in `person` may use the console (see it, Retry,
   * Cancel, Reassign). Default: `ctx.bouncer.allows('viewAgentConsole')`
   * when the app has Bouncer, else no.
   */
  authorize?: (ctx: HttpContext, person: string) => boolean | Promise<boolean>
  /**
   * Who an overdue row may be reassigned to. Default: the people its
   * escalation ladder's reassign steps name (`@role`s through
   * `approvals.resolveRole`); none when it has no ladder.
   */
  assignees?: (row: ToolCall, ctx: HttpContext) => string[] | Promise<string[]>
  /** A pending row open longer than this (ms) is overdue. Default one day */
  overdueAfter?: number
}

/** The console's hooks and settings once defaults are applied */
export type ConsoleSettings = Required<ConsoleConfig> & {
  /** A run stranded longer than this (ms) is listed: two recovery intervals */
  strandedFor: number
  /** Reassign writes notices (notifications are configured) */
  notify: boolean
}

type Bouncer = { allows(ability: string, ...args: unknown[]): Promise<boolean> }

/** The default `authorize`: Bouncer's CONSOLE_ABILITY, else refused */
export async function bouncerAllows(ctx: HttpContext): Promise<boolean> {
  const bouncer = (ctx as { bouncer?: Partial<Bouncer> }).bouncer
  if (typeof bouncer?.allows !== 'function') return false
  try {
    return (await bouncer.allows(CONSOLE_ABILITY)) === true
  } catch (error) {
    // Bouncer throws for an ability the app never defined: the console stays closed
    debug('console: bouncer.allows(%s) failed %O', CONSOLE_ABILITY, error)
    return false
  }
}

/** The people a row's ladder would reassign it to (`@role`s only where roles resolve) */
async function ladderPeople(row: ToolCall, approvals: ApprovalsConfig): Promise<string[]> {
  const names = (row.ladder ?? [])
    .flatMap((entry) => (entry.do === 'reassign' ? (entry.to ?? []) : []))
    .filter((name) => !name.startsWith('@') || approvals.resolveRole)
  const people = await resolvePeople(names, approvals.resolveRole)
  return people.filter((person) => person !== row.ownerId)
}

/**
 * The console's settings from the config's `console`, `approvals` and
 * intervals.
 */
export function resolveConsole(
  config: ConsoleConfig = {},
  options: { approvals?: ApprovalsConfig; recoverInterval: number; notify: boolean }
): ConsoleSettings {
  return {
    authorize: config.authorize ?? ((ctx) => bouncerAllows(ctx)),
    assignees: config.assignees ?? ((row) => ladderPeople(row, options.approvals ?? {})),
    overdueAfter: config.overdueAfter ?? 86_400_000,
    strandedFor: 2 * options.recoverInterval,
    notify: options.notify,
  }
}
