/*
 * MCP tasks (the 2025-11-25 revision's experimental `tasks`, as
 * `@modelcontextprotocol/sdk` 1.x implements them) kept in the inbox's
 * rows: a task is the row its call opened, its id the row's id, its status
 * the row's (results.ts `rowTask`). Nothing lives in memory, so a client
 * that reconnects — to this process or another, before or after a
 * restart — polls `tasks/get` and collects `tasks/result` from the row.
 *
 * A store serves one authenticated request and is bound to its client's
 * user, not to an MCP session: a task is found for the user whose client
 * opened it (config.ts `askerTag`), and for nobody else.
 */

import type { Inbox } from '../inbox/inbox.ts'
import { askerPrefix, type McpClient } from './config.ts'
import { rowResult, rowTask } from './results.ts'

/**
 * The row `rowId` if `client`'s user opened it through the MCP server,
 * else null: a forged id reads nothing.
 */
export async function askedRow(inbox: Inbox, client: McpClient, rowId: string) {
  const row = await inbox.find(rowId)
  if (!row || row.runId !== null) return null
  return row.toolCallId?.startsWith(askerPrefix(client.userId)) ? row : null
}

/**
 * The task store of one request (the SDK's `TaskStore`). Tasks are created
 * by the tool handler opening its row, never through the store, and
 * finished by a person settling the row: `createTask` and
 * `storeTaskResult` refuse. Cancelling a task withdraws its row.
 */
export function rowTaskStore(inbox: Inbox, client: McpClient, pollInterval: number) {
  const mine = (rowId: string) => askedRow(inbox, client, rowId)
  return {
    async createTask(): Promise<never> {
      throw new Error('Tasks of the inbox are opened by its tools')
    },
    async storeTaskResult(): Promise<void> {
      throw new Error('A task of the inbox is finished by settling its row')
    },
    async getTask(taskId: string) {
      const row = await mine(taskId)
      return row ? rowTask(row, pollInterval) : null
    },
    async getTaskResult(taskId: string) {
      const row = await mine(taskId)
      if (!row) throw new Error(`Task not found: ${taskId}`)
      return rowResult(row)
    },
    async updateTaskStatus(taskId: string, status: string) {
      const row = await mine(taskId)
      if (row && status === 'cancelled') await inbox.withdraw(row.id)
    },
    // The server does not offer `tasks/list`: a client keeps the ids it was given
    async listTasks() {
      return { tasks: [] }
    },
  }
}
