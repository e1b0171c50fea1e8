/*
 * Live inbox updates through `@adonisjs/transmit`, an optional peer: the
 * provider imports this module only when the app has Transmit registered,
 * and nothing here imports Transmit itself (it arrives from the container,
 * typed by the small part used below).
 *
 * Every row event of a run owned by someone is broadcast on that person's
 * channel, `agent_inbox/<ownerId>`, as a small message saying what changed
 * (never the row's content: the page reloads its rows through the inbox's
 * own authorized endpoint). A person may subscribe to their own channel
 * only, as the inbox's `identify` hook sees them. People other than the
 * owner who may settle the rows (admins) are told on their own channels
 * through the `alsoNotify` hook: no shared channel to authorize.
 */

import type { HttpContext } from '@adonisjs/core/http'
import type { AgentEvents } from '../events.ts'
import debug from '../debug.ts'
import { resolveAccess, type InboxAccess } from './access.ts'
import { liveChannel } from '../questions/client.ts'

/** The channels, one per person; `:person` is the owner id of the runs */
export const LIVE_CHANNEL = 'agent_inbox/:person'

/**
 * What subscribers receive. `run:cancelled` tells that a run's pending rows
 * were cancelled with it (no row event is emitted for them).
 */
export type LiveMessage =
  | { type: 'row:created' | 'row:settled'; rowId: string; runId: string | null }
  | { type: 'run:cancelled'; runId: string }

/**
 * `live` in config/agents.ts, when not just `true`.
 */
export type LiveOptions = {
  /**
   * More people to tell about a change besides the run's owner, e.g. the
   * admins `inbox.authorize` lets settle anyone's rows. Each receives the
   * message on their own channel. Runs after the owner was told; a failure
   * is logged with `NODE_DEBUG` and tells nobody more.
   *
   * @example
   * alsoNotify: async () => {
   *   const admins = await User.query().where('is_admin', true)
   *   return admins.map((admin) => String(admin.id))
   * }
   */
  alsoNotify?(
    message: LiveMessage,
    ownerId: string | null
  ): Iterable<string> | Promise<Iterable<string>>
}

/**
 * The part of `@adonisjs/transmit`'s adapter used here.
 */
export type LiveTransmit = {
  broadcast(channel: string, payload: LiveMessage): void
  authorize<Params extends Record<string, string>>(
    channel: string,
    callback: (ctx: HttpContext, params: Params) => boolean | Promise<boolean>
  ): void
}

/**
 * The part of the Adonis emitter used here.
 */
export type LiveEmitter = {
  on<Name extends keyof AgentEvents>(
    event: Name,
    listener: (data: AgentEvents[Name]) => void
  ): () => void
}

/**
 * Lets a person subscribe to their own channel only, as the inbox's
 * `identify` hook sees them. Transmit answers a refused subscription with
 * 400. The app's middleware on Transmit's routes must set up what
 * `identify` reads (the auth middleware, as on the inbox's routes).
 */
export function authorizeLiveChannels(transmit: LiveTransmit, access: Partial<InboxAccess> = {}) {
  const { identify } = resolveAccess(access)
  transmit.authorize<{ person: string }>(LIVE_CHANNEL, async (ctx, { person }) => {
    const who = await identify(ctx)
    return who !== null && who === person
  })
}

/**
 * Broadcasts row events on their owner's channel (and those `alsoNotify`
 * names) until `stop()` is called, at the app's shutdown. A failing
 * broadcast is logged with `NODE_DEBUG` and never fails or holds up the run
 * that emitted the event.
 */
export function broadcastRowEvents(
  emitter: LiveEmitter,
  transmit: LiveTransmit,
  options: LiveOptions = {}
) {
  const broadcast = (person: string | null, message: LiveMessage) => {
    const channel = liveChannel(person)
    if (!channel) return
    try {
      transmit.broadcast(channel, message)
      debug('live %s on %s', message.type, channel)
    } catch (error) {
      debug('live broadcast on %s failed %O', channel, error)
    }
  }

  /** The owner at once, so their messages keep the order of the events */
  const send = (owner: string | null, message: LiveMessage) => {
    broadcast(owner, message)
    if (!options.alsoNotify) return
    void (async () => {
      const others = new Set(await options.alsoNotify!(message, owner))
      others.delete(owner ?? '')
      for (const person of others) broadcast(person, message)
    })().catch((error) => debug('live alsoNotify failed %O', error))
  }

  const listeners = [
    emitter.on('agents:row:created', ({ row }) =>
      send(row.ownerId, { type: 'row:created', rowId: row.id, runId: row.runId })
    ),
    emitter.on('agents:row:settled', ({ row }) =>
      send(row.ownerId, { type: 'row:settled', rowId: row.id, runId: row.runId })
    ),
    emitter.on('agents:run:cancelled', ({ run }) =>
      send(run.ownerId, { type: 'run:cancelled', runId: run.id })
    ),
  ]

  return {
    stop() {
      for (const off of listeners.splice(0)) off()
    },
  }
}
