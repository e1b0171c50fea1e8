/*
 * The tools of an agent's MCP servers, added to its tools the first time a
 * run of it is driven in this process: their list is the server's, known
 * only once connected. The MCP client (src/mcp_client, and the SDK behind
 * it) is imported only for agents that name servers.
 */

import type { AgentDefinition } from './define_agent.ts'
import type { McpServerPool } from '../mcp_client/pool.ts'

/**
 * The servers of each agent, connected and their tools listed.
 */
const loaded = new WeakMap<AgentDefinition, Promise<McpServerPool[]>>()

/**
 * Connects the agent's MCP servers and adds their tools, once. A failure
 * is thrown (and forgotten, so the next drive tries again).
 */
export async function loadMcpTools(agent: AgentDefinition): Promise<void> {
  if (agent.mcp.length === 0) return
  let loading = loaded.get(agent)
  if (!loading) {
    loading = connect(agent)
    loaded.set(agent, loading)
    loading.catch(() => loaded.delete(agent))
  }
  await loading
}

async function connect(agent: AgentDefinition): Promise<McpServerPool[]> {
  const { McpServerPool } = await import('../mcp_client/pool.ts')
  const { mcpToolDefinitions } = await import('../mcp_client/tools.ts')
  const pools = agent.mcp.map((config) => new McpServerPool(config))
  try {
    for (const pool of pools) {
      for (const tool of mcpToolDefinitions(pool, await pool.listTools())) {
        if (agent.tools.has(tool.name)) {
          throw new Error(`Agent "${agent.name}" has two tools named "${tool.name}"`)
        }
        agent.tools.set(tool.name, tool)
      }
    }
    return pools
  } catch (error) {
    await Promise.all(pools.map((pool) => pool.close()))
    throw error
  }
}

/**
 * Closes the MCP connections of these agents (their stdio servers exit).
 */
export async function closeMcpServers(agents: Iterable<AgentDefinition>) {
  for (const agent of agents) {
    const loading = loaded.get(agent)
    if (!loading) continue
    loaded.delete(agent)
    const pools = await loading.catch(() => [])
    await Promise.all(pools.map((pool) => pool.close()))
  }
}
