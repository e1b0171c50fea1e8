/*
 * Pure numbers of the bench: medians and spreads of repeated, interleaved
 * measurements, and the table they are printed as. Every figure the bench
 * prints is a ratio to a floor measured in the same run, so a slow or busy
 * machine moves both sides alike.
 */

export type Spread = { min: number; median: number; max: number }

/**
 * Min, median and max of some samples.
 *
 * @example
 * spread([3, 1, 2]) // { min: 1, median: 2, max: 3 }
 */
export function spread(samples: number[]): Spread {
  if (samples.length === 0) return { min: Number.NaN, median: Number.NaN, max: Number.NaN }
  const sorted = [...samples].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  return { min: sorted[0], median, max: sorted.at(-1)! }
}

/**
 * A number as the table shows it: two significant decimals below 10,
 * one below 100, none above.
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a'
  const size = Math.abs(value)
  return value.toFixed(size < 10 ? 2 : size < 100 ? 1 : 0)
}

export function formatSpread(value: Spread, unit = ''): string {
  const median = `${formatNumber(value.median)}${unit}`
  if (value.min === value.max) return median
  return `${median} (${formatNumber(value.min)}–${formatNumber(value.max)})`
}

export type Row = { figure: string; cells: Record<string, string>; goal: string }

/**
 * A Markdown table: one row a figure, one column a database.
 */
export function table(rows: Row[], columns: string[]): string {
  const header = ['figure', ...columns, 'goal']
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map(
      (row) =>
        `| ${[row.figure, ...columns.map((column) => row.cells[column] ?? ''), row.goal].join(' | ')} |`
    ),
  ]
  return lines.join('\n')
}
