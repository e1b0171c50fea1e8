/*
 * How an agent names the MCP servers whose tools it may call: a command to
 * spawn (stdio) or a URL (Streamable HTTP), with what decides approvals.
 * Types only; the connections live in connection.ts and pool.ts.
 */

/**
 * An MCP tool as listed by its server, with the annotations that decide
 * whether a call needs approval.
 */
export type McpToolInfo = {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string }
}

type McpServerCommon = {
  /** Prefixes its tools' names as the model sees them: `<name>_<tool>` */
  name: string
  /**
   * Whether a call needs a person's approval. By default: a tool annotated
   * `destructiveHint`, or not `readOnlyHint`, is an action needing approval;
   * a read-only one runs at once.
   */
  needsApproval?: boolean | ((tool: McpToolInfo, input: unknown) => boolean)
  /** How long a tool call may take, a person's answers included (ms); default 24 h */
  timeout?: number
  /** How often a waiting elicitation reads its row back (ms); default 500 */
  pollInterval?: number
}

export type McpStdioServer = McpServerCommon & {
  command: string
  args?: string[]
  env?: Record<string, string>
  cwd?: string
}

export type McpHttpServer = McpServerCommon & {
  url: string
  headers?: Record<string, string>
}

export type McpServerConfig = McpStdioServer | McpHttpServer
