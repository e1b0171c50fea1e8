/*
 * Questions from an MCP client the app runs itself, outside any agent run
 * (a script, a worker, a long-lived connection of its own): its servers'
 * `elicitation/create` requests are asked in the inbox as run-less waits
 * (`inbox.open({ id: null, ownerId }, …)`), so the inbox stays the one
 * place people answer. The same path as a run's elicitations
 * (elicitation.ts), with the inbox itself as the waits and a deadline of
 * its own: a wait nobody answers in time is expired, one the server gives
 * up (or whose connection closes) is withdrawn, and either way the server
 * gets `cancel` rather than a hang.
 */

import { DateTime } from 'luxon'
import type { Inbox } from '../inbox/inbox.ts'
import type { ToolWaits } from '../runtime/define_tool.ts'
import type { ElicitationResult } from '../mcp/types.ts'
import { completeUrlElicitation, elicitThroughInbox, type ElicitParams } from './elicitation.ts'
import type { UrlWaits } from './elicitation.ts'

const DAY = 24 * 3600_000

export type InboxElicitationOptions = {
  /** The app's inbox: `import { inbox } from 'adonis-agent-inbox/services/main'` */
  inbox: Inbox
  /**
   * Who answers (the rows' owner, as `inbox.identify` names people), or a
   * function of the request; null: nobody can, and the server gets
   * `cancel` at once.
   */
  owner: string | null | ((params: ElicitParams) => string | null | Promise<string | null>)
  /** The server's name: the cards' title, and who settles a completed URL row (`mcp:<name>`) */
  server: string
  /** How long a person has to answer (ms); default 24 h. Past it the row expires: `cancel` */
  expiresIn?: number
  /**
   * Names this process's waits (`claimed_by`), stable across its restarts
   * (`web-1`, a container's name): `withdrawLeftovers()` then withdraws
   * what a previous life of it left open. Unset: the rows are not marked.
   */
  holder?: string
  /** How often a wait reads its row back, for answers given in another process (ms); default 500 */
  pollInterval?: number
}

/**
 * The request handler and the notification handler of an app's MCP client.
 */
export type InboxElicitationHandler = {
  (request: { params: ElicitParams }, extra: { signal: AbortSignal }): Promise<ElicitationResult>
  /** For `notifications/elicitation/complete`: settles the URL row the server completed */
  complete(notification: { params: { elicitationId: string } }): Promise<void>
  /**
   * Withdraws the run-less rows still pending under `holder` from before
   * this process started (their requests died with the old connection), so
   * late replies get E_CANCELLED. Call it once at boot; returns how many.
   */
  withdrawLeftovers(): Promise<number>
}

/**
 * An elicitation handler for an MCP client of the app's own: each request
 * is a pending row of the inbox, owned by `owner`, and its settlement goes
 * back to the server (form mode: the typed values; URL mode: accept once
 * the server reports completion, or the person says done; decline when
 * they decline).
 *
 * @example
 * import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
 * import { inbox } from 'adonis-agent-inbox/services/main'
 * import { inboxElicitationHandler } from 'adonis-agent-inbox/mcp/client'
 *
 * const client = new Client({ name: 'billing', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } })
 * const elicit = inboxElicitationHandler({ inbox, owner: 'user:1', server: 'billing' })
 * client.setRequestHandler(ElicitRequestSchema, elicit)
 * client.setNotificationHandler(ElicitationCompleteNotificationSchema, elicit.complete)
 */
export function inboxElicitationHandler(options: InboxElicitationOptions): InboxElicitationHandler {
  const { inbox, server } = options
  const urlWaits: UrlWaits = new Map()
  const opened = new Set<string>()
  /*
   * A row is committed before its id reaches `opened`, so a withdrawal
   * running beside an open would take this life's own row for a leftover:
   * the withdrawal waits for the opens already under way, and opens that
   * start meanwhile wait for it.
   */
  const opening = new Set<Promise<unknown>>()
  let withdrawing: Promise<unknown> = Promise.resolve()
  const track = <T>(work: () => Promise<T>): Promise<T> => {
    const done = work()
    opening.add(done)
    const forget = () => opening.delete(done)
    done.then(forget, forget)
    return done
  }

  const handler = async (request: { params: ElicitParams }, extra: { signal: AbortSignal }) => {
    const params = request.params
    const owner = typeof options.owner === 'function' ? await options.owner(params) : options.owner
    const deadline = AbortSignal.timeout(options.expiresIn ?? DAY)
    const signal = AbortSignal.any([extra.signal, deadline])
    const mine: string[] = []
    const waits: ToolWaits | undefined =
      owner === null
        ? undefined
        : {
            open: (wait) =>
              track(async () => {
                await withdrawing
                const row = await inbox.open({ id: null, ownerId: owner }, wait, {
                  expiresAt: DateTime.now().plus({ milliseconds: options.expiresIn ?? DAY }),
                  heldBy: options.holder,
                })
                opened.add(row.id)
                mine.push(row.id)
                return row
              }),
            settled: (rowId, awaitOptions) => inbox.settled(rowId, awaitOptions),
            settle: (rowId, reply, settleOptions) => inbox.settle(rowId, reply, settleOptions),
            // The server gave up (or the connection closed): withdrawn; the deadline passed: expired
            withdraw: async (rowId) => {
              if (extra.signal.aborted) return inbox.withdraw(rowId)
              const row = await inbox.find(rowId)
              return row?.status === 'pending' ? inbox.expire(row) : null
            },
          }
    try {
      return await elicitThroughInbox(params, {
        waits,
        toolName: server,
        server,
        signal,
        urlWaits,
        pollInterval: options.pollInterval,
      })
    } finally {
      for (const rowId of mine) opened.delete(rowId)
    }
  }

  return Object.assign(handler, {
    complete: (notification: { params: { elicitationId: string } }) =>
      completeUrlElicitation(urlWaits, notification.params.elicitationId, server),
    withdrawLeftovers: () => {
      const holder = options.holder
      if (!holder) return Promise.resolve(0)
      const underWay = [...opening]
      const withdrawal = (async () => {
        await Promise.allSettled(underWay)
        const rows = await inbox.withdrawHeld(null, holder, [...opened])
        return rows.length
      })()
      withdrawing = withdrawal.catch(() => undefined)
      return withdrawal
    },
  })
}
