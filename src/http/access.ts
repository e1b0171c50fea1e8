/*
 * Who is asking, and may they see or settle a row. Both are config hooks so
 * an app can plug in its own auth and Bouncer abilities; the defaults read
 * `ctx.auth.user.id` and let a run's owner settle its rows.
 */

import type { HttpContext } from '@adonisjs/core/http'
import type { ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import type { ToolCall } from '../persistence/models/tool_call.ts'

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
}

export const defaultAccess: InboxAccess = {
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
}

/**
 * The app's hooks over the defaults.
 */
export function resolveAccess(access: Partial<InboxAccess> = {}): InboxAccess {
  return { ...defaultAccess, ...access }
}
