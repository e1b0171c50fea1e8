/*
 * What happened after a person answered: a run's page (its timeline: what
 * the agent did, asked and was answered, which tool ran with which args and
 * what it returned, and how the run ended) and the history (settled rows
 * and finished runs, filtered, a page at a time). Inertia pages for Inertia
 * visits and browsers, JSON for API clients. A person sees only the runs
 * and rows the access hooks let them see (./access.ts).
 */

import { AgentRun, FINISHED_RUN_STATUSES } from '../persistence/models/agent_run.ts'
import { rowCard, runSummary } from './cards.ts'
import { readHistoryQuery, ROW_KINDS, SETTLED_ROW_STATUSES } from './history_query.ts'
import { rowsTimeline, runTimeline, timelinePeople } from './timeline.ts'
import { auditPeople, withAudit } from './timeline_audit.ts'
import { runEvents } from '../inbox/audit_log.ts'
import { quorumVotes } from '../inbox/votes.ts'
import { changedRows } from '../runtime/changed_rows.ts'
import { rowsInSight, runInSight } from './run_sight.ts'
import { inboxUrl, peopleOf, respond, visitorOf, type InertiaContext } from './visitor.ts'

/** The Inertia pages the app receives as stubs */
export const RUN_PAGE = 'agent_inbox/run'
export const HISTORY_PAGE = 'agent_inbox/history'

export default class RunsController {
  /**
   * A run's timeline, for the people who may see it: all of it, or only the
   * rows they decide (`sight: 'rows'`: ./run_sight.ts).
   */
  async show(ctx: InertiaContext) {
    const visitor = await visitorOf(ctx)
    const { run, rows, journal, effects, sight, shown } = await runInSight(ctx, visitor)
    const votes = await quorumVotes(shown)
    const changes = await changedRows(visitor.agents, shown, new Map([[run.id, run]]))
    const whole = withAudit(
      runTimeline(run, rows, journal, effects, votes, changes),
      await runEvents(run.id)
    )
    const timeline =
      sight === 'run' ? whole : rowsTimeline(whole, new Set(shown.map((row) => row.id)))
    return respond(ctx, RUN_PAGE, {
      person: visitor.person,
      sight,
      timeline,
      people: await peopleOf(ctx, visitor, [...timelinePeople(timeline), ...auditPeople(timeline)]),
      inboxUrl: await inboxUrl(ctx),
    })
  }

  /**
   * Settled rows (`?view=rows`, the default) or finished runs
   * (`?view=runs`) the person may see, newest first, filtered by `agent`,
   * `status`, `kind` and `by` (who settled; rows only), `from` and `to`
   * (days, UTC), a page at a time (`limit`, `cursor`).
   */
  async history(ctx: InertiaContext) {
    const visitor = await visitorOf(ctx)
    const { agents, access, person } = visitor
    const query = await readHistoryQuery(ctx.request.qs())
    const { filters } = query
    const shared = {
      person,
      filters,
      // What the filters offer: the agents, and the statuses and kinds the query takes
      agents: [...agents.definitions.keys()].sort(),
      statuses: filters.view === 'rows' ? SETTLED_ROW_STATUSES : FINISHED_RUN_STATUSES,
      kinds: ROW_KINDS,
      inboxUrl: await inboxUrl(ctx),
    }

    if (filters.view === 'runs') {
      const page = await agents.runs({
        agent: filters.agent,
        statuses: query.statuses as AgentRun['status'][] | undefined,
        finishedFrom: query.range.from,
        finishedBefore: query.range.before,
        narrow: (runs) => access.scopeRuns(runs, ctx, person),
        limit: query.limit,
        cursor: query.cursor,
      })
      const runs = page.rows.map((run) => runSummary(run))
      const people = await peopleOf(
        ctx,
        visitor,
        runs.map((run) => run.ownerId)
      )
      return respond(ctx, HISTORY_PAGE, { ...shared, runs, rows: [], next: page.next, people })
    }

    const page = await rowsInSight(ctx, visitor, {
      status: 'settled',
      agent: filters.agent,
      kinds: filters.kind ? [filters.kind] : undefined,
      statuses: query.statuses as NonNullable<Parameters<typeof agents.inbox.list>[0]['statuses']>,
      settledBy: filters.by,
      settledFrom: query.range.from,
      settledBefore: query.range.before,
      limit: query.limit,
      cursor: query.cursor,
    })
    const runIds = [...new Set(page.rows.flatMap((row) => (row.runId ? [row.runId] : [])))]
    const runs = runIds.length ? await AgentRun.query().whereIn('id', runIds) : []
    const byId = new Map(runs.map((run) => [run.id, runSummary(run)]))
    const votes = await quorumVotes(page.rows)
    const rows = page.rows.map((row) => ({
      card: rowCard(row, undefined, votes.get(row.id)),
      run: row.runId ? (byId.get(row.runId) ?? null) : null,
    }))
    const people = await peopleOf(ctx, visitor, [
      ...page.rows.map((row) => row.answeredBy),
      // Only people on the rows shown: a `by` filter names nobody the rows do not
      ...runs.map((run) => run.ownerId),
    ])
    return respond(ctx, HISTORY_PAGE, { ...shared, rows, runs: [], next: page.next, people })
  }
}
