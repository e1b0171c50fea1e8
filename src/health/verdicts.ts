/*
 * What each health check concludes from what it found (docs/guides/operating.md):
 * pure, so the wording and the thresholds are tested without a database.
 * A check's message names the cause and how many, and what usually fixes
 * it, since it is what an operator reads at 3 a.m.
 */

import type { DateTime } from 'luxon'
import { span } from '../governance/ladder.ts'

export type Verdict = {
  status: 'ok' | 'warning' | 'error'
  message: string
  meta?: Record<string, unknown>
}

/** What a check found late: how many, and since when the oldest */
export type Late = { count: number; oldest: DateTime | null; lastError?: string | null }

/** A duration as an operator reads it: seconds under a minute and a half, then min, h, d */
export function elapsed(ms: number): string {
  return ms < 90_000 ? `${Math.max(0, Math.round(ms / 1000))} s` : span(ms)
}

function since(late: Late, now: DateTime): string {
  return late.oldest ? elapsed(now.toMillis() - late.oldest.toMillis()) : '?'
}

function plural(count: number, one: string, many: string) {
  return `${count} ${count === 1 ? one : many}`
}

/**
 * The sweep: its last heartbeat against how often it should run. Late by
 * more than `tolerance` intervals is an error; never is a warning (a
 * database no sweep has run on yet).
 */
export function sweepVerdict(
  last: { beatAt: DateTime; owner: string } | null,
  now: DateTime,
  every: number,
  tolerance = 3
): Verdict {
  if (!last) {
    return {
      status: 'warning',
      message: `The sweep has not run on this database yet (expected every ${elapsed(every)})`,
    }
  }
  const ago = now.toMillis() - last.beatAt.toMillis()
  const meta = { lastRunAt: last.beatAt.toISO(), by: last.owner, everyMs: every }
  if (ago <= tolerance * every) {
    return { status: 'ok', message: `The sweep ran ${elapsed(ago)} ago`, meta }
  }
  return {
    status: 'error',
    message: `The sweep last ran ${elapsed(ago)} ago, expected every ${elapsed(every)}: expired rows, escalation steps and notifications wait. Is a web server (or the agents:sweep cron) running?`,
    meta,
  }
}

/**
 * Runs nobody drives: a lapsed lease (a dead driver), queued and never
 * taken (no live worker), or settled and never resumed, for longer than
 * recovery allows.
 */
export function strandedVerdict(late: Late, now: DateTime, grace: number): Verdict {
  if (late.count === 0) {
    return { status: 'ok', message: 'No run is stranded' }
  }
  return {
    status: 'error',
    message: `${plural(late.count, 'run is', 'runs are')} stranded for over ${elapsed(grace)}, the oldest for ${since(late, now)}: nothing drives them (a dead process's lease lapsed, or no worker takes queued runs) and recovery has not resumed them`,
    meta: { count: late.count, oldestSince: late.oldest?.toISO() ?? null },
  }
}

/**
 * Pending rows past their expiry or their ladder's next step by more than
 * the sweep allows: the sweep is not settling or escalating them.
 */
export function overdueVerdict(late: Late, now: DateTime, grace: number): Verdict {
  if (late.count === 0) {
    return { status: 'ok', message: 'No row is overdue' }
  }
  return {
    status: 'error',
    message: `${plural(late.count, 'pending row is', 'pending rows are')} past their expiry or escalation step by over ${elapsed(grace)}, the oldest by ${since(late, now)}: the sweep is not settling or escalating them`,
    meta: { count: late.count, oldestDueAt: late.oldest?.toISO() ?? null },
  }
}

/**
 * The notification and effect outboxes: deliveries due for longer than
 * `grace` mean they are not draining; with an error, they are failing.
 */
export function outboxVerdict(
  late: { notifications: Late; effects: Late },
  now: DateTime,
  grace: number
): Verdict {
  const parts: string[] = []
  for (const [name, found] of [
    ['notification', late.notifications],
    ['effect', late.effects],
  ] as const) {
    if (found.count === 0) continue
    const failing = found.lastError ? `failing (last error: ${found.lastError})` : 'not sent'
    parts.push(
      `${plural(found.count, name, `${name}s`)} due for over ${elapsed(grace)} ${found.count === 1 ? 'is' : 'are'} ${failing}, the oldest due ${since(found, now)} ago`
    )
  }
  if (parts.length === 0) {
    return { status: 'ok', message: 'The notification and effect outboxes are draining' }
  }
  return {
    status: 'error',
    message: parts.join('; '),
    meta: {
      notifications: late.notifications.count,
      effects: late.effects.count,
    },
  }
}
