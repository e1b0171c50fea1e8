/*
 * What the console's charts show, read without a framework or a canvas so
 * the React and Vue pages draw the same and Node can test it: for each
 * chart its series (the numbers uPlot draws, in the unit its axis names)
 * and the same numbers as a table, the text alternative a screen reader
 * reads instead of the canvas. Drawing is ./uplot_chart.ts's. The app
 * receives this file in inertia/agent_console/.
 */

import type { DailySeries, DecisionTimes, People, PendingAgeChart } from 'adonis-agent-inbox/types'
import { kindWord, nameOf, pageLocale, t } from '../agent_inbox/words'

/** A chart's numbers as a table: its caption, column headings and rows of cells */
export type ChartTable = { caption: string; columns: string[]; rows: string[][] }

/** One series of a chart */
export type ChartSeries = {
  label: string
  /** What uPlot draws, in the chart's unit (for stacked bars, the running total) */
  drawn: number[]
  /** The series' own numbers, as its legend shows them */
  values: string[]
  color: string
}

/**
 * A chart as both pages hand it to uPlot: `x` is Unix seconds on a time
 * axis, or the categories' indices (named by `labels`) on a category axis;
 * bars are drawn in series order, so a later (shorter) bar shows in front
 * of an earlier one.
 */
export type ChartSpec = {
  id: string
  title: string
  axis: 'time' | 'category'
  style: 'line' | 'bars'
  x: number[]
  labels: string[]
  /** The y axis' unit, as its label says ("rows", "minutes") */
  unit: string
  series: ChartSeries[]
  table: ChartTable
  /** Nothing to draw: the page says so instead of an empty canvas */
  empty: boolean
}

/** Colours with contrast on the page's light background, one per series */
export const PALETTE = ['#2f5bd3', '#1f7a4d', '#b45309', '#7c3aed', '#b42318']

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/**
 * A duration as a person reads it: its two largest units.
 *
 * @example
 * formatDuration(90_000) // '1 min 30 s'
 * formatDuration(5_400_000) // '1 h 30 min'
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  if (ms < SECOND) return `${Math.round(ms)} ms`
  const units: [number, string][] = [
    [DAY, 'd'],
    [HOUR, 'h'],
    [MINUTE, 'min'],
    [SECOND, 's'],
  ]
  const parts: string[] = []
  let rest = Math.round(ms / SECOND) * SECOND
  for (const [size, name] of units) {
    if (parts.length === 2) break
    const count = Math.floor(rest / size)
    rest -= count * size
    if (count > 0) parts.push(`${count} ${name}`)
    else if (parts.length > 0) break
  }
  return parts.join(' ')
}

/**
 * The unit a duration axis counts in: the largest one the longest value
 * reaches, so the ticks read "12" minutes rather than "720000".
 */
export function durationUnit(longestMs: number): { name: string; ms: number } {
  if (longestMs >= 2 * DAY) return { name: t('page.console.unit_days'), ms: DAY }
  if (longestMs >= 2 * HOUR) return { name: t('page.console.unit_hours'), ms: HOUR }
  if (longestMs >= 2 * MINUTE) return { name: t('page.console.unit_minutes'), ms: MINUTE }
  return { name: t('page.console.unit_seconds'), ms: SECOND }
}

/** A day (`YYYY-MM-DD`, UTC) as the axis and the table name it: "Mar 4" */
export function dayLabel(day: string): string {
  const at = new Date(`${day}T00:00:00Z`)
  if (Number.isNaN(at.getTime())) return day
  return at.toLocaleDateString(pageLocale()[0] ?? 'en', {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  })
}

/**
 * Rows opened and settled per day: two lines over the window's days.
 */
export function dailyChart(daily: DailySeries): ChartSpec {
  const series: ChartSeries[] = [
    {
      label: t('page.console.opened'),
      drawn: daily.opened,
      values: daily.opened.map(String),
      color: PALETTE[0],
    },
    {
      label: t('page.console.settled'),
      drawn: daily.settled,
      values: daily.settled.map(String),
      color: PALETTE[1],
    },
  ]
  return {
    id: 'daily',
    title: t('page.console.daily_title'),
    axis: 'time',
    style: 'line',
    x: daily.at,
    labels: daily.days.map(dayLabel),
    unit: t('page.console.unit_rows'),
    series,
    table: {
      caption: t('page.console.daily_caption'),
      columns: [t('page.console.day'), t('page.console.opened'), t('page.console.settled')],
      rows: daily.days.map((day, index) => [
        day,
        String(daily.opened[index] ?? 0),
        String(daily.settled[index] ?? 0),
      ]),
    },
    empty: daily.at.length === 0,
  }
}

