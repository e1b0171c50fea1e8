/*
 * A Japa reporter that keeps what each test and each file cost, so a run
 * can say where its time went: it writes them as JSON lines to the file
 * TEST_TIMINGS names (CI gathers the files of every database's run and
 * prints the slowest, bin/timings.ts). A file's time is its wall time from
 * its first group or test to its last, so group hooks (an app booted, a
 * fixture built) count too; a test's is Japa's own duration.
 */

import { appendFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { NamedReporterContract } from '@japa/runner/types'

export interface TimingLine {
  kind: 'test' | 'file'
  db: string
  file: string
  title?: string
  ms: number
  failed?: boolean
}

/**
 * The reporter; inert when TEST_TIMINGS is unset.
 */
export function timingsReporter(db: string): NamedReporterContract {
  return {
    name: 'timings',
    handler(_runner, emitter) {
      const target = process.env.TEST_TIMINGS
      if (!target) return
      const files = new Map<string, { start: number; end: number }>()
      let current = '?'
      const write = (line: TimingLine) => appendFileSync(target, JSON.stringify(line) + '\n')
      const touch = (fileName: string | undefined) => {
        if (!fileName) return
        const file = relative(process.cwd(), fileName)
        current = file
        const seen = files.get(file)
        const now = performance.now()
        if (seen) seen.end = now
        else files.set(file, { start: now, end: now })
      }

      emitter.on('group:start', (payload) => touch(payload.meta.fileName))
      emitter.on('test:start', (payload) => touch(payload.meta.fileName))
      emitter.on('group:end', (payload) => touch(payload.meta.fileName))
      emitter.on('test:end', (payload) => {
        touch(payload.meta.fileName)
        write({
          kind: 'test',
          db,
          file: current,
          title: payload.title.expanded,
          ms: Math.round(payload.duration),
          failed: payload.hasError || undefined,
        })
      })
      emitter.on('runner:end', () => {
        for (const [file, span] of files) {
          write({ kind: 'file', db, file, ms: Math.round(span.end - span.start) })
        }
      })
    },
  }
}
