/*
 * The HTTP side of the inbox's MCP server: each request is authenticated
 * with the app's access-tokens guard (`mcp.guard`), before anything is
 * read or opened — a bad or revoked token is a 401 — then handed, with the
 * body the app's body parser already read, to a stateless Streamable HTTP
 * transport over the raw Node request and response.
 */

import type { HttpContext } from '@adonisjs/core/http'
import { RuntimeException } from '@adonisjs/core/exceptions'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { McpClient } from './config.ts'
import { inboxMcpServer } from './server.ts'

/** PostgreSQL's invalid_text_representation */
const INVALID_TEXT = '22P02'

type TokenUser = {
  currentAccessToken: { identifier: string | number | BigInt; name: string | null }
}

export default class McpController {
  async handle(ctx: HttpContext) {
    const auth = (
      ctx as unknown as { auth?: { use(guard: string): { authenticate(): Promise<TokenUser> } } }
    ).auth
    if (!auth) {
      throw new RuntimeException(
        'The MCP routes need @adonisjs/auth: add its initialize_auth_middleware to start/kernel.ts'
      )
    }
    const mcp = await ctx.containerResolver.make('agents.mcp')
    const user = await auth
      .use(mcp.config.guard)
      .authenticate()
      .catch((error: { code?: string }) => {
        // A token whose id is no id at all (PostgreSQL refuses it as an integer) is no token either
        if (error.code === INVALID_TEXT) return null
        throw error
      })
    if (!user) return ctx.response.unauthorized({ errors: [{ message: 'Unauthorized access' }] })
    const token = user.currentAccessToken
    const client: McpClient = {
      userId: mcp.config.identify(user),
      tokenId: String(token.identifier),
      name: token.name ?? `token ${token.identifier}`,
    }
    // Stateless: no stream of the server's own to open (GET), no session to end (DELETE)
    if (ctx.request.method() !== 'POST') {
      ctx.response.header('Allow', 'POST')
      return ctx.response.methodNotAllowed({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this server keeps no session' },
        id: null,
      })
    }
    const agents = await ctx.containerResolver.make('agents.runtime')
    const server = inboxMcpServer({
      inbox: agents.inbox,
      approvals: agents.approvals,
      config: mcp.config,
      limits: mcp.limits,
      client,
    })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    const raw = ctx.response.response
    raw.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(ctx.request.request, raw, ctx.request.body())
  }
}
