/*
 * The inbox over HTTP: the page of pending rows (Inertia when the app has
 * it, JSON for API clients), a row's detail with its run's record,
 * recently settled rows, the reply endpoint and bulk decisions. It stays at
 * the door (./visitor.ts: who is asking, what they may see, what the
 * request says), then the inbox or the runtime does the work. Every reply
 * goes through `inbox.settle` (or `settleEach`), so the web, the terminal
 * and the API leave the same record in the audit log.
 *
 * Errors are not caught here: the package's HTTP-facing exceptions
 * (../errors.ts) render themselves when the app's exception handler calls
 * their `handle`, with their own status and body.
 */

import type { HttpContext } from '@adonisjs/core/http'
import { E_SETTLE_FAILED, HttpFacingException, InvalidReplyException } from '../errors.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { isRowId, ToolCall } from '../persistence/models/tool_call.ts'
import { approverOf, quorumVotes } from '../inbox/votes.ts'
import { grantJson, grantsOf } from '../inbox/grants.ts'
import debug from '../debug.ts'
import { changedRows } from '../runtime/changed_rows.ts'
import {
  groupByRun,
  rowCard,
  runSummary,
  settlement,
  type BulkResult,
  type ReplyFeedback,
  type RunSummary,
} from './cards.ts'
import { rowsInSight, sightOfRun } from './run_sight.ts'
import {
  authorizedRow,
  authorizedRows,
  channelOf,
  feedbackPeople,
  inboxUrl,
  pageParams,
  peopleOf,
  replyBody,
  replyEnvelope,
  renderPage,
  replyFeedback,
  requestOf,
  visitorOf,
  wantsPage,
  type InertiaContext,
  type Visitor,
} from './visitor.ts'

/** The Inertia page the app receives as a stub */
export const INBOX_PAGE = 'agent_inbox/index'

/**
 * The header the inbox page names the runs of its just-settled cards in,
 * to learn their status on each reload (the pending listing no longer
 * holds them).
 */
export const WATCHED_RUNS_HEADER = 'x-agent-inbox-runs'

/** How many runs a page may watch */
const MAX_WATCHED = 50

/** Rows one bulk decision may settle */
export const MAX_BULK_ROWS = 100

/**
 * The runs the page watches (WATCHED_RUNS_HEADER) whose status the visitor
 * sees: those they may read (`access.scopeRuns`) and those with a row
 * they were asked to decide (./run_sight.ts), by id: a query each, and one
 * more for those `waiting`, whose pending rows tell whether they still
 * wait for someone (a run whose last row was just settled shows
 * `running`: `runSummary`).
 */
async function watchedRuns(ctx: HttpContext, { access, person }: Visitor) {
  const header = ctx.request.header(WATCHED_RUNS_HEADER) ?? ''
  const ids = [...new Set(header.split(',').map((id) => id.trim()))].filter(isRowId)
  if (ids.length === 0) return {}
  const wanted = ids.slice(0, MAX_WATCHED)
  const readable = AgentRun.query().whereIn('id', wanted)
  await access.scopeRuns(readable, ctx, person)
  const asked = ToolCall.query().select('run_id')
  approverOf(person)(asked)
  const deciding = AgentRun.query().whereIn('id', wanted).whereIn('id', asked)
  const found = [...(await readable), ...(await deciding)]
  const runs = [...new Map(found.map((run) => [run.id, run])).values()]
  const waiting = runs.filter((run) => run.status === 'waiting').map((run) => run.id)
  const stillPending =
    waiting.length === 0
      ? []
      : await ToolCall.query()
          .whereIn('run_id', waiting)
          .where('status', 'pending')
          .distinct('run_id')
          .pojo<{ run_id: string }>()
  const pending = new Set(stillPending.map((row) => row.run_id))
  return Object.fromEntries(
    runs.map((run) => [run.id, runSummary(run, { hasPending: pending.has(run.id) })])
  )
}

/**
 * The row ids of a bulk decision's body (`rowIds`), each once, or
 * E_INVALID_REPLY.
 */
function bulkRowIds(ids: unknown): string[] {
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > MAX_BULK_ROWS ||
    ids.some((id) => typeof id !== 'string')
  ) {
    throw new InvalidReplyException([
      {
        path: 'rowIds',
        message: `must list from 1 to ${MAX_BULK_ROWS} row ids`,
        rule: 'rowIds',
        meta: { min: 1, max: MAX_BULK_ROWS },
      },
    ])
  }
  return [...new Set(ids as string[])]
}

