/*
 * Health checks for `@adonisjs/health` (docs/guides/operating.md): what an
 * operator's health route reports of the package. Each check reads the
 * database with one or two index-backed queries and hands what it found
 * to its verdict (./verdicts.ts). How late is too late comes from the
 * app's `config/agents.ts` (how often the sweep and recovery run), unless
 * given: an app that sweeps by cron says how often.
 */

import { DateTime } from 'luxon'
import { configProvider } from '@adonisjs/core'
import app from '@adonisjs/core/services/app'
import { BaseCheck, Result } from '@adonisjs/core/health'
import type { HealthCheckResult } from '@adonisjs/core/types/health'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { AgentEffect } from '../persistence/models/agent_effect.ts'
import { Notification } from '../persistence/models/notification.ts'
import { preparedColumns } from '../persistence/prepared_columns.ts'
import { strandedHalves } from '../runtime/stranded.ts'
import type { ResolvedAgentInboxConfig } from '../types/main.ts'
import { lastBeat } from './heartbeat.ts'
import {
  outboxVerdict,
  overdueVerdict,
  strandedVerdict,
  sweepVerdict,
  type Late,
  type Verdict,
} from './verdicts.ts'

export type AgentHealthOptions = {
  /**
   * How often the sweep runs (ms): the config's `sweepInterval` unless
   * given. Give it when the sweep runs by cron (`node ace agents:sweep`)
   * and `sweepInterval` is 0.
   */
  sweepEvery?: number
  /** How often recovery runs (ms): the config's `recoverInterval` unless given */
  recoverEvery?: number
}

type Intervals = { sweepEvery: number; recoverEvery: number }

let configured: Promise<Intervals> | undefined

/** The intervals of the app's config, resolved once */
function configuredIntervals(): Promise<Intervals> {
  configured ??= configProvider
    .resolve<ResolvedAgentInboxConfig>(app, app.config.get('agents', {}))
    .then((config) => ({
      sweepEvery: config?.sweepInterval ?? 30_000,
      recoverEvery: config?.recoverInterval ?? 60_000,
    }))
  return configured
}

/** A check of the package: its intervals, and its verdict as a Result */
abstract class AgentCheck extends BaseCheck {
  constructor(protected options: AgentHealthOptions = {}) {
    super()
  }

  protected async intervals(): Promise<Intervals> {
    const { sweepEvery, recoverEvery } = this.options
    if (sweepEvery !== undefined && recoverEvery !== undefined) return { sweepEvery, recoverEvery }
    const config = await configuredIntervals()
    return {
      sweepEvery: sweepEvery || config.sweepEvery,
      recoverEvery: recoverEvery || config.recoverEvery,
    }
  }

  protected abstract verdict(now: DateTime): Promise<Verdict>

  async run(): Promise<HealthCheckResult> {
    let verdict: Verdict
    try {
      verdict = await this.verdict(DateTime.now())
    } catch (error) {
      return Result.failed(`${this.name}: the check could not read the database`, error as Error)
    }
    const result =
      verdict.status === 'ok'
        ? Result.ok(verdict.message)
        : verdict.status === 'warning'
          ? Result.warning(verdict.message)
          : Result.failed(verdict.message)
    return verdict.meta ? result.setMetaData(verdict.meta) : result
  }
}

/** A time as the dialect compares it in a where clause */
function before(now: DateTime, ms: number): string | Date {
  const at = DateTime.fromMillis(now.toMillis() - ms)
  return preparedColumns(new AgentRun(), { updatedAt: at }).updated_at
}

/** How many rows a query reads */
async function countOf(query: { clone(): any }): Promise<number> {
  const [counted] = await query.clone().count('* as total')
  return Number(counted.$extras.total)
}

/** How many of a query's rows, and the oldest by `column` */
async function late<Row extends { [key: string]: any }>(
  query: { clone(): any },
  attribute: string,
  column: string
): Promise<Late & { row: Row | null }> {
  const [count, oldest] = await Promise.all([
    countOf(query),
    query.clone().orderBy(column, 'asc').first(),
  ])
  return { count, oldest: oldest?.[attribute] ?? null, row: oldest }
}

