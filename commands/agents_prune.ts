/*
 * `node ace agents:prune --older-than 30d`: retention. Deletes the runs
 * that finished (completed, failed or cancelled) longer ago than the given
 * age, with their rows and journal, and the settled rows from outside the
 * runtime (no run) settled before then, a batch at a time. Unfinished runs
 * and pending rows are never touched, so it is safe to run from cron while
 * the app runs.
 */

import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DateTime } from 'luxon'

export default class AgentsPrune extends BaseCommand {
  static commandName = 'agents:prune'
  static description = 'Delete finished runs, their rows and journal, older than an age'
  static help = [
    'Deletes runs finished (completed, failed, cancelled) before now minus --older-than,',
    'with their rows and journal, and settled rows with no run settled before then,',
    '500 at a time. Unfinished runs and pending rows are never deleted.',
    'Ages: 30d (days), 12h (hours), 90m (minutes).',
    '',
    '{{ binaryName }} agents:prune --older-than 30d',
    '{{ binaryName }} agents:prune --older-than 12h --dry-run',
  ]
  static options: CommandOptions = { startApp: true }

  @flags.string({ description: 'Age of what to delete: 30d, 12h or 90m' })
  declare olderThan?: string

  @flags.boolean({ description: 'Print what would be deleted, delete nothing', default: false })
  declare dryRun: boolean

  async run() {
    const { parseAge, pruneFinished } = await import('../src/persistence/prune.ts')
    const age = this.olderThan === undefined ? null : parseAge(this.olderThan)
    if (age === null) {
      this.logger.error(
        `--older-than must be a whole number of days, hours or minutes (30d, 12h, 90m), got ${this.olderThan === undefined ? 'nothing' : `"${this.olderThan}"`}`
      )
      this.exitCode = 1
      return
    }
    const before = DateTime.now().minus(age)
    const counts = await pruneFinished({ before, dryRun: this.dryRun })
    const what = `${counts.runs} finished ${counts.runs === 1 ? 'run' : 'runs'} (${counts.rows} rows, ${counts.journal} journal entries) and ${counts.outsideRows} settled rows without a run, older than ${before.toISO()}`
    if (this.dryRun) this.logger.info(`Would delete ${what}`)
    else this.logger.success(`Deleted ${what}`)
  }
}
