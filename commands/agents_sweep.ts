/*
 * `node ace agents:sweep`: settles every pending row past its expiry by
 * its `onExpiry` policy (defaults, reject or cancel the run) and resumes
 * their runs: for apps that sweep from a scheduler rather than in the web
 * process.
 */

import { BaseCommand } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import '../src/types/extended.ts'

export default class AgentsSweep extends BaseCommand {
  static commandName = 'agents:sweep'
  static description = 'Settle expired rows by their expiry policy and resume their runs'
  static options: CommandOptions = { startApp: true }

  async run() {
    const agents = await this.app.container.make('agents.runtime')
    const count = await agents.sweep()
    // The runs the sweep resumed are driven before the process ends
    await agents.idle()
    this.logger.success(`Swept ${count} expired ${count === 1 ? 'row' : 'rows'}`)
  }
}
