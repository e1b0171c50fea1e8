/*
 * `node ace agents:sweep`: settles every pending row past its expiry by
 * its `onExpiry` policy (defaults, reject, or cancel the run), for apps
 * that sweep from a scheduler rather than in the web process. It returns
 * once the rows are settled: the runs they unblock are resumed by the web
 * server's own periodic sweep (`sweepInterval`), which picks up waiting
 * runs with nothing pending left, or here with `--drive`.
 *
 * Safe from cron on every host: with `@adonisjs/lock` one sweep runs at a
 * time and the others return at once, saying so; without it, sweeps that
 * overlap share the rows (each batch locks what it settles) and settle
 * none twice.
 */

import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { exclusive, lockManager, LOCKS } from '../src/scale/exclusive.ts'
import '../src/types/extended.ts'

export default class AgentsSweep extends BaseCommand {
  static commandName = 'agents:sweep'
  static description = 'Settle expired rows by their expiry rule'
  static help = [
    'Settles every row past its expiry by its policy, in batches, and returns.',
    'Runs of the cancel policy are cancelled with their rows. The other runs',
    "resume in the web server's next periodic sweep (sweepInterval), which",
    'resumes waiting runs with nothing pending; with --drive they are driven',
    'in this process instead, and the command waits for them.',
    'With @adonisjs/lock, a sweep already running elsewhere makes this one',
    'return at once: safe to run from cron on every host.',
    '',
    '{{ binaryName }} agents:sweep',
    '{{ binaryName }} agents:sweep --drive',
  ]
  static options: CommandOptions = { startApp: true }

  @flags.boolean({
    description: 'Drive the resumed runs in this process and wait for them',
    default: false,
  })
  declare drive: boolean

  async run() {
    const agents = await this.app.container.make('agents.runtime')
    const locks = await lockManager(this.app.container)
    const notifier = await this.app.container.make('agents.notifications')
    const outcome = await exclusive(locks, LOCKS.sweep, 120_000, async () => {
      const swept = await agents.sweep({ resume: this.drive })
      // The ladders' notices and the digests due (docs/design.md §7.7)
      await notifier?.dispatch()
      return swept
    })
    if (!outcome.ran) {
      this.logger.info('Another process is sweeping; nothing to do')
      return
    }
    const count = outcome.result
    this.logger.success(`Swept ${count} expired ${count === 1 ? 'row' : 'rows'}`)
    if (this.drive) await agents.idle()
  }
}
