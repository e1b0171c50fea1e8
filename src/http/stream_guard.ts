/*
 * Transmit's routes trust the stream id (`uid`) the browser makes up:
 * whoever learns one may open a stream under it and read what its person
 * subscribes to next, or subscribe and unsubscribe it, and its controllers
 * fail with a 500 on a missing uid or a channel that is no string. Channel
 * authorization (live.ts) cannot see any of that, and Transmit has no hook
 * for it, so the provider puts this middleware on Transmit's three routes,
 * after the app's own (its auth): a stream id belongs to the person who
 * opened it (as `inbox.identify` sees them) for as long as the stream is
 * open in this process, which is where Transmit holds it too; the others
 * get 403, malformed input 422, before Transmit's controllers run. A
 * subscription to a run's channel is asked here as the run's page asks
 * (run_sight.ts), so a refusal is the page's 403 or 404, not Transmit's 400.
 */

import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { E_NOT_YOUR_STREAM, InvalidStreamRequestException, type FieldError } from '../errors.ts'
import { resolveAccess, type InboxAccess } from './access.ts'
import { PRINTABLE } from './request_text.ts'
import { watchableRun } from './run_sight.ts'

/** A run's Transmit channel, as `runChannel` names it (live.ts authorizes the same) */
const RUN_CHANNEL = /^agent_inbox\/runs\/([^/]+)$/

/** Longer than any id a Transmit client makes (a UUID), shorter than a query runs away with */
const MAX_UID = 100
const MAX_CHANNEL = 255

/** What a Transmit route reads of a request */
export type StreamRequest = { opens: boolean; uid: unknown; channel: unknown }

/**
 * What does not hold in a request to Transmit's routes: its `uid`, and the
 * `channel` of a subscribe or unsubscribe. Pure.
 *
 * @example
 * streamInputErrors({ opens: true, uid: undefined, channel: undefined }) // [{ field: 'uid', … }]
 */
export function streamInputErrors(request: StreamRequest): FieldError[] {
  const fields: [field: string, value: unknown, max: number][] = [['uid', request.uid, MAX_UID]]
  if (!request.opens) fields.push(['channel', request.channel, MAX_CHANNEL])
  const errors: FieldError[] = []
  for (const [field, value, max] of fields) {
    if (typeof value !== 'string' || value === '') {
      errors.push({ field, message: `Give the ${field} as a string`, rule: 'string' })
    } else if (value.length > max || !PRINTABLE.test(value)) {
      errors.push({
        field,
        message: `The ${field} is at most ${max} characters, none of them control characters`,
        rule: 'printable',
        meta: { max },
      })
    }
  }
  return errors
}

/**
 * The middleware for Transmit's routes, with the app's inbox hooks. One
 * per process: it holds which person opened each stream open here.
 *
 * @example
 * const guard = streamGuard(config.inbox)
 * transmit.registerRoutes((route) => route.use(guard))
 */
export function streamGuard(access: Partial<InboxAccess> = {}) {
  const { identify } = resolveAccess(access)
  /** Who opened each stream open in this process (null: a guest), one entry per stream */
  const openedBy = new Map<string, { person: string | null }>()

  return async function agentInboxStreamGuard(ctx: HttpContext, next: NextFn) {
    const opens = ctx.request.method() === 'GET'
    const request = {
      opens,
      uid: ctx.request.input('uid'),
      channel: ctx.request.input('channel'),
    }
    const errors = streamInputErrors(request)
    if (errors.length > 0) throw new InvalidStreamRequestException(errors)
    const uid = request.uid as string
    const person = (await identify(ctx)) ?? null
    const open = openedBy.get(uid)
    if (open && open.person !== person) throw new E_NOT_YOUR_STREAM()
    if (!opens) {
      const run = RUN_CHANNEL.exec(request.channel as string)?.[1]
      if (run && ctx.request.url().endsWith('/subscribe')) await watchableRun(ctx, run)
      return next()
    }

    const stream = { person }
    openedBy.set(uid, stream)
    // Transmit drops the stream when its response closes; so is it forgotten here, unless reopened
    ctx.response.response.once('close', () => {
      if (openedBy.get(uid) === stream) openedBy.delete(uid)
    })
    return next()
  }
}

/** What the guard needs of Transmit: its routes' registration */
export type TransmitRoutes = {
  registerRoutes(modifier?: (route: { use(middleware: any): unknown }) => void): void
}

/**
 * Makes Transmit's `registerRoutes` put the guard on each of its routes,
 * after whatever the app's modifier adds (its auth middleware, which the
 * `identify` hook reads).
 */
export function guardTransmitRoutes(transmit: TransmitRoutes, access: Partial<InboxAccess> = {}) {
  const guard = streamGuard(access)
  const register = transmit.registerRoutes.bind(transmit)
  transmit.registerRoutes = (modifier) =>
    register((route) => {
      modifier?.(route)
      route.use(guard)
    })
}
