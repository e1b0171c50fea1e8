/*
 * `node ace agents:policy --replay <days> [--json]`: a dry run of the
 * current policies (docs/design.md §11.1) over the tool calls of the last
 * days, beside what happened to each. Nothing is written and no tool runs,
 * so a policy change can be checked against real traffic before it ships.
 */

import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DateTime } from 'luxon'

export default class AgentsPolicy extends BaseCommand {
  static commandName = 'agents:policy'
  static description = 'Show what the current policies would decide on past tool calls'
  static help = [
    'Gives every tool call of the last <days> days to the current policies again',
    "(the tool's, then the app's) and prints the verdict beside what happened.",
    'A dry run: nothing is written, no tool runs.',
    '',
    '{{ binaryName }} agents:policy --replay 7',
    '{{ binaryName }} agents:policy --replay 30 --json',
  ]
  static options: CommandOptions = { startApp: true }

  @flags.number({ description: 'How many days of calls to replay' })
  declare replay?: number

  @flags.boolean({ description: 'Print JSON, one array', default: false })
  declare json: boolean

  async run() {
    if (this.replay === undefined || !Number.isInteger(this.replay) || this.replay < 1) {
      this.logger.error('--replay takes a whole number of days, at least 1')
      this.exitCode = 1
      return
    }
    const { replayPolicies } = await import('../src/runtime/policy_replay.ts')
    const agents = await this.app.container.make('agents.runtime')
    const lines = await replayPolicies(agents, DateTime.now().minus({ days: this.replay }))
    if (this.json) {
      this.logger.log(JSON.stringify(lines, null, 2))
      return
    }
    let changed = 0
    for (const line of lines) {
      const was = `${line.was.status}${line.was.via ? ` via ${line.was.via}` : ''}`
      const now = line.now.decision
      const detail = 'rule' in line.now && line.now.rule ? ` (${line.now.rule})` : ''
      const reason = 'reason' in line.now ? `: ${line.now.reason}` : ''
      if (differs(line)) changed++
      this.logger.log(
        `${line.createdAt}  ${line.tool.padEnd(20)} was ${was}; now ${now}${detail}${reason}`
      )
    }
    this.logger.info(
      `${lines.length} calls replayed; ${changed} would be decided otherwise by the policies now`
    )
  }
}

/** Whether the verdict now differs from what happened */
function differs(line: { was: { status: string; via: string | null }; now: { decision: string } }) {
  const { decision } = line.now
  if (decision === 'allow') return !(line.was.status === 'auto' || line.was.status === 'approved')
  if (decision === 'deny') return line.was.status !== 'rejected'
  if (decision === 'ask') return line.was.via === 'policy' || line.was.via === 'grant'
  return line.was.via === 'policy'
}
