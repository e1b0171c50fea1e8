/*
 * The console's arithmetic, apart from any database: the charts' window
 * of UTC days, the age buckets of pending rows, and time to decision as
 * percentiles of a sample. The queries (./queries.ts) count inside the
 * bounds made here; what they read comes back here to be shaped into the
 * props (./props.ts). Pure, so it is tested without a database.
 */

import { type DateTime } from 'luxon'
import type { AgeBucket, DailySeries, DecisionTimes } from './props.ts'

/** The charts' window, in days: `?days=` and `--days` take 1 to MAX_WINDOW_DAYS */
export const DEFAULT_WINDOW_DAYS = 14
export const MAX_WINDOW_DAYS = 90

/** How many of the latest decisions time to decision is computed over */
export const DECISION_SAMPLE = 5000

/** Keys per time-to-decision chart (most decisions first) */
export const DECISION_KEYS = 20

/** The UTC days of a window ending on `now`'s day: each day's start, and the end */
export type DayWindow = { starts: DateTime[]; end: DateTime }

/**
 * The `days` UTC days ending with the one `now` falls in, oldest first.
 *
 * @example
 * dayWindow(DateTime.fromISO('2026-03-10T15:00Z'), 2).starts // 03-09, 03-10
 */
export function dayWindow(now: DateTime, days: number): DayWindow {
  const today = now.toUTC().startOf('day')
  const starts = Array.from({ length: days }, (_, index) => today.minus({ days: days - 1 - index }))
  return { starts, end: today.plus({ days: 1 }) }
}

/** Per-day counts as the chart takes them: `counts[i]` of `window.starts[i]` */
export function dailySeries(window: DayWindow, opened: number[], settled: number[]): DailySeries {
  return {
    at: window.starts.map((start) => start.toSeconds()),
    days: window.starts.map((start) => start.toISODate()!),
    opened,
    settled,
  }
}

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** The age buckets of pending rows, youngest first */
export const AGE_BUCKETS: AgeBucket[] = [
  { label: 'under 1 hour', fromMs: 0, toMs: HOUR },
  { label: '1 to 24 hours', fromMs: HOUR, toMs: DAY },
  { label: '1 to 7 days', fromMs: DAY, toMs: 7 * DAY },
  { label: 'over 7 days', fromMs: 7 * DAY, toMs: null },
]

/**
 * The creation times bounding each bucket at `now`: a row of bucket `b`
 * was created after `bounds[b].after` (none for the oldest) and at or
 * before `bounds[b].atOrBefore`.
 */
export function bucketBounds(now: DateTime, buckets: AgeBucket[] = AGE_BUCKETS) {
  return buckets.map((bucket) => ({
    atOrBefore: now.minus({ milliseconds: bucket.fromMs }),
    after: bucket.toMs === null ? null : now.minus({ milliseconds: bucket.toMs }),
  }))
}

/**
 * The value at `fraction` of sorted `values`, by nearest rank (a value
 * that was seen, never an interpolation between two).
 */
export function nearestRank(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0
  const rank = Math.ceil(fraction * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

/** One decision of the sample: who or what it is counted under, and how long it took */
export type Decision = { agent: string | null; tool: string; approver: string; ms: number }

/**
 * Time to decision (p50, p90) by the key `keyOf` gives each decision,
 * most decisions first (ties by key), at most DECISION_KEYS keys.
 */
export function decisionTimes(
  decisions: Decision[],
  keyOf: (decision: Decision) => string | null
): DecisionTimes[] {
  const byKey = new Map<string, number[]>()
  for (const decision of decisions) {
    const key = keyOf(decision)
    if (key === null) continue
    const list = byKey.get(key) ?? []
    list.push(decision.ms)
    byKey.set(key, list)
  }
  return [...byKey]
    .sort(([a, left], [b, right]) => right.length - left.length || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, DECISION_KEYS)
    .map(([key, times]) => {
      const sorted = times.sort((a, b) => a - b)
      return {
        key,
        count: sorted.length,
        p50: nearestRank(sorted, 0.5),
        p90: nearestRank(sorted, 0.9),
      }
    })
}
