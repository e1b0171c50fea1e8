/*
 * `node ace agents:stats`: the operator console's numbers in a terminal,
 * read by the same queries (src/console/read.ts): counts, rows opened and
 * settled per day, time to decision by agent, tool and approver, pending
 * rows by age, and the console's lists. `--json` prints the figures as
 * the console's JSON API has them.
 */

import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import '../src/types/extended.ts'

export default class AgentsStats extends BaseCommand {
  static commandName = 'agents:stats'
  static description = "Print the operator console's numbers: counts, per day, time to decision"
  static help = [
    'The figures of the operator console (docs/guides/operating.md), from the same queries.',
    '',
    '{{ binaryName }} agents:stats',
    '{{ binaryName }} agents:stats --days 30 --json',
  ]
  static options: CommandOptions = { startApp: true }

  @flags.number({ description: 'Days of the per-day counts and time to decision', default: 14 })
  declare days: number

  @flags.boolean({ description: 'Print the figures as JSON' })
  declare json?: boolean

  async run() {
    const { MAX_WINDOW_DAYS } = await import('../src/console/figures.ts')
    if (!Number.isInteger(this.days) || this.days < 1 || this.days > MAX_WINDOW_DAYS) {
      this.logger.error(`--days takes a whole number from 1 to ${MAX_WINDOW_DAYS}`)
      this.exitCode = 1
      return
    }
    const { readConsole } = await import('../src/console/read.ts')
    const settings = await this.app.container.make('agents.console')
    const { overdueRecords, ...figures } = await readConsole({
      days: this.days,
      overdueAfter: settings.overdueAfter,
      strandedFor: settings.strandedFor,
    })
    void overdueRecords
    if (this.json) {
      this.logger.log(JSON.stringify(figures, null, 2))
      return
    }
    const { counts, charts, lists } = figures
    const { formatStats } = await import('../src/console/stats_text.ts')
    for (const line of formatStats(counts, charts, lists)) this.logger.log(line)
  }
}
