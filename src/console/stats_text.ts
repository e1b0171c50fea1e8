/*
 * The console's figures as lines of text, for `node ace agents:stats`:
 * pure, so the terminal shows exactly what the console's queries read.
 */

import type { ConsoleCharts, ConsoleCounts, ConsoleLists, DecisionTimes } from './props.ts'

/** A duration in the largest unit that keeps it readable: 850 ms, 42 s, 3.5 min, 2.1 h, 1.5 d */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ]
  const [size, unit] = units.find(([bound]) => ms >= bound)!
  const value = ms / size
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${unit}`
}

function decisionLines(title: string, entries: DecisionTimes[]): string[] {
  if (entries.length === 0) return [`${title}: no decisions`]
  return [
    `${title}:`,
    ...entries.map(
      (entry) =>
        `  ${entry.key}: p50 ${duration(entry.p50)}, p90 ${duration(entry.p90)} (${entry.count})`
    ),
  ]
}

/**
 * The lines `agents:stats` prints.
 *
 * @example
 * formatStats(figures.counts, figures.charts, figures.lists).forEach((line) => console.log(line))
 */
export function formatStats(
  counts: ConsoleCounts,
  charts: ConsoleCharts,
  lists: ConsoleLists
): string[] {
  const { daily, decisions, pendingByAge } = charts
  const runs = Object.entries(counts.runs)
    .map(([status, count]) => `${status} ${count}`)
    .join(', ')
  return [
    `Pending rows: ${counts.pendingRows} (overdue ${counts.overdueRows})`,
    `Runs: ${runs}; stranded ${counts.strandedRuns}`,
    `Failing deliveries: notifications ${counts.failingNotifications}, effects ${counts.failingEffects}`,
    `Last ${daily.days.length} days: opened ${counts.openedInWindow}, settled ${counts.settledInWindow}`,
    ...daily.days.map(
      (day, index) => `  ${day}  opened ${daily.opened[index]}  settled ${daily.settled[index]}`
    ),
    `Time to decision (last ${decisions.sample.size} decisions):`,
    ...decisionLines('By agent', decisions.byAgent),
    ...decisionLines('By tool', decisions.byTool),
    ...decisionLines('By approver', decisions.byApprover),
    'Pending rows by age:',
    ...pendingByAge.kinds.map(
      (kind, index) =>
        `  ${kind}: ${pendingByAge.buckets
          .map((bucket, at) => `${bucket.label} ${pendingByAge.counts[index][at]}`)
          .join(', ')}`
    ),
    `Failed runs: ${lists.failedRuns.map((run) => run.id).join(', ') || 'none'}`,
    `Stranded runs: ${lists.strandedRuns.map((run) => run.id).join(', ') || 'none'}`,
    `Overdue rows: ${lists.overdueRows.map((row) => row.id).join(', ') || 'none'}`,
  ]
}
