/*
 * `node ace agents:migrations`: after an upgrade of the package, publishes
 * the migrations of its tables that the app lacks (those the new version
 * brings), as `node ace configure adonis-agent-inbox` does, and nothing
 * else: no prompt, no other file. Running it again publishes nothing. The
 * database is not touched: `node ace migration:run` runs what it wrote.
 */

import { BaseCommand } from '@adonisjs/core/ace'
import { publishMigrations } from '../configure.ts'

export default class AgentsMigrations extends BaseCommand {
  static commandName = 'agents:migrations'
  static description = "Publish the package's migrations this app lacks, after an upgrade"
  static help = [
    'Writes to database/migrations/ each migration of adonis-agent-inbox the app does not have,',
    "recognized by the end of its file name, timestamped now so it runs after the app's own.",
    'Then run node ace migration:run.',
    '',
    '{{ binaryName }} agents:migrations',
  ]

  async run() {
    const written = await publishMigrations(this, false)
    if (written.length === 0) {
      this.logger.info('Every migration of adonis-agent-inbox is already published')
      return
    }
    this.logger.info(
      `${written.length === 1 ? 'One migration' : `${written.length} migrations`} published: run node ace migration:run`
    )
  }
}
