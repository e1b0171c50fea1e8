/*
 * The inbox's routes, registered by the app from start/routes.ts, with a
 * modifier to put its own middleware (auth, Bouncer) in front of them.
 * Controllers load lazily, on the first request.
 */

import type { HttpRouterService } from '@adonisjs/core/types'
import type { Route } from '@adonisjs/core/http'

export type InboxRoutesOptions = {
  /** Default: /inbox */
  prefix?: string
  /** Called with every route, e.g. `(route) => route.use(middleware.auth())` */
  modifier?: (route: Route) => void
  /**
   * Called with the one-tap link routes of notification mails, which the
   * modifier leaves alone: a link's signature stands for its person
   */
  linkModifier?: (route: Route) => void
}

/**
 * Registers the inbox page, a row's detail, recently settled rows, the
 * reply and bulk-decision endpoints, the history and a run's page, as
 * named routes `agent_inbox.*`.
 *
 * @example
 * // start/routes.ts
 * registerInboxRoutes(router, { modifier: (route) => route.use(middleware.auth()) })
 */
export function registerInboxRoutes(router: HttpRouterService, options: InboxRoutesOptions = {}) {
  const prefix = (options.prefix ?? '/inbox').replace(/\/$/, '')
  const controller = () => import('./inbox_controller.ts')
  const runs = () => import('./runs_controller.ts')
  const grants = () => import('./grants_controller.ts')
  const routes = [
    router.get(prefix || '/', [controller, 'index']).as('agent_inbox.index'),
    router.get(`${prefix}/settled`, [controller, 'settled']).as('agent_inbox.settled'),
    router.get(`${prefix}/rows/:id`, [controller, 'show']).as('agent_inbox.rows.show'),
    router.post(`${prefix}/rows/:id/reply`, [controller, 'reply']).as('agent_inbox.rows.reply'),
    router.post(`${prefix}/bulk`, [controller, 'bulk']).as('agent_inbox.bulk'),
    router.get(`${prefix}/history`, [runs, 'history']).as('agent_inbox.history'),
    router.get(`${prefix}/runs/:id`, [runs, 'show']).as('agent_inbox.runs.show'),
    router.get(`${prefix}/grants`, [grants, 'index']).as('agent_inbox.grants'),
    router.post(`${prefix}/grants/:id/revoke`, [grants, 'revoke']).as('agent_inbox.grants.revoke'),
  ]
  for (const route of routes) options.modifier?.(route)
  // One-tap links of notification mails: their signature is the credential, not a session
  const mail = () => import('./mail_link_controller.ts')
  const links = [
    router.get(`${prefix}/links/:id`, [mail, 'show']).as('agent_inbox.mail'),
    router.post(`${prefix}/links/:id`, [mail, 'confirm']).as('agent_inbox.mail.confirm'),
  ]
  for (const route of links) options.linkModifier?.(route)
  return [...routes, ...links]
}

/**
 * Registers the operator's console under `<prefix>/console` (default
 * /inbox/console): its page and its Retry, Cancel and Reassign actions,
 * as named routes `agent_console.*` (../console/props.ts CONSOLE_ROUTES).
 * Who may use it is the app's to say (`console.authorize` in
 * config/agents.ts, by default Bouncer's `viewAgentConsole` ability); the
 * modifier puts the app's middleware (auth) in front.
 *
 * @example
 * // start/routes.ts
 * registerConsoleRoutes(router, { modifier: (route) => route.use(middleware.auth()) })
 */
export function registerConsoleRoutes(
  router: HttpRouterService,
  options: Omit<InboxRoutesOptions, 'linkModifier'> = {}
) {
  const prefix = `${(options.prefix ?? '/inbox').replace(/\/$/, '')}/console`
  const controller = () => import('./console_controller.ts')
  const routes = [
    router.get(prefix, [controller, 'index']).as('agent_console.index'),
    router.post(`${prefix}/runs/:id/retry`, [controller, 'retry']).as('agent_console.runs.retry'),
    router
      .post(`${prefix}/runs/:id/cancel`, [controller, 'cancel'])
      .as('agent_console.runs.cancel'),
    router
      .post(`${prefix}/rows/:id/reassign`, [controller, 'reassign'])
      .as('agent_console.rows.reassign'),
  ]
  for (const route of routes) options.modifier?.(route)
  return routes
}

export type ChatRoutesOptions = Omit<InboxRoutesOptions, 'linkModifier' | 'prefix'> & {
  /** Default: /chat */
  prefix?: string
  /**
   * The agents a chat may start, by name (streaming agents: `stream: true`);
   * a conversation keeps the agent it started with
   */
  agents: string[]
}

/**
 * Registers the chat (docs/guides/chat.md): a conversation's page at
 * `<prefix>/:id` (`?agent=` names the agent of a new one; JSON for API
 * clients) and its message endpoint, `POST <prefix>/:id/messages`, as named
 * routes `agent_chat.*`. A row a turn opens is settled through the inbox's
 * reply route, so register the inbox's routes too.
 *
 * @example
 * // start/routes.ts
 * registerChatRoutes(router, {
 *   agents: ['helper'],
 *   modifier: (route) => route.use(middleware.auth()),
 * })
 */
export function registerChatRoutes(router: HttpRouterService, options: ChatRoutesOptions) {
  if (options.agents.length === 0) {
    throw new Error('registerChatRoutes: name the agents a chat may start (options.agents)')
  }
  const prefix = (options.prefix ?? '/chat').replace(/\/$/, '')
  // Loaded on the first request, as the inbox's controllers are
  let loaded: Promise<InstanceType<typeof import('./chat_controller.ts').default>> | undefined
  const controller = () =>
    (loaded ??= import('./chat_controller.ts').then(
      ({ default: ChatController }) => new ChatController({ agents: options.agents })
    ))
  const routes = [
    router
      .get(`${prefix}/:id`, async (ctx) => {
        const chat = await controller()
        return chat.show(ctx)
      })
      .as('agent_chat.show'),
    router
      .post(`${prefix}/:id/messages`, async (ctx) => {
        const chat = await controller()
        return chat.send(ctx)
      })
      .as('agent_chat.messages'),
  ]
  for (const route of routes) options.modifier?.(route)
  return routes
}
