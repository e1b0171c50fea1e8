/*
 * How much of a run the visitor sees, asked the same way by the row
 * detail, the run page and the history, and which rows the listings show
 * them (those `scope` lets through, and those they were asked to decide):
 * the rule is `runSight`
 * (../governance/view.ts, docs/design.md §11.6); this module asks the
 * access hooks what it needs (`authorizeRun` for the whole run, `mayDecide`
 * for each row) and the agent what it shows its approvers.
 */

import type { HttpContext } from '@adonisjs/core/http'
import { E_FORBIDDEN } from '../errors.ts'
import { runSight, type RunSight } from '../governance/view.ts'
import type { AgentRun } from '../persistence/models/agent_run.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { unionPages } from '../persistence/keyset.ts'
import { approverOf } from '../inbox/votes.ts'
import type { InboxQuery } from '../inbox/list.ts'
import { mayDecide, uuidParam, visitorOf, type Visitor } from './visitor.ts'

/** The run channels a request was let watch, so the guard and Transmit ask once */
const watching = new WeakMap<HttpContext, string>()

/**
 * Lets the person of `ctx` watch run `runId` live (its Transmit channel,
 * where a streaming step's text goes), as its page would let them read
 * it: the whole run (`sight` 'run'), not the rows only an approver sees.
 * Else E_FORBIDDEN (a guest, another person, an approver of some rows)
 * or E_NOT_FOUND (no such run).
 */
export async function watchableRun(ctx: HttpContext, runId: string): Promise<void> {
  if (watching.get(ctx) === runId) return
  const { sight } = await runInSight(ctx, await visitorOf(ctx), runId)
  if (sight !== 'run') throw new E_FORBIDDEN()
  watching.set(ctx, runId)
}

/**
 * What the visitor sees of `run`, whose rows are `rows`: `sight` (null:
 * nothing, the caller answers 403) and the rows it lets them see (all of
 * them, or those they may decide). Each row is asked about only for
 * someone who may not read the run.
 *
 * @example
 * const { sight, rows: shown } = await sightOfRun(ctx, visitor, run, rows)
 */
export async function sightOfRun(
  ctx: HttpContext,
  visitor: Visitor,
  run: AgentRun,
  rows: ToolCall[]
): Promise<{ sight: RunSight | null; rows: ToolCall[] }> {
  const readsRun = await visitor.access.authorizeRun(ctx, run, visitor.person)
  const decided: ToolCall[] = []
  if (!readsRun) for (const row of rows) if (await mayDecide(ctx, visitor, row)) decided.push(row)
  const sight = runSight(
    { readsRun, decidesRows: decided.length > 0 },
    visitor.agents.definitions.get(run.agent)?.approversSee
  )
  return { sight, rows: sight === 'run' ? rows : decided }
}

/**
 * The run of `:id` (or `id`) with its record, if the visitor may see something of
 * it (`sight`, and the rows it shows them), else E_NOT_FOUND / E_FORBIDDEN.
 * Run ids are UUIDs: anything else is no run, never a query (`uuidParam`).
 */
export async function runInSight(ctx: HttpContext, visitor: Visitor, id: unknown = ctx.params.id) {
  // E_NOT_FOUND for a run that is not there
  const record = await visitor.agents.runRecord(uuidParam(id, 'run'))
  const { sight, rows } = await sightOfRun(ctx, visitor, record.run, record.rows)
  if (!sight) throw new E_FORBIDDEN()
  return { ...record, sight, shown: rows }
}

/**
 * A page of the rows the visitor sees in a listing (the inbox, the rows
 * settled lately, the history): those `scope` lets through, and those
 * they were asked to decide (`approverOf`) wherever the scope puts them,
 * merged in the listing's order.
 *
 * @example
 * const { rows, next } = await rowsInSight(ctx, visitor, { status: 'pending', limit: 20 })
 */
export async function rowsInSight(
  ctx: HttpContext,
  { agents, access, person }: Visitor,
  query: Omit<InboxQuery, 'narrow'>
) {
  const pending = query.status === 'pending'
  const pages = [
    await agents.inbox.list({ ...query, narrow: (rows) => access.scope(rows, ctx, person) }),
    await agents.inbox.list({ ...query, narrow: approverOf(person) }),
  ]
  return unionPages(pages, {
    attribute: pending ? 'createdAt' : 'settledAt',
    direction: pending ? 'asc' : 'desc',
    limit: query.limit,
  })
}
