/*
 * `node ace agents:audit --run <id> [--json]`: a run's audit log
 * (docs/design.md §11.5), oldest first — each row opened, decided by a
 * policy or a grant, voted on, settled, expired, executed or interrupted,
 * and each grant given or revoked, with who, through what, from where and
 * the digest of what was decided.
 */

import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'

export default class AgentsAudit extends BaseCommand {
  static commandName = 'agents:audit'
  static description = "Print a run's audit log"
  static help = [
    'Prints the append-only audit log of a run, oldest first.',
    '',
    '{{ binaryName }} agents:audit --run <run id>',
    '{{ binaryName }} agents:audit --run <run id> --json',
  ]
  static options: CommandOptions = { startApp: true }

  @flags.string({ flagName: 'run', description: 'The run whose log to print' })
  declare runId?: string

  @flags.boolean({ description: 'Print JSON, one array', default: false })
  declare json: boolean

  async run() {
    if (!this.runId) {
      this.logger.error('Name the run: --run <run id>')
      this.exitCode = 1
      return
    }
    const { runEvents, eventJson } = await import('../src/inbox/audit_log.ts')
    const events = await runEvents(this.runId)
    const entries = events.map(eventJson)
    if (this.json) {
      this.logger.log(JSON.stringify(entries, null, 2))
      return
    }
    if (entries.length === 0) this.logger.info(`No audit entries for run ${this.runId}`)
    for (const entry of entries) {
      const who = [entry.actor, entry.channel && `via ${entry.channel}`].filter(Boolean).join(' ')
      const data = entry.data ? ` ${JSON.stringify(entry.data)}` : ''
      this.logger.log(
        `${entry.at}  ${entry.type.padEnd(14)} row ${entry.rowId ?? '-'}  ${who}${data}`
      )
    }
  }
}
