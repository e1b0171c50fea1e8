/*
 * The operator's console over HTTP: the page (Inertia when the app has
 * it, the same props as JSON otherwise) and its three actions. Only a
 * person the app's console ability allows gets past the door
 * (../console/access.ts); everyone else gets 403 E_NOT_AN_OPERATOR. Each
 * action goes the way the rest of the package goes: Retry and Cancel
 * through `agents.retry` and `agents.cancel`, Reassign through the
 * escalation ladder's reassignment (../inbox/reassign.ts), each writing
 * its audit entry naming the operator in the same transaction.
 */

import type { HttpContext } from '@adonisjs/core/http'
import { DateTime } from 'luxon'
import {
  E_NOT_AN_OPERATOR,
  E_NOT_FOUND,
  E_RUN_NOT_ACTIONABLE,
  HttpFacingException,
  InvalidQueryException,
  InvalidReplyException,
} from '../errors.ts'
import { isFinished } from '../persistence/models/agent_run.ts'
import { reassignRow } from '../inbox/reassign.ts'
import { readConsole } from '../console/read.ts'
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS } from '../console/figures.ts'
import {
  CONSOLE_PAGE,
  CONSOLE_ROUTES,
  type ConsoleActionResult,
  type ConsoleFeedback,
  type ConsoleProps,
} from '../console/props.ts'
import { runSummary } from './cards.ts'
import {
  inboxUrl,
  peopleOf,
  replyBody,
  requestOf,
  respond,
  uuidParam,
  visitorOf,
  wantsPage,
  type InertiaContext,
} from './visitor.ts'

/** The signed-in person, if the console's `authorize` lets them in; else 403 */
async function operatorOf(ctx: HttpContext) {
  const visitor = await visitorOf(ctx)
  const settings = await ctx.containerResolver.make('agents.console')
  if (!(await settings.authorize(ctx, visitor.person))) throw new E_NOT_AN_OPERATOR()
  return {
    visitor,
    settings,
    actor: { actor: visitor.person, channel: 'console', ...requestOf(ctx) },
  }
}

/** `?days=`: a whole number from 1 to MAX_WINDOW_DAYS, else E_INVALID_QUERY */
function windowDays(ctx: HttpContext): number {
  const { days } = ctx.request.qs()
  if (days === undefined) return DEFAULT_WINDOW_DAYS
  const value = typeof days === 'string' && /^\d+$/.test(days) ? Number(days) : Number.NaN
  if (value >= 1 && value <= MAX_WINDOW_DAYS) return value
  throw new InvalidQueryException([
    {
      field: 'days',
      message: `Give a whole number of days from 1 to ${MAX_WINDOW_DAYS}`,
      rule: 'range',
      meta: { min: 1, max: MAX_WINDOW_DAYS },
    },
  ])
}

/** What an action did: JSON for API clients, flashed to the page for Inertia visits and forms */
function answer(ctx: InertiaContext, done: ConsoleActionResult) {
  if (!wantsPage(ctx)) return done
  const feedback: ConsoleFeedback = { rowId: ctx.params.id ?? null, done }
  ctx.session?.flash(HttpFacingException.replyFlashKey, feedback)
  return ctx.response.redirect().back()
}

export default class ConsoleController {
  /**
   * The console: counts, charts and lists over the last `?days=` days.
   */
  async index(ctx: InertiaContext) {
    const { visitor, settings } = await operatorOf(ctx)
    const { overdueRecords, ...figures } = await readConsole({
      days: windowDays(ctx),
      overdueAfter: settings.overdueAfter,
      strandedFor: settings.strandedFor,
    })
    for (const [index, row] of overdueRecords.entries()) {
      figures.lists.overdueRows[index].assignees = await settings.assignees(row, ctx)
    }
    const { lists, charts } = figures
    const runs = [...lists.failedRuns, ...lists.strandedRuns, ...lists.waitingRuns]
    const flashed = ctx.session?.flashMessages.get(HttpFacingException.replyFlashKey, null)
    const router = await ctx.containerResolver.make('router')
    const props: ConsoleProps = {
      person: visitor.person,
      ...figures,
      people: await peopleOf(ctx, visitor, [
        ...runs.map((run) => run.ownerId),
        ...lists.overdueRows.flatMap((row) => [row.ownerId, ...row.approvers, ...row.assignees]),
        ...lists.failingDeliveries.map((delivery) => delivery.personId),
        ...charts.decisions.byApprover.map((entry) => entry.key),
      ]),
      consoleUrl: (router.urlBuilder.urlFor as unknown as (name: string) => string)(
        CONSOLE_ROUTES.index
      ),
      inboxUrl: await inboxUrl(ctx),
      feedback: flashed && typeof flashed === 'object' ? (flashed as ConsoleFeedback) : null,
    }
    return respond(ctx, CONSOLE_PAGE, props)
  }

  /** Retry: a failed run replays as a new attempt (`agents.retry`) */
  async retry(ctx: InertiaContext) {
    const { visitor, actor } = await operatorOf(ctx)
    const id = uuidParam(ctx.params.id, 'run')
    const run = await visitor.agents.run(id)
    if (!run) throw new E_NOT_FOUND([`No run ${id}`])
    if (run.status !== 'failed') throw new E_RUN_NOT_ACTIONABLE([id, run.status, 'retry'])
    const retried = await visitor.agents.retry(id, actor)
    return answer(ctx, { action: 'retry', run: runSummary(retried) })
  }

  /** Cancel: a run that has not finished is cancelled with its pending rows (`agents.cancel`) */
  async cancel(ctx: InertiaContext) {
    const { visitor, actor } = await operatorOf(ctx)
    const id = uuidParam(ctx.params.id, 'run')
    const run = await visitor.agents.run(id)
    if (!run) throw new E_NOT_FOUND([`No run ${id}`])
    if (isFinished(run.status)) throw new E_RUN_NOT_ACTIONABLE([id, run.status, 'cancel'])
    const cancelled = await visitor.agents.cancel(id, actor)
    return answer(ctx, { action: 'cancel', run: runSummary(cancelled) })
  }

  /** Reassign: a pending row goes to `to`, one of its assignees (the `console.assignees` hook) */
  async reassign(ctx: InertiaContext) {
    const { visitor, settings, actor } = await operatorOf(ctx)
    const id = uuidParam(ctx.params.id, 'row')
    const { to } = replyBody(ctx)
    const row = await visitor.agents.inbox.find(id)
    if (!row) throw new E_NOT_FOUND([`No row ${id}`])
    const assignees = row.status === 'pending' ? await settings.assignees(row, ctx) : []
    if (typeof to !== 'string' || (row.status === 'pending' && !assignees.includes(to))) {
      throw new InvalidReplyException([
        {
          path: 'to',
          message: 'must be one of the people this row may be reassigned to',
          rule: 'enum',
          meta: { choices: assignees },
        },
      ])
    }
    const done = await reassignRow(row.id, [to], {
      now: DateTime.now(),
      actor,
      notify: settings.notify,
    })
    return answer(ctx, {
      action: 'reassign',
      row: { id: row.id, ownerId: done.row.ownerId, from: done.from },
    })
  }
}
