/*
 * The MCP server of one authenticated request (the SDK's low-level
 * `Server`): `tools/list`, `tools/call` for the three tools, and the task
 * requests answered from the rows (task_store.ts). The transport is
 * stateless (a server per request, no session to lose), so any process
 * answers any request of a client, and 50 clients are 50 requests.
 *
 * A task-augmented call (`params.task`) returns the row as a task at once;
 * a plain call waits up to `mcp.wait` for the answer and otherwise returns
 * "still pending" with the row's id, for `get_answer`.
 */

import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Inbox } from '../inbox/inbox.ts'
import type { QuestionLimits } from '../questions/types.ts'
import type { McpClient, ResolvedMcpConfig } from './config.ts'
import { openApproval, openAsk, type AskContext, type Opened } from './asks.ts'
import { rowResult, rowTask, toolError, type ToolResult } from './results.ts'
import { askedRow, rowTaskStore } from './task_store.ts'
import {
  approvalInput,
  askInput,
  ASK_HUMAN,
  GET_ANSWER,
  REQUEST_APPROVAL,
  toolList,
} from './tools.ts'

export type McpServerContext = AskContext & { limits: Partial<QuestionLimits> }

/**
 * A server for one request of `client`.
 */
export function inboxMcpServer(context: McpServerContext) {
  const { inbox, config, client } = context
  const server = new Server(
    { name: 'adonis-agent-inbox', title: 'Team inbox', version: '1' },
    {
      capabilities: {
        tools: {},
        tasks: { cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: rowTaskStore(inbox, client, config.pollInterval),
      defaultTaskPollInterval: config.pollInterval,
      instructions:
        'Ask a person of this team through its inbox: ask_human for questions, request_approval before a risky action.',
    }
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList(context.limits) }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<any> => {
    const { name, arguments: input, task } = request.params
    if (name === GET_ANSWER) return collect(inbox, client, input?.id, config, extra.signal)
    const opened = await openFor(context, name, input)
    if ('error' in opened) return toolError(opened.error)
    if (task) return { task: rowTask(opened.row, config.pollInterval) }
    return awaited(inbox, opened.row.id, config, extra.signal, () => rowResult(opened.row))
  })
  return server
}

async function openFor(context: McpServerContext, name: string, input: unknown): Promise<Opened> {
  if (name === ASK_HUMAN) {
    const ask = await askInput(input, context.limits)
    return 'error' in ask ? ask : openAsk(context, ask.set, ask.to)
  }
  if (name === REQUEST_APPROVAL) {
    const action = approvalInput(input)
    return 'error' in action ? action : openApproval(context, action)
  }
  return {
    error: `No tool named "${name}": call ${ASK_HUMAN}, ${REQUEST_APPROVAL} or ${GET_ANSWER}`,
  }
}

/**
 * The row's answer once settled, or "still pending" after `config.wait`.
 */
async function awaited(
  inbox: Inbox,
  rowId: string,
  config: ResolvedMcpConfig,
  signal: AbortSignal,
  fallback: () => ToolResult
): Promise<ToolResult> {
  const row = await inbox.settled(rowId, {
    signal: AbortSignal.any([signal, AbortSignal.timeout(config.wait)]),
    interval: config.pollInterval,
  })
  return row ? rowResult(row) : fallback()
}

/**
 * `get_answer`: the answer of a row this client's user opened; any other
 * id, a row of someone else's included, reads as not found.
 */
async function collect(
  inbox: Inbox,
  client: McpClient,
  id: unknown,
  config: ResolvedMcpConfig,
  signal: AbortSignal
): Promise<ToolResult> {
  const row = typeof id === 'string' ? await askedRow(inbox, client, id) : null
  if (!row) return toolError(`No request of yours with the id ${JSON.stringify(id ?? null)}.`)
  if (row.status !== 'pending') return rowResult(row)
  return awaited(inbox, row.id, config, signal, () => rowResult(row))
}