/**
 * The sweep ran within three of its intervals (its heartbeat).
 */
export class AgentSweepCheck extends AgentCheck {
  name = 'Agent inbox: sweep'

  protected async verdict(now: DateTime) {
    const { sweepEvery } = await this.intervals()
    return sweepVerdict(await lastBeat('sweep'), now, sweepEvery)
  }
}

/**
 * No run is stranded longer than two recovery intervals: leased to a dead
 * process, queued with no worker taking it, or settled and never resumed.
 */
export class AgentStrandedRunsCheck extends AgentCheck {
  name = 'Agent inbox: stranded runs'

  protected async verdict(now: DateTime) {
    const { recoverEvery } = await this.intervals()
    const grace = 2 * recoverEvery
    const halves = strandedHalves({ now, quietFor: grace })
    const [leased, waiting] = await Promise.all(
      halves.map((half) => late(half, 'updatedAt', 'updated_at'))
    )
    const oldest = [leased.oldest, waiting.oldest]
      .filter((at): at is DateTime => at !== null)
      .sort((a, b) => a.toMillis() - b.toMillis())[0]
    const stranded = { count: leased.count + waiting.count, oldest: oldest ?? null }
    return strandedVerdict(stranded, now, grace)
  }
}

/**
 * No pending row is past its expiry or its ladder's next step by more than
 * three sweep intervals.
 */
export class AgentOverdueRowsCheck extends AgentCheck {
  name = 'Agent inbox: overdue rows'

  protected async verdict(now: DateTime) {
    const { sweepEvery } = await this.intervals()
    const grace = 3 * sweepEvery
    const cutoff = before(now, grace)
    const pending = () => ToolCall.query().where('status', 'pending')
    const [count, expired, escalating] = await Promise.all([
      countOf(
        pending().where((due) =>
          due.where('expires_at', '<', cutoff).orWhere('ladder_due_at', '<', cutoff)
        )
      ),
      pending().where('expires_at', '<', cutoff).orderBy('expires_at').first(),
      pending().where('ladder_due_at', '<', cutoff).orderBy('ladder_due_at').first(),
    ])
    const dues = [expired?.expiresAt, escalating?.ladderDueAt].filter(
      (at): at is DateTime => at instanceof DateTime
    )
    const oldest = dues.sort((a, b) => a.toMillis() - b.toMillis())[0] ?? null
    return overdueVerdict({ count, oldest }, now, grace)
  }
}

/**
 * The notification and effect outboxes drain: nothing due for longer than
 * three sweep intervals (and two recovery intervals) is left unsent.
 */
export class AgentOutboxCheck extends AgentCheck {
  name = 'Agent inbox: outboxes'

  protected async verdict(now: DateTime) {
    const { sweepEvery, recoverEvery } = await this.intervals()
    const grace = Math.max(3 * sweepEvery, 2 * recoverEvery)
    const cutoff = before(now, grace)
    const [notifications, effects] = await Promise.all([
      late<Notification>(
        Notification.query().whereNull('sent_at').where('due_at', '<', cutoff),
        'dueAt',
        'due_at'
      ),
      late<AgentEffect>(
        AgentEffect.query().where('status', 'pending').where('available_at', '<', cutoff),
        'availableAt',
        'available_at'
      ),
    ])
    return outboxVerdict(
      {
        notifications: { ...notifications, lastError: notifications.row?.lastError },
        effects: { ...effects, lastError: effects.row?.lastError },
      },
      now,
      grace
    )
  }
}

/**
 * The package's health checks, for the app's `start/health.ts`.
 *
 * @example
 * export const healthChecks = new HealthChecks().register([
 *   new DiskSpaceCheck(),
 *   ...agentHealthChecks(),
 * ])
 */
export function agentHealthChecks(options: AgentHealthOptions = {}) {
  return [
    new AgentSweepCheck(options),
    new AgentStrandedRunsCheck(options),
    new AgentOverdueRowsCheck(options),
    new AgentOutboxCheck(options),
  ]
}
