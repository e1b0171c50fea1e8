/*
 * The public face of the inbox's MCP server, `adonis-agent-inbox/mcp/server`:
 * outside agents (Claude Code, Codex, any MCP client) ask the app's people
 * through the inbox with `ask_human` and `request_approval`
 * (docs/guides/mcp_server.md). The app registers the route; `mcp` in
 * config/agents.ts says who answers and how long a person has.
 */

export { registerMcpRoutes, type McpRoutesOptions } from './register_routes.ts'
export type { McpAskContext, McpClient, McpServerConfig } from './config.ts'
