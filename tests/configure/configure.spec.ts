import { test } from '@japa/runner'
import { IgnitorFactory } from '@adonisjs/core/factories'
import Configure from '@adonisjs/core/commands/configure'

test.group('Configure', (group) => {
  group.each.timeout(30_000)

  test('publishes the config and a timestamped migration, and registers the provider', async ({
    assert,
    fs,
  }) => {
    await fs.createJson('tsconfig.json', {})
    await fs.create('adonisrc.ts', `export default defineConfig({})`)

    const ignitor = new IgnitorFactory()
      .withCoreProviders()
      .withCoreConfig()
      .create(fs.baseUrl, { importer: (filePath) => import(filePath) })
    const app = ignitor.createApp('console')
    await app.init()
    await app.boot()

    const ace = await app.container.make('ace')
    ace.ui.switchMode('raw')
    const command = await ace.create(Configure, [new URL('../../index.ts', import.meta.url).href])
    await command.exec()

    assert.equal(command.exitCode, 0)
    await assert.fileExists('config/agents.ts')
    await assert.fileContains(
      'config/agents.ts',
      `import { defineConfig } from 'adonis-agent-inbox'`
    )
    await assert.fileContains(
      'adonisrc.ts',
      `() => import('adonis-agent-inbox/agent_inbox_provider')`
    )

    const migrations = await fs.readDir('database/migrations')
    assert.lengthOf(migrations, 1)
    assert.match(migrations[0].basename, /^\d{13}_create_agent_inbox_tables\.ts$/)
    await assert.fileContains(
      `database/migrations/${migrations[0].basename}`,
      `this.schema.createTable('agent_tool_calls'`
    )
  })
})
