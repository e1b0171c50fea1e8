/*
 * Outside agents for the MCP server's tests: access tokens made by the
 * fixture app's own `node ace agents:mcp-token`, and the SDK's real
 * `Client` over Streamable HTTP against the fixture server on its port.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { fixtureAce } from '../../fixtures/app/bin/launch.ts'
import { dbName, sqliteFile } from './database.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'

const ENV = () => ({ DB_CONNECTION: dbName(), DB_FILE: sqliteFile() })

/**
 * A new token of `userId`'s for a client named `name`: its id and secret.
 */
export async function mcpToken(userId: number, name: string) {
  const output = await fixtureAce(['agents:mcp-token', String(userId), '--name', name], ENV())
  const id = /Token (\d+) /.exec(output)?.[1]
  const secret = /^(oat_\S+)/m.exec(output)?.[1]
  if (!id || !secret) throw new Error(`agents:mcp-token printed no token:\n${output}`)
  return { id, secret }
}

/** `agents:mcp-token <user> --revoke <id>` */
export function revokeToken(userId: number, id: string) {
  return fixtureAce(['agents:mcp-token', String(userId), '--revoke', id], ENV())
}

/**
 * An SDK client connected to the fixture's `/mcp` with `secret`. Close it.
 */
export async function mcpClient(baseUrl: string, secret: string, name = 'test-agent') {
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  })
  await client.connect(transport)
  return client
}

/** A tool call as a task (`params.task`): the task the server created */
export async function callAsTask(client: Client, name: string, args: Record<string, unknown>) {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: 3_600_000 } } },
    CreateTaskResultSchema
  )
  return created.task
}

/** `tasks/result` of a task: the tool's result once its row is settled */
export function taskResult(client: Client, taskId: string) {
  return client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)
}

/** The structured content of a tool result */
export function structured(result: unknown): Record<string, any> {
  return (result as { structuredContent: Record<string, any> }).structuredContent
}

/** Rows the MCP server opened (run-less, asked by a client) */
export async function mcpRows(): Promise<ToolCall[]> {
  return ToolCall.query()
    .whereNull('run_id')
    .where('tool_call_id', 'like', 'mcp:%')
    .orderBy('created_at')
}

/** How many rows MCP calls opened so far */
export async function mcpRowCount(): Promise<number> {
  const rows = await mcpRows()
  return rows.length
}

/** A task's status as `tasks/get` tells it */
export async function taskStatus(client: Client, taskId: string) {
  const task = await client.experimental.tasks.getTask(taskId)
  return task.status
}

/** A row's status in the database */
export async function rowStatus(rowId: string) {
  const row = await ToolCall.findOrFail(rowId)
  return row.status
}

/** The secret of a new token (`mcpToken`) */
export async function mcpSecret(userId: number, name: string) {
  const token = await mcpToken(userId, name)
  return token.secret
}