/**
 * The digests a bulk decision names, by row id (`digests`), or
 * E_INVALID_REPLY.
 */
function bulkDigests(digests: unknown): Record<string, string> {
  const valid =
    typeof digests === 'object' &&
    digests !== null &&
    !Array.isArray(digests) &&
    Object.values(digests).every((digest) => typeof digest === 'string')
  if (!valid) {
    throw new InvalidReplyException([
      {
        path: 'digests',
        message: 'must name the digest of each row as shown, by row id',
        rule: 'digests',
      },
    ])
  }
  return digests as Record<string, string>
}

export default class InboxController {
  /**
   * Pending rows the person may settle, oldest first, grouped by run, a
   * page at a time (`?limit=`, and `?cursor=` takes the `next` of the
   * previous page), each approval with the JSON Schema of its args; the
   * runs the page watches; and the names of the people shown.
   */
  async index(ctx: InertiaContext) {
    const visitor = await visitorOf(ctx)
    const { agents, person } = visitor
    const params = pageParams(ctx)
    // Rows the person is an approver of are listed too, wherever the scope puts them
    const { rows, next } = await rowsInSight(ctx, visitor, { status: 'pending', ...params })
    const runIds = rows.flatMap((row) => (row.runId ? [row.runId] : []))
    const runs = runIds.length ? await AgentRun.query().whereIn('id', runIds) : []
    const byId = new Map(runs.map((run) => [run.id, run]))
    const votes = await quorumVotes(rows)
    const groups = groupByRun(
      rows,
      byId,
      (row, run) => agents.inputSchema(run?.agent, row.toolName),
      votes,
      await changedRows(agents, rows, byId)
    )
    const watched: Record<string, RunSummary> = await watchedRuns(ctx, visitor)
    const page = wantsPage(ctx)
    const feedback = page ? replyFeedback(ctx) : null
    const people = await peopleOf(ctx, visitor, [
      ...groups.map((group) => group.run?.ownerId),
      ...groups
        .flatMap((group) => group.rows.flatMap((card) => card.quorum?.votes ?? []))
        .map((vote) => vote.personId),
      ...Object.values(watched).map((run) => run.ownerId),
      ...feedbackPeople(feedback),
    ])
    const live = await grantsOf(person)
    const grants = live.map(grantJson)
    const listing = { person, groups, next, runs: watched, people, grants }
    if (!page) return listing
    return renderPage(ctx, INBOX_PAGE, {
      ...listing,
      feedback,
      inboxUrl: await inboxUrl(ctx),
    })
  }

  /**
   * Rows settled lately that the person may see (those they were asked to
   * decide among them), newest first, a page at a time.
   */
  async settled(ctx: HttpContext) {
    const visitor = await visitorOf(ctx)
    const { rows, next } = await rowsInSight(ctx, visitor, {
      status: 'settled',
      ...pageParams(ctx),
    })
    const votes = await quorumVotes(rows)
    return { rows: rows.map((row) => rowCard(row, undefined, votes.get(row.id))), next }
  }

  /**
   * One row with its run's record: the conversation, every tool call,
   * and who settled what, via what, when. Someone who decides the row but
   * may not read its run (`sight: 'rows'`: ./run_sight.ts) gets the rows of
   * it they decide and the run's summary, not its input, journal or result.
   */
  async show(ctx: HttpContext) {
    const visitor = await visitorOf(ctx)
    const row = await authorizedRow(ctx, visitor)
    // A wait opened outside the runtime has no run to tell
    if (!row.runId) {
      const votes = await quorumVotes([row])
      const card = rowCard(row, undefined, votes.get(row.id))
      const people = await peopleOf(ctx, visitor, [row.ownerId, row.answeredBy])
      return { row: card, sight: 'rows', run: null, rows: [card], journal: [], people }
    }
    const { run, rows, journal } = await visitor.agents.runRecord(row.runId)
    const seen = await sightOfRun(ctx, visitor, run, rows)
    // They may decide this row (authorizedRow): it is theirs to see whatever the rest
    const sight = seen.sight ?? 'rows'
    const shown = seen.rows.some((item) => item.id === row.id) ? seen.rows : [row, ...seen.rows]
    // One read of the votes, and one reading of what changed, for the rows shown
    const votes = await quorumVotes(shown)
    const changes = await changedRows(visitor.agents, shown, new Map([[run.id, run]]))
    const whole = sight === 'run'
    const people = await peopleOf(ctx, visitor, [
      run.ownerId,
      ...shown.map((item) => item.answeredBy),
    ])
    return {
      row: rowCard(row, undefined, votes.get(row.id), changes.get(row.id)),
      sight,
      run: {
        ...runSummary(run),
        result: whole ? run.result : null,
        error: whole ? run.error : null,
        // A drive that failed (the run is resumed by the periodic recovery)
        lastError: whole ? run.lastError : null,
        lastErrorAt: whole ? (run.lastErrorAt?.toISO() ?? null) : null,
      },
      rows: shown.map((item) => rowCard(item, undefined, votes.get(item.id), changes.get(item.id))),
      journal: whole
        ? journal.map((entry) => ({
            sequence: entry.sequence,
            kind: entry.kind,
            payload: entry.payload,
            createdAt: entry.createdAt?.toISO() ?? null,
          }))
        : [],
      people,
    }
  }

