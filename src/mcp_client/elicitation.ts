/*
 * One `elicitation/create` from an MCP server, answered in the inbox. Form
 * mode opens a question set (src/mcp maps the schema, with its defaults);
 * URL mode opens a yes/no row whose card carries the link: the person opens
 * it, and the row is settled when the server says the interaction completed
 * (`notifications/elicitation/complete`) or by the person (done, or
 * decline). The row waits like any other, and the request is answered when
 * it is settled, here or in another process.
 *
 * Nobody to answer (no owner, a child run) is `cancel` at once; a request
 * the inbox cannot ask (a nested property) is `decline`; a request the
 * server cancels, or a connection that closes, withdraws the row.
 */

import { questionSetFromElicitation } from '../mcp/to_questions.ts'
import { elicitationResultFromOutcome } from '../mcp/to_result.ts'
import type { ElicitationRequest, ElicitationResult } from '../mcp/types.ts'
import type { ToolWaits } from '../runtime/define_tool.ts'
import type { DecisionOutcome, QuestionOutcome } from '../questions/types.ts'
import debug from '../debug.ts'

/**
 * The params of `elicitation/create`, form or URL mode.
 */
export type ElicitParams =
  | (ElicitationRequest & { mode?: 'form' })
  | { mode: 'url'; message: string; url: string; elicitationId: string }

/**
 * URL-mode rows waiting for the server's completion, by elicitation id.
 */
export type UrlWaits = Map<string, { rowId: string; waits: ToolWaits }>

export type ElicitOptions = {
  /** Where rows are opened; undefined when nobody can answer */
  waits: ToolWaits | undefined
  /** Shown as the row's tool */
  toolName: string
  /** The server's name, recorded as who settled a completed URL row */
  server: string
  signal: AbortSignal
  urlWaits: UrlWaits
  pollInterval?: number
}

/**
 * Answers one elicitation through the inbox.
 */
export async function elicitThroughInbox(
  params: ElicitParams,
  options: ElicitOptions
): Promise<ElicitationResult> {
  const { waits } = options
  if (!waits) return { action: 'cancel' }

  if (params.mode === 'url') {
    const row = await waits.open({
      kind: 'action',
      toolName: options.toolName,
      args: { url: params.url },
      summary: params.message,
      link: params.url,
    })
    options.urlWaits.set(params.elicitationId, { rowId: row.id, waits })
    try {
      const settled = await awaitRow(row.id, options)
      const decision = settled?.outcome as DecisionOutcome | null | undefined
      if (!decision || settled?.status === 'cancelled' || decision.expired) {
        return { action: 'cancel' }
      }
      return { action: decision.approved ? 'accept' : 'decline' }
    } finally {
      options.urlWaits.delete(params.elicitationId)
    }
  }

  let set
  try {
    set = questionSetFromElicitation(params)
  } catch (error) {
    debug('elicitation the inbox cannot ask: %s', (error as Error).message)
    return { action: 'decline' }
  }
  const row = await waits.open({ kind: 'ask', set, toolName: options.toolName })
  const settled = await awaitRow(row.id, options)
  const outcome =
    settled && settled.status !== 'cancelled' && settled.status !== 'pending'
      ? (settled.outcome as QuestionOutcome)
      : null
  return elicitationResultFromOutcome(params, outcome)
}

/**
 * The row once settled; withdrawn (and null) when the server gave up first.
 */
async function awaitRow(rowId: string, options: ElicitOptions) {
  const { waits, signal } = options
  const row = await waits!.settled(rowId, { signal, interval: options.pollInterval })
  if (row?.status !== 'pending') return row
  await waits!.withdraw(rowId)
  return null
}

/**
 * The server says a URL-mode interaction completed: its row is settled as
 * approved, via `mcp`, which answers the request with `accept`.
 */
export async function completeUrlElicitation(urlWaits: UrlWaits, id: string, server: string) {
  const open = urlWaits.get(id)
  if (!open) return
  try {
    await open.waits.settle(open.rowId, { approved: true }, { by: `mcp:${server}`, via: 'mcp' })
  } catch (error) {
    // Settled by the person first: their answer stands
    debug('completion of elicitation %s: %s', id, (error as Error).message)
  }
}