const DECISION_BY = {
  agent: { title: 'page.console.decisions_agent', heading: 'page.console.agent' },
  tool: { title: 'page.console.decisions_tool', heading: 'page.console.tool' },
  approver: { title: 'page.console.decisions_approver', heading: 'page.console.approver' },
} as const

/**
 * Time to decision (p50, p90) of each agent, tool or approver: a p90 bar
 * with the p50 bar in front of it, in the unit the longest p90 reaches.
 * Approvers are named as the pages name people.
 */
export function decisionChart(
  by: keyof typeof DECISION_BY,
  times: DecisionTimes[],
  people?: People
): ChartSpec {
  const unit = durationUnit(Math.max(0, ...times.map((entry) => entry.p90)))
  const inUnit = (ms: number) => Math.round((ms / unit.ms) * 100) / 100
  const labels = times.map((entry) => (by === 'approver' ? nameOf(people, entry.key) : entry.key))
  return {
    id: `decisions-${by}`,
    title: t(DECISION_BY[by].title),
    axis: 'category',
    style: 'bars',
    x: times.map((_, index) => index),
    labels,
    unit: unit.name,
    series: [
      {
        label: 'p90',
        drawn: times.map((entry) => inUnit(entry.p90)),
        values: times.map((entry) => formatDuration(entry.p90)),
        color: PALETTE[2],
      },
      {
        label: 'p50',
        drawn: times.map((entry) => inUnit(entry.p50)),
        values: times.map((entry) => formatDuration(entry.p50)),
        color: PALETTE[0],
      },
    ],
    table: {
      caption: t('page.console.decisions_caption', { title: t(DECISION_BY[by].title) }),
      columns: [t(DECISION_BY[by].heading), t('page.console.decisions'), 'p50', 'p90'],
      rows: times.map((entry, index) => [
        labels[index],
        String(entry.count),
        formatDuration(entry.p50),
        formatDuration(entry.p90),
      ]),
    },
    empty: times.length === 0,
  }
}

/** An age range in the page's words, from its bounds (the server's own label for another) */
function ageLabel(bucket: PendingAgeChart['buckets'][number]): string {
  const { fromMs, toMs } = bucket
  if (fromMs === 0 && toMs === HOUR) return t('page.console.age_hour')
  if (fromMs === HOUR && toMs === DAY) return t('page.console.age_day')
  if (fromMs === DAY && toMs === 7 * DAY) return t('page.console.age_week')
  if (fromMs === 7 * DAY && toMs === null) return t('page.console.age_older')
  return bucket.label
}

/**
 * Pending rows by age, a bar per age range stacked by kind: each kind is
 * drawn as the running total up to it, the largest first, so the bars in
 * front show the smaller totals (uPlot has no stacking of its own).
 */
export function pendingAgeChart(chart: PendingAgeChart): ChartSpec {
  const totals = chart.buckets.map((_, bucket) =>
    chart.kinds.reduce((sum, _kind, kind) => sum + (chart.counts[kind]?.[bucket] ?? 0), 0)
  )
  const running = chart.kinds.map((_, kind) =>
    chart.buckets.map((_bucket, bucket) =>
      chart.kinds
        .slice(kind)
        .reduce((sum, _other, other) => sum + (chart.counts[kind + other]?.[bucket] ?? 0), 0)
    )
  )
  return {
    id: 'pending-age',
    title: t('page.console.age_title'),
    axis: 'category',
    style: 'bars',
    x: chart.buckets.map((_, index) => index),
    labels: chart.buckets.map(ageLabel),
    unit: t('page.console.unit_rows'),
    series: chart.kinds.map((kind, index) => ({
      label: kindWord(kind),
      drawn: running[index],
      values: (chart.counts[index] ?? []).map(String),
      color: PALETTE[index % PALETTE.length],
    })),
    table: {
      caption: t('page.console.age_caption'),
      columns: [t('page.console.age'), ...chart.kinds.map(kindWord), t('page.console.all')],
      rows: chart.buckets.map((bucket, index) => [
        ageLabel(bucket),
        ...chart.kinds.map((_, kind) => String(chart.counts[kind]?.[index] ?? 0)),
        String(totals[index]),
      ]),
    },
    empty: totals.every((total) => total === 0),
  }
}