  /**
   * Settles a row with the request body as the reply.
   */
  async reply(ctx: InertiaContext) {
    const visitor = await visitorOf(ctx)
    const row = await authorizedRow(ctx, visitor)
    const { reply, view, grant } = replyEnvelope(replyBody(ctx))
    const settled = await visitor.agents.inbox.settle(row, reply, {
      by: visitor.person,
      via: channelOf(ctx),
      view,
      requireView: true,
      grant,
      ...requestOf(ctx),
    })
    const byRow = await quorumVotes([settled])
    const votes = byRow.get(settled.id)
    if (wantsPage(ctx)) {
      // The page shows who settled the row, via what and when, as recorded; or that a vote counted
      const feedback: ReplyFeedback =
        settled.status === 'pending'
          ? { rowId: settled.id, voted: rowCard(settled, undefined, votes).quorum }
          : { rowId: settled.id, settled: settlement(settled) }
      ctx.session?.flash(HttpFacingException.replyFlashKey, feedback)
      return ctx.response.redirect().back()
    }
    return { row: rowCard(settled, undefined, votes) }
  }

  /**
   * Settles several rows with one reply: `{ rowIds, ...reply }`, where the
   * reply approves, rejects (one reason for all), confirms every default
   * (`answers: {}`) or skips. Each row is settled by its own conditional
   * update; the answer lists what became of each, in order (a 409 for a
   * row someone settled first, a 403/404 for one the person may not
   * see), and each run resumes once.
   */
  async bulk(ctx: InertiaContext) {
    const visitor = await visitorOf(ctx)
    const { rowIds, digests, ...body } = replyBody(ctx)
    const ids = bulkRowIds(rowIds)
    const views = bulkDigests(digests)
    const { reply, grant } = replyEnvelope(body)
    if (grant !== undefined) {
      throw new InvalidReplyException([
        { path: 'grant', message: 'remember approvals one row at a time', rule: 'oneRow' },
      ])
    }
    const { allowed, refused } = await authorizedRows(ctx, visitor, ids)
    const settled = await visitor.agents.inbox.settleEach([...allowed.values()], reply, {
      by: visitor.person,
      via: channelOf(ctx),
      views,
      requireView: true,
      ...requestOf(ctx),
    })
    const outcomes = new Map(settled.map((outcome) => [outcome.rowId, outcome]))
    const i18n = HttpFacingException.translatorOf(ctx)
    const results: BulkResult[] = ids.map((rowId) => {
      const outcome = outcomes.get(rowId)
      if (outcome && 'row' in outcome) {
        if (outcome.row.status === 'pending') return { rowId, voted: true }
        return { rowId, settled: settlement(outcome.row) }
      }
      const error = refused.get(rowId) ?? outcome?.error
      if (error instanceof HttpFacingException) return { rowId, error: error.errorReport(i18n) }
      debug('bulk settle of row %s failed %O', rowId, error)
      ctx.logger.error({ err: error, rowId }, 'agent inbox: a bulk decision failed on a row')
      return { rowId, error: new E_SETTLE_FAILED().errorReport(i18n) }
    })
    if (wantsPage(ctx)) {
      const feedback: ReplyFeedback = { rowId: null, bulk: results }
      ctx.session?.flash(HttpFacingException.replyFlashKey, feedback)
      return ctx.response.redirect().back()
    }
    return { results }
  }
}
