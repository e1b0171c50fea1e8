/*
 * Who is asking, what they may see and settle, and how people are named.
 * All are config hooks so an app can plug in its own auth, Bouncer
 * abilities and user names; the defaults read `ctx.auth.user.id`, let a
 * run's owner see and settle its rows, and show people by their auth
 * user's name (people_names.ts).
 *
 * A run is seen as its rows are: unless the app writes run hooks of its
 * own, `authorizeRun` asks `authorize` about the run's first row and
 * `scopeRuns` keeps the runs with a row `scope` lets through, so one pair
 * of hooks decides for rows and runs alike.
 */

import type { HttpContext } from '@adonisjs/core/http'
import type { ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import { ToolCall } from '../persistence/models/tool_call.ts'
import type { AgentRun } from '../persistence/models/agent_run.ts'
import debug from '../debug.ts'
import { defaultNames } from './people_names.ts'

export type InboxAccess = {
  /**
   * The signed-in person's id as stored in `owner_id`/`answered_by`, or
   * null for a guest. Default: `String(ctx.auth.user.id)` when auth is set up.
   */
  identify(ctx: HttpContext): string | null | Promise<string | null>
  /**
   * Whether the person may see and settle a row. Default: they own its run.
   *
   * @example
   * // let admins settle anything, through Bouncer
   * authorize: (ctx, row, person) => row.ownerId === person || ctx.bouncer.allows('settleAnyRow')
   */
  authorize(ctx: HttpContext, row: ToolCall, person: string): boolean | Promise<boolean>
  /**
   * Narrows the inbox listing to the rows the person may settle. Keep it in
   * line with `authorize`. Default: rows they own.
   */
  scope(
    query: ModelQueryBuilderContract<typeof ToolCall>,
    ctx: HttpContext,
    person: string
  ): void | Promise<void>
  /**
   * Whether the person may see a run's page. Default: as `authorize` says
   * of the run's first row (a run with no row yet: its owner only); with
   * the default `authorize`, they own the run.
   */
  authorizeRun(ctx: HttpContext, run: AgentRun, person: string): boolean | Promise<boolean>
  /**
   * Narrows the runs listed in the history. Keep it in line with
   * `authorizeRun`. Default: runs with a row `scope` lets through; with the
   * default `scope`, runs they own (one indexed query).
   */
  scopeRuns(
    query: ModelQueryBuilderContract<typeof AgentRun>,
    ctx: HttpContext,
    person: string
  ): void | Promise<void>
  /**
   * How a person is shown on the pages ("Signed in as", "Settled by", a
   * run's owner, the history). Default: their auth user's `fullName`,
   * `name` or `email`, else their id; the signed-in user is read off
   * `ctx.auth.user`, the others on a page found in one query through its
   * Lucid model. Called once per person and request; a hook that throws
   * shows the id.
   *
   * @example
   * // The model imported inside the hook, never at the top of config/agents.ts
   * displayName: async (person) => {
   *   const { default: User } = await import('#models/user')
   *   return (await User.find(person))?.fullName ?? person
   * }
   */
  displayName(person: string, ctx: HttpContext): string | Promise<string>
}

const ownerAccess: Omit<InboxAccess, 'authorizeRun' | 'scopeRuns'> = {
  identify(ctx) {
    const user = (ctx as { auth?: { user?: { id?: unknown } } }).auth?.user
    return user?.id === undefined || user.id === null ? null : String(user.id)
  },
  authorize(_ctx, row, person) {
    return row.ownerId === person
  },
  scope(query, _ctx, person) {
    query.where('owner_id', person)
  },
  async displayName(person, ctx) {
    const names = await defaultNames(ctx, [person])
    return names[person]
  },
}

export const defaultAccess: InboxAccess = {
  ...ownerAccess,
  authorizeRun(_ctx, run, person) {
    return run.ownerId === person
  },
  scopeRuns(query, _ctx, person) {
    query.where('owner_id', person)
  },
}

/**
 * The app's hooks over the defaults; run hooks the app left out follow its
 * row hooks.
 */
export function resolveAccess(access: Partial<InboxAccess> = {}): InboxAccess {
  const rows = { ...ownerAccess, ...access }
  return {
    ...rows,
    authorizeRun:
      access.authorizeRun ??
      (access.authorize
        ? async (ctx, run, person) => {
            const first = await ToolCall.query().where('run_id', run.id).orderBy('sequence').first()
            return first ? rows.authorize(ctx, first, person) : run.ownerId === person
          }
        : defaultAccess.authorizeRun),
    scopeRuns:
      access.scopeRuns ??
      (access.scope
        ? async (query, ctx, person) => {
            const visible = ToolCall.query().whereColumn(
              `${ToolCall.table}.run_id`,
              `${query.model.table}.id`
            )
            await rows.scope(visible, ctx, person)
            query.whereExists(visible)
          }
        : defaultAccess.scopeRuns),
  }
}

/**
 * The names of people as the `displayName` hook gives them, by id: each
 * id once, null ids left out, the id itself when the hook fails. Without
 * a hook of the app's, all of them in one lookup.
 *
 * @example
 * await namePeople(access, ctx, [person, row.answeredBy]) // { '1': 'Ada Lovelace' }
 */
export async function namePeople(
  access: Pick<InboxAccess, 'displayName'>,
  ctx: HttpContext,
  ids: Iterable<string | null | undefined>
): Promise<Record<string, string>> {
  const unique = [...new Set([...ids].filter((id): id is string => typeof id === 'string'))]
  if (access.displayName === ownerAccess.displayName) return defaultNames(ctx, unique)
  const names = await Promise.all(
    unique.map(async (id) => {
      try {
        const name = await access.displayName(id, ctx)
        return typeof name === 'string' && name.trim() !== '' ? name : id
      } catch (error) {
        debug('displayName(%s) failed %O', id, error)
        return id
      }
    })
  )
  return Object.fromEntries(unique.map((id, index) => [id, names[index]]))
}
