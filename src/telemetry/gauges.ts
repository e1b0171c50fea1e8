/*
 * The gauges of the metrics (./metrics.ts) that read the database when the
 * app's metric reader collects: pending rows and the oldest one's age by
 * kind, live runs by status, and the outboxes' backlogs. Each is one
 * index-backed query (tests/persistence/index_plans.spec.ts explains them),
 * run on collection only, never on the request or the step path. Every
 * process that observes them reports the same database: aggregate across
 * processes with max (or last), not sum.
 */

import type { BatchObservableResult, Meter, ObservableResult } from '@opentelemetry/api'
import { DateTime } from 'luxon'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { AgentEffect } from '../persistence/models/agent_effect.ts'
import { Notification } from '../persistence/models/notification.ts'
import { preparedColumns, readRows } from '../persistence/prepared_columns.ts'
import debug from '../debug.ts'
import { ATTR } from './attributes.ts'

/** The kinds of rows that wait: each gets a value, 0 when none waits */
const WAITING_KINDS = ['ask', 'intake', 'action']
/** The statuses of runs that have not finished (finished runs only grow: count them in logs) */
const LIVE_STATUSES = ['queued', 'running', 'waiting']

/** Pending rows by kind, with the oldest one's `created_at`: the inbox index's rows */
export function pendingByKind() {
  return ToolCall.query()
    .where('status', 'pending')
    .groupBy('kind')
    .select('kind')
    .count('* as total')
    .min('created_at as oldest')
    .pojo<{ kind: string; total: number | string; oldest: unknown }>()
}

/** Runs that have not finished, by status: the status index's range */
export function liveRunsByStatus() {
  return AgentRun.query()
    .whereIn('status', LIVE_STATUSES)
    .groupBy('status')
    .select('status')
    .count('* as total')
    .pojo<{ status: string; total: number | string }>()
}

/** Notices due and not sent, at `now` (the due index) */
export async function notificationBacklog(now: DateTime) {
  const due = preparedColumns(new Notification(), { dueAt: now }).due_at
  const [row] = await Notification.query()
    .whereNull('sent_at')
    .where('due_at', '<=', due as any)
    .count('* as total')
    .pojo<{ total: number | string }>()
  return Number(row?.total ?? 0)
}

/** Effects not yet delivered (the due index) */
export async function effectBacklog() {
  const [row] = await AgentEffect.query()
    .where('status', 'pending')
    .count('* as total')
    .pojo<{ total: number | string }>()
  return Number(row?.total ?? 0)
}

/**
 * Registers the gauges on `meter`; returns what removes them.
 */
export function observeGauges(meter: Meter): () => void {
  const pending = meter.createObservableGauge('agent_inbox.rows.pending', {
    description: 'Rows waiting for a person, by kind',
    unit: '{row}',
  })
  const oldest = meter.createObservableGauge('agent_inbox.rows.oldest_pending.age', {
    description: 'How long the oldest pending row of each kind has waited',
    unit: 's',
  })
  const runs = meter.createObservableGauge('agent_inbox.runs', {
    description: 'Runs that have not finished, by status',
    unit: '{run}',
  })
  const backlog = meter.createObservableGauge('agent_inbox.outbox.backlog', {
    description: 'Notices due and unsent, and effects not yet delivered',
    unit: '{message}',
  })

  // A failed read (the database down) reports nothing this time, rather than a wrong zero
  const onPending = async (observer: BatchObservableResult) => {
    const now = DateTime.now()
    let rows
    try {
      rows = await pendingByKind()
    } catch (error) {
      return debug('metrics: reading pending rows failed %O', error)
    }
    const seen = new Map(rows.map((row) => [row.kind, row]))
    for (const kind of new Set([...WAITING_KINDS, ...seen.keys()])) {
      const row = seen.get(kind)
      const at = row?.oldest ? readRows(ToolCall, [{ created_at: row.oldest }])[0].createdAt : null
      const attributes = { [ATTR.kind]: kind }
      observer.observe(pending, Number(row?.total ?? 0), attributes)
      observer.observe(
        oldest,
        at ? Math.max(0, (now.toMillis() - at.toMillis()) / 1000) : 0,
        attributes
      )
    }
  }
  const onRuns = async (result: ObservableResult) => {
    const rows = await liveRunsByStatus().catch((error) => {
      debug('metrics: reading runs failed %O', error)
      return null
    })
    if (!rows) return
    const seen = new Map(rows.map((row) => [row.status, Number(row.total)]))
    for (const status of LIVE_STATUSES) {
      result.observe(seen.get(status) ?? 0, { [ATTR.status]: status })
    }
  }
  const onBacklog = async (result: ObservableResult) => {
    const counts = await Promise.all([notificationBacklog(DateTime.now()), effectBacklog()]).catch(
      (error) => {
        debug('metrics: reading the outboxes failed %O', error)
        return null
      }
    )
    if (!counts) return
    result.observe(counts[0], { [ATTR.outbox]: 'notifications' })
    result.observe(counts[1], { [ATTR.outbox]: 'effects' })
  }

  meter.addBatchObservableCallback(onPending, [pending, oldest])
  runs.addCallback(onRuns)
  backlog.addCallback(onBacklog)
  return () => {
    meter.removeBatchObservableCallback(onPending, [pending, oldest])
    runs.removeCallback(onRuns)
    backlog.removeCallback(onBacklog)
  }
}
