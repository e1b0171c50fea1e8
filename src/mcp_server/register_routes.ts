/*
 * The MCP server's route, registered by the app from start/routes.ts like
 * the inbox's (../http/register_routes.ts). Streamable HTTP speaks on one
 * path: POST carries the requests; GET and DELETE are answered 405, since
 * the server keeps no session and sends nothing unasked. The controller
 * loads lazily.
 */

import type { HttpRouterService } from '@adonisjs/core/types'
import type { Route } from '@adonisjs/core/http'

export type McpRoutesOptions = {
  /** Default: /mcp */
  path?: string
  /** Called with every route, e.g. a rate limiter; the controller authenticates by itself */
  modifier?: (route: Route) => void
}

/**
 * Registers the inbox's MCP server as the named route `agent_inbox.mcp`.
 * Its clients send a bearer access token of the `mcp.guard`
 * (`node ace agents:mcp-token <user>`); exempt the path from CSRF
 * (`shield.csrf.exceptRoutes`), since a client has no session.
 *
 * @example
 * // start/routes.ts
 * import { registerMcpRoutes } from 'adonis-agent-inbox/mcp/server'
 * registerMcpRoutes(router)
 */
export function registerMcpRoutes(router: HttpRouterService, options: McpRoutesOptions = {}) {
  const path = options.path ?? '/mcp'
  const controller = () => import('./mcp_controller.ts')
  const route = router.any(path, [controller, 'handle']).as('agent_inbox.mcp')
  options.modifier?.(route)
  return [route]
}
