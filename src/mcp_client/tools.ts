/*
 * An MCP server's tools as the agent's tools: named `<server>_<tool>` for
 * the model, their JSON Schema passed through (the server validates its own
 * input), `read` when annotated read-only and not destructive, else an
 * `action` needing approval, unless the server's `needsApproval` says
 * otherwise. They open waits while they run (elicitations), so they are
 * never batched with reads.
 */

import type { ToolDefinition } from '../runtime/define_tool.ts'
import type { McpServerPool } from './pool.ts'
import type { McpToolInfo } from './types.ts'

/**
 * The name the model sees: the provider's rules allow letters, digits, `_`
 * and `-`, 64 at most.
 */
export function mcpToolName(server: string, tool: string) {
  return `${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)
}

/**
 * Whether a call of this tool waits for a person's approval by default.
 */
export function isAction(tool: McpToolInfo) {
  return tool.annotations?.destructiveHint === true || tool.annotations?.readOnlyHint !== true
}

export function mcpToolDefinitions(pool: McpServerPool, tools: McpToolInfo[]): ToolDefinition[] {
  const server = pool.config
  return tools.map((tool) => {
    const name = mcpToolName(server.name, tool.name)
    const kind = isAction(tool) ? 'action' : 'read'
    return {
      name,
      description: tool.description ?? tool.annotations?.title ?? tool.name,
      kind,
      jsonSchema: tool.inputSchema,
      opensWaits: true,
      async validate(input) {
        const isObject = typeof input === 'object' && input !== null && !Array.isArray(input)
        return isObject
          ? { ok: true, value: input }
          : { ok: false, issues: [{ path: '', message: 'The input must be an object' }] }
      },
      async needsApproval(input) {
        const rule = server.needsApproval
        if (typeof rule === 'function') return rule(tool, input)
        return rule ?? kind === 'action'
      },
      summarize(input) {
        return `${tool.annotations?.title ?? tool.name} on ${server.name}: ${JSON.stringify(input)}`
      },
      // A destructive tool is never covered by a remembered grant
      irreversible: tool.annotations?.destructiveHint === true,
      grants: [],
      transactional: false,
      effects: new Map(),
      handle(input, context) {
        return pool.callTool(tool.name, input, { waits: context.waits, toolName: name })
      },
    } satisfies ToolDefinition
  })
}
