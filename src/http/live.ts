/*
 * Live inbox updates through `@adonisjs/transmit`, an optional peer: the
 * provider imports this module only when the app has Transmit registered,
 * and nothing here imports Transmit itself (it arrives from the container,
 * typed by the small part used below).
 *
 * Every row event and every status change of a run owned by someone is
 * broadcast on that person's Transmit channel, `agent_inbox/<ownerId>`, as a small
 * message saying what changed (never a row's content: the page reloads its
 * rows and runs through the inbox's own authorized endpoints). A person may subscribe to their own Transmit channel
 * only, as the inbox's `identify` hook sees them. The approvers a row's
 * quorum names are told of that row (created, settled) on their own
 * Transmit channels, and of nothing else of the run: they see the rows they
 * decide, not the run (docs/design.md §11.6). People other than the
 * owner who may settle the rows (admins) are told on their own Transmit channels
 * through the `alsoNotify` hook: no shared Transmit channel to authorize.
 *
 * A chat's turns (their steps and statuses) go on the chat's channel too,
 * `agent_inbox/chats/<ownerId>/<conversationId>`, its person's own.
 * A streaming agent's steps go on the run's own Transmit channel,
 * `agent_inbox/runs/<runId>`, as they arrive (`step:delta`, batched:
 * ../runtime/step_stream.ts) and once journaled (`step:committed`): that
 * one carries the model's text, so only those who may read the whole run,
 * as its page lets them, may subscribe (run_sight.ts `watchableRun`).
 */

import type { HttpContext } from '@adonisjs/core/http'
import type { AgentEvents } from '../events.ts'
import type { AgentRun, RunStatus } from '../persistence/models/agent_run.ts'
import debug from '../debug.ts'
import { resolveAccess, type InboxAccess } from './access.ts'
import { chatChannel, runChannel, transmitChannel } from '../questions/client.ts'
import type { ToolInputDelta } from '../runtime/step_stream.ts'
import { watchableRun } from './run_sight.ts'
import { namedApprovers } from '../governance/view.ts'
import { quorumOf } from '../inbox/votes.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'

/** The Transmit channels, one per person; `:person` is the owner id of the runs */
export const TRANSMIT_CHANNEL = 'agent_inbox/:person'

/** The Transmit channels of streaming steps, one per run */
export const RUN_CHANNEL = 'agent_inbox/runs/:run'

/** The Transmit channels of chats: a person's own, one per conversation (its turns' steps and statuses) */
export const CHAT_CHANNEL = 'agent_inbox/chats/:person/:chat'

/**
 * What subscribers receive. `run:status` tells a run moved (`running` once a
 * settle or a recovery resumes it); a `cancelled` one also says that its
 * pending rows were cancelled with it (no row event is emitted for them).
 * The `step:` messages go on a run's channel: what a streaming step's model
 * call sent since the last one, and that the step was journaled, which
 * replaces what the deltas of its `stream` showed.
 */
export type LiveMessage =
  | { type: 'row:created' | 'row:settled'; rowId: string; runId: string | null }
  | { type: 'run:status'; runId: string; status: RunStatus }
  | StepMessage

/** A streaming step's message on its run's channel */
export type StepMessage =
  | {
      type: 'step:delta'
      runId: string
      step: number
      stream: string
      text: string
      toolInputs: ToolInputDelta[]
    }
  | { type: 'step:committed'; runId: string; step: number; stream: string }

/**
 * The run events broadcast as `run:status`, with the status each one
 * announces. `resumed` is sent before a driver takes the run (the row still
 * says `waiting`): it announces the drive to come.
 */
const RUN_EVENTS = {
  'agents:run:started': 'queued',
  'agents:run:resumed': 'running',
  'agents:run:waiting': 'waiting',
  'agents:run:completed': 'completed',
  'agents:run:failed': 'failed',
  'agents:run:cancelled': 'cancelled',
} as const satisfies Partial<Record<keyof AgentEvents, RunStatus>>

/**
 * `live` in config/agents.ts, when not just `true`.
 */
