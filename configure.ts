/*
 * `node ace add adonis-agent-inbox`: publishes config/agents.ts and the
 * migration of the package's tables, and registers the provider.
 */

import type Configure from '@adonisjs/core/commands/configure'
import { fileURLToPath } from 'node:url'
import { stubsRoot } from './stubs/main.ts'

/**
 * The folder holding the migration stubs (published as the app's own).
 */
const migrationsRoot = fileURLToPath(new URL('./database/migrations/', import.meta.url))

export async function configure(command: Configure) {
  const codemods = await command.createCodemods()

  await codemods.makeUsingStub(stubsRoot, 'config/agents.stub', {})
  await codemods.makeUsingStub(migrationsRoot, 'create_agent_inbox_tables.stub', {
    prefix: Date.now(),
  })

  await codemods.updateRcFile((rcFile) => {
    rcFile.addProvider('adonis-agent-inbox/agent_inbox_provider')
  })
}
