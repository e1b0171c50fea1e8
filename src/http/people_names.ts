/*
 * How people are named when the app writes no `displayName` hook: by their
 * auth user's `fullName`, `name` or `email`, else by their id. The
 * signed-in person is named off `ctx.auth.user`; the others on a page
 * (who settled a row, a run's owner) are found in one query through the
 * signed-in user's Lucid model, so a page costs at most one query however
 * many rows it lists. @adonisjs/auth is an optional peer: everything here
 * is duck-typed, and whatever is missing or fails leaves the id.
 */

import type { HttpContext } from '@adonisjs/core/http'
import debug from '../debug.ts'

/**
 * The name a user record gives: its `fullName`, `name` or `email` (the
 * first that is a non-blank string), else the id.
 *
 * @example
 * nameOfUser({ fullName: null, email: 'ada@example.com' }, '1') // 'ada@example.com'
 */
export function nameOfUser(user: unknown, id: string): string {
  if (!user || typeof user !== 'object') return id
  const fields = user as Record<string, unknown>
  for (const field of ['fullName', 'name', 'email']) {
    const value = fields[field]
    if (typeof value === 'string' && value.trim() !== '') return value
  }
  return id
}

/** A Lucid model, as far as finding users by id needs one */
type UserModel = {
  primaryKey: string
  $keys?: { attributesToColumns: { get(attribute: string): string | undefined } }
  query(): { whereIn(column: string, values: string[]): PromiseLike<unknown[]> }
}

/** The signed-in user, as @adonisjs/auth puts it on the context */
function signedInUser(ctx: HttpContext): { id?: unknown; constructor?: unknown } | undefined {
  const user = (ctx as { auth?: { user?: unknown } }).auth?.user
  return user && typeof user === 'object' ? user : undefined
}

/** The model of the signed-in user when it is a Lucid model */
function modelOf(user: { constructor?: unknown }): UserModel | undefined {
  const model = user.constructor as Partial<UserModel> | undefined
  return typeof model?.query === 'function' && typeof model.primaryKey === 'string'
    ? (model as UserModel)
    : undefined
}

/**
 * The default names of `ids` (distinct, non-null), by id.
 *
 * @example
 * await defaultNames(ctx, ['1', '2']) // { '1': 'Ada Lovelace', '2': 'grace@example.com' }
 */
export async function defaultNames(
  ctx: HttpContext,
  ids: string[]
): Promise<Record<string, string>> {
  const names: Record<string, string> = Object.fromEntries(ids.map((id) => [id, id]))
  const user = signedInUser(ctx)
  if (!user) return names
  const self = user.id === undefined || user.id === null ? undefined : String(user.id)
  if (self !== undefined && self in names) names[self] = nameOfUser(user, self)
  // Numeric keys: an id that is no number would fail the whole query on PostgreSQL
  const numeric = typeof user.id === 'number' || typeof user.id === 'bigint'
  const others = ids.filter((id) => id !== self && (!numeric || /^\d{1,18}$/.test(id)))
  const model = modelOf(user)
  if (others.length === 0 || !model) return names
  try {
    const column = model.$keys?.attributesToColumns.get(model.primaryKey) ?? model.primaryKey
    const found = await model.query().whereIn(column, others)
    for (const row of found) {
      const id = String((row as Record<string, unknown>)[model.primaryKey])
      if (id in names) names[id] = nameOfUser(row, id)
    }
  } catch (error) {
    debug('finding users %o to name them failed %O', others, error)
  }
  return names
}
