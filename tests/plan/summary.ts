/*
 * What a run of the plan prints at its end, from the timing lines each
 * database's run wrote (./timings_reporter.ts): the tests per database,
 * the failures, and the slowest tests and files. Pure: lines in, text out.
 */

import type { TimingLine } from './timings_reporter.ts'

/**
 * Parses the JSON lines of a timings file; a torn last line (a run cut
 * while writing) is left out.
 */
export function parseTimings(text: string): TimingLine[] {
  const parsed: TimingLine[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      parsed.push(JSON.parse(line))
    } catch {}
  }
  return parsed
}

/** Milliseconds as seconds, one decimal */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/**
 * Tests and failures per database, in the order given.
 */
export function countsByDatabase(lines: TimingLine[], databases: readonly string[]) {
  return databases.map((db) => {
    const tests = lines.filter((line) => line.kind === 'test' && line.db === db)
    return {
      db,
      tests: tests.length,
      failed: tests.filter((line) => line.failed).length,
      ms: tests.reduce((sum, line) => sum + line.ms, 0),
    }
  })
}

/**
 * The `count` slowest of a kind ('test' or 'file'), slowest first, as lines.
 */
export function slowest(lines: TimingLine[], kind: TimingLine['kind'], count = 10): string[] {
  return lines
    .filter((line) => line.kind === kind)
    .sort((one, other) => other.ms - one.ms)
    .slice(0, count)
    .map((line) => {
      const what = kind === 'test' ? `${line.file} › ${line.title}` : line.file
      return `${seconds(line.ms).padStart(8)}  ${line.db.padEnd(6)} ${what}`
    })
}