export type LiveOptions = {
  /**
   * More people to tell about a change besides the run's owner, e.g. the
   * admins `inbox.authorize` lets settle anyone's rows. Each receives the
   * message on their own Transmit channel. Runs after the owner was told; a failure
   * is logged with `NODE_DEBUG` and tells nobody more.
   *
   * @example
   * alsoNotify: async () => {
   *   const { default: User } = await import('#models/user') // inside the hook
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
 * Lets a person subscribe to their own Transmit channel only, as the inbox's
 * `identify` hook sees them. Transmit answers a refused subscription with
 * 400. The app's middleware on Transmit's routes must set up what
 * `identify` reads (the auth middleware, as on the inbox's routes).
 */
export function authorizeTransmitChannels(
  transmit: LiveTransmit,
  access: Partial<InboxAccess> = {}
) {
  const { identify } = resolveAccess(access)
  const ownChannel = async (ctx: HttpContext, { person }: { person: string }) => {
    const who = await identify(ctx)
    return who !== null && who === person
  }
  transmit.authorize<{ person: string }>(TRANSMIT_CHANNEL, ownChannel)
  // A chat's channel is its person's: subscribed before the first message creates the conversation
  transmit.authorize<{ person: string; chat: string }>(CHAT_CHANNEL, ownChannel)
  // A refusal throws, which Transmit takes as no; the stream guard answers it first (403, 404)
  transmit.authorize<{ run: string }>(RUN_CHANNEL, async (ctx, { run }) => {
    await watchableRun(ctx, run)
    return true
  })
}

/**
 * Broadcasts row events and run status changes on their owner's Transmit channel
 * (and those `alsoNotify` names) until `stop()` is called, at the app's shutdown. A failing
 * broadcast is logged with `NODE_DEBUG` and never fails or holds up the run
 * that emitted the event.
 */
export function broadcastRowEvents(
  emitter: LiveEmitter,
  transmit: LiveTransmit,
  options: LiveOptions = {}
) {
  const broadcast = (person: string | null, message: LiveMessage) =>
    broadcastOn(transmitChannel(person), message)
  const broadcastOn = (channel: string | null, message: LiveMessage) => {
    if (!channel) return
    try {
      transmit.broadcast(channel, message)
      debug('live %s on %s', message.type, channel)
    } catch (error) {
      debug('live broadcast on %s failed %O', channel, error)
    }
  }

  /**
   * The owner and the row's approvers at once, so their messages keep the
   * order of the events; then those `alsoNotify` names, each once
   */
  const send = (owner: string | null, message: LiveMessage, approvers: string[] = []) => {
    const told = new Set([owner, ...approvers])
    for (const person of told) broadcast(person, message)
    if (!options.alsoNotify) return
    void (async () => {
      const others = new Set(await options.alsoNotify!(message, owner))
      for (const person of others) if (!told.has(person)) broadcast(person, message)
    })().catch((error) => debug('live alsoNotify failed %O', error))
  }
  // A chat's turn is told on its chat's channel too
  const chatOf = (run: AgentRun) => chatChannel(run.ownerId, run.conversationId)
  const rowEvent = (type: 'row:created' | 'row:settled', row: ToolCall) =>
    send(row.ownerId, { type, rowId: row.id, runId: row.runId }, namedApprovers(quorumOf(row)))

  const listeners = [
    emitter.on('agents:row:created', ({ row }) => rowEvent('row:created', row)),
    emitter.on('agents:row:settled', ({ row }) => rowEvent('row:settled', row)),
    ...Object.entries(RUN_EVENTS).map(([event, status]) =>
      emitter.on(event as keyof typeof RUN_EVENTS, ({ run }) => {
        const message = { type: 'run:status' as const, runId: run.id, status }
        send(run.ownerId, message)
        broadcastOn(chatOf(run), message)
      })
    ),
    emitter.on('agents:step:delta', ({ run, ...delta }) => {
      const message = { type: 'step:delta' as const, runId: run.id, ...delta }
      broadcastOn(runChannel(run.id), message)
      broadcastOn(chatOf(run), message)
    }),
    emitter.on('agents:step:committed', ({ run, step, stream }) => {
      const message = { type: 'step:committed' as const, runId: run.id, step, stream }
      broadcastOn(runChannel(run.id), message)
      broadcastOn(chatOf(run), message)
    }),
  ]

  return {
    stop() {
      for (const off of listeners.splice(0)) off()
    },
  }
}
