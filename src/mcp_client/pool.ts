/*
 * Connections to one MCP server, through the official SDK's client. A
 * connection serves one tool call at a time, so an elicitation it receives
 * belongs to that call (MCP's stdio transport does not say which request a
 * server's request is about): a call takes an idle connection or opens
 * another, and gives it back when the call ends. A call waiting hours for a
 * person holds one connection; the others go on.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { ToolWaits } from '../runtime/define_tool.ts'
import debug from '../debug.ts'
import { completeUrlElicitation, elicitThroughInbox, type UrlWaits } from './elicitation.ts'
import type { McpServerConfig, McpToolInfo } from './types.ts'

/**
 * The call a connection serves: where its elicitations become rows.
 */
type Serving = { waits: ToolWaits | undefined; toolName: string }

type Connection = { client: Client; serving: Serving | null }

const DAY = 24 * 3600_000

export class McpServerPool {
  readonly config: McpServerConfig
  #idle: Connection[] = []
  #all = new Set<Connection>()
  #urlWaits: UrlWaits = new Map()
  #closed = false

  constructor(config: McpServerConfig) {
    this.config = config
  }

  async #connect(): Promise<Connection> {
    if (this.#closed) throw new Error(`The MCP server "${this.config.name}" was closed`)
    const client = new Client(
      { name: 'adonis-agent-inbox', version: '0.1.0' },
      { capabilities: { elicitation: { form: {}, url: {} } } }
    )
    const connection: Connection = { client, serving: null }
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      elicitThroughInbox(request.params as any, {
        waits: connection.serving?.waits,
        toolName: connection.serving?.toolName ?? this.config.name,
        server: this.config.name,
        signal: extra.signal,
        urlWaits: this.#urlWaits,
        pollInterval: this.config.pollInterval,
      })
    )
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) =>
      completeUrlElicitation(this.#urlWaits, notification.params.elicitationId, this.config.name)
    )
    const config = this.config
    const transport =
      'command' in config
        ? new StdioClientTransport({
            command: config.command,
            args: config.args,
            env: config.env
              ? { ...(process.env as Record<string, string>), ...config.env }
              : undefined,
            cwd: config.cwd,
            stderr: 'inherit',
          })
        : new StreamableHTTPClientTransport(new URL(config.url), {
            requestInit: config.headers ? { headers: config.headers } : undefined,
          })
    await client.connect(transport)
    client.onclose = () => {
      this.#all.delete(connection)
      this.#idle = this.#idle.filter((entry) => entry !== connection)
    }
    this.#all.add(connection)
    debug('mcp %s: connected (%d open)', this.config.name, this.#all.size)
    return connection
  }

  async #take(): Promise<Connection> {
    return this.#idle.pop() ?? (await this.#connect())
  }

  #give(connection: Connection) {
    connection.serving = null
    if (this.#closed || !this.#all.has(connection)) return
    this.#idle.push(connection)
  }

  /**
   * The server's tools, every page of them.
   */
  async listTools(): Promise<McpToolInfo[]> {
    const connection = await this.#take()
    try {
      const tools: McpToolInfo[] = []
      let cursor: string | undefined
      do {
        const page = await connection.client.listTools(cursor ? { cursor } : undefined)
        tools.push(...(page.tools as McpToolInfo[]))
        cursor = page.nextCursor
      } while (cursor)
      return tools
    } finally {
      this.#give(connection)
    }
  }

  /**
   * Calls a tool; its elicitations open rows through `waits` (or are
   * cancelled at once without). Resolves with the text the model reads;
   * throws with it when the server says the call failed.
   */
  async callTool(tool: string, args: unknown, serving: Serving): Promise<unknown> {
    const connection = await this.#take()
    connection.serving = serving
    try {
      const result = await connection.client.callTool(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { timeout: this.config.timeout ?? DAY }
      )
      const text = ((result.content ?? []) as { type: string; text?: string }[])
        .map((part) => (part.type === 'text' ? part.text : JSON.stringify(part)))
        .join('\n')
      if (result.isError) throw new Error(text || `The MCP tool "${tool}" failed`)
      return result.structuredContent ?? text
    } finally {
      this.#give(connection)
    }
  }

  /**
   * Closes every connection (stdio servers exit). Elicitations still open
   * are withdrawn by their callers as their requests end.
   */
  async close() {
    this.#closed = true
    const all = [...this.#all]
    this.#all.clear()
    this.#idle = []
    await Promise.all(all.map((connection) => connection.client.close().catch(() => {})))
  }
}
