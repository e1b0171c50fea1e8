/*
 * `node ace add adonis-agent-inbox` against a fake AdonisJS 7 app tree: the
 * files it publishes, the rc file and env changes, idempotence, --force, and
 * --page / --no-page.
 */

import { test } from '@japa/runner'
import { IgnitorFactory } from '@adonisjs/core/factories'
import Configure from '@adonisjs/core/commands/configure'
import type { FileSystem } from '@japa/file-system'
import { readdir } from 'node:fs/promises'

const PACKAGE = new URL('../../index.ts', import.meta.url).href
/** The page's cards, hooks, state and styles, as the package ships them */
const PAGE_PARTS = new URL('../../stubs/inertia/agent_inbox/', import.meta.url)
const INERTIA = '@adonisjs/inertia/inertia_provider'
const AUTH = '@adonisjs/auth/auth_provider'
const PAGE_PROMPT =
  'This app has no @adonisjs/inertia. Publish the inbox page anyway? (the JSON API works without it)'

/**
 * A minimal app tree, booted, with ace ready to run `configure`.
 */
async function setupApp(fs: FileSystem, providers: string[] = []) {
  await fs.createJson('tsconfig.json', {})
  await fs.create(
    'adonisrc.ts',
    `export default defineConfig({
  providers: [${providers.map((p) => `() => import('${p}')`).join(', ')}],
})`
  )
  await fs.create(
    'start/env.ts',
    `export default await Env.create(new URL('../', import.meta.url), {})`
  )
  await fs.create('.env', '')

  const ignitor = new IgnitorFactory()
    .withCoreProviders()
    .withCoreConfig()
    .merge({ rcFileContents: { providers: [] } })
    .create(fs.baseUrl, { importer: (filePath) => import(filePath) })
  const app = ignitor.createApp('console')
  await app.init()
  await app.boot()
  const ace = await app.container.make('ace')
  ace.ui.switchMode('raw')
  return ace
}

test.group('Configure', (group) => {
  // Each configure run builds ts-morph projects for its codemods: seconds, not milliseconds
  group.each.timeout(120_000)

  test('publishes config, migration, page and routes; registers provider and env', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const command = await ace.create(Configure, [PACKAGE])
    await command.exec()
    assert.equal(command.exitCode, 0)

    await assert.fileContains('config/agents.ts', [
      `import { defineAgent, defineConfig, defineTool } from 'adonis-agent-inbox'`,
      `kind: 'read'`,
      `kind: 'action'`,
      'intake:',
    ])
    await assert.fileContains('adonisrc.ts', [
      `() => import('adonis-agent-inbox/agent_inbox_provider')`,
      `() => import('adonis-agent-inbox/commands')`,
      `() => import('#start/agent_inbox')`,
    ])
    await assert.fileContains('start/agent_inbox.ts', 'registerInboxRoutes(router)')
    // The page alone under inertia/pages/ (every file there is a page), its parts beside it
    const page = await fs.readDir('inertia/pages/agent_inbox')
    assert.deepEqual(
      page.map((file) => file.basename),
      ['index.tsx']
    )
    const parts = await fs.readDir('inertia/agent_inbox')
    assert.sameMembers(
      parts.map((file) => file.basename),
      await readdir(PAGE_PARTS)
    )
    assert.includeMembers(
      parts.map((file) => file.basename),
      ['form_state.ts', 'inbox.css', 'question_card.tsx', 'live_updates.ts']
    )
    await assert.fileContains(
      'inertia/pages/agent_inbox/index.tsx',
      `from '../../agent_inbox/question_card'`
    )
    await assert.fileContains('.env', 'AGENT_MODEL=openai/gpt-5')
    await assert.fileContains('start/env.ts', 'AGENT_MODEL: Env.schema.string.optional()')

    const migrations = await fs.readDir('database/migrations')
    assert.lengthOf(migrations, 1)
    assert.match(migrations[0].basename, /^\d{13}_create_agent_inbox_tables\.ts$/)
    await assert.fileContains(
      `database/migrations/${migrations[0].basename}`,
      `this.schema.createTable('agent_tool_calls'`
    )
  })

  test('puts the auth middleware in front of the routes when the app has auth', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [AUTH, INERTIA])
    const command = await ace.create(Configure, [PACKAGE])
    await command.exec()
    await assert.fileContains('start/agent_inbox.ts', [
      `import { middleware } from '#start/kernel'`,
      'route.use(middleware.auth())',
    ])
    // One statement a line: the stub engine once glued them together (a syntax error)
    const routes = await fs.contents('start/agent_inbox.ts')
    assert.match(routes, /^import \{ middleware \} from '#start\/kernel'$/m)
    assert.match(routes, /^import \{ registerInboxRoutes \} from 'adonis-agent-inbox'$/m)
    assert.match(routes, /^registerInboxRoutes\(router, \{ modifier: /m)
  })

  test('running it twice changes nothing; --force overwrites', async ({ assert, fs }) => {
    const ace = await setupApp(fs, [INERTIA])
    const first = await ace.create(Configure, [PACKAGE])
    await first.exec()

    await fs.create('inertia/pages/agent_inbox/index.tsx', '// the app changed its page')
    await fs.create('inertia/agent_inbox/inbox.css', '/* the app changed its styles */')
    await fs.create('config/agents.ts', '// the app changed its config')
    const second = await ace.create(Configure, [PACKAGE])
    await second.exec()
    assert.equal(second.exitCode, 0)
    assert.lengthOf(await fs.readDir('database/migrations'), 1)
    assert.equal(
      await fs.contents('inertia/pages/agent_inbox/index.tsx'),
      '// the app changed its page'
    )
    assert.equal(
      await fs.contents('inertia/agent_inbox/inbox.css'),
      '/* the app changed its styles */'
    )
    assert.equal(await fs.contents('config/agents.ts'), '// the app changed its config')
    const rc = await fs.contents('adonisrc.ts')
    assert.equal(rc.split('adonis-agent-inbox/agent_inbox_provider').length - 1, 1)
    const env = await fs.contents('.env')
    assert.equal(env.split('AGENT_MODEL=').length - 1, 1)

    const forced = await ace.create(Configure, [PACKAGE, '--force'])
    await forced.exec()
    assert.notEqual(
      await fs.contents('inertia/pages/agent_inbox/index.tsx'),
      '// the app changed its page'
    )
    await assert.fileContains('inertia/agent_inbox/inbox.css', '.agent-inbox')
    await assert.fileContains('config/agents.ts', 'defineAgent')
  })

  test('an app without Inertia is asked whether it wants the page', async ({ assert, fs }) => {
    const ace = await setupApp(fs)
    const declined = await ace.create(Configure, [PACKAGE])
    declined.prompt.trap(PAGE_PROMPT).reject()
    await declined.exec()
    assert.equal(declined.exitCode, 0)
    await assert.fileNotExists('inertia/pages/agent_inbox/index.tsx')
    await assert.fileNotExists('inertia/agent_inbox/form_state.ts')
    await assert.fileExists('start/agent_inbox.ts')

    const accepted = await ace.create(Configure, [PACKAGE])
    accepted.prompt.trap(PAGE_PROMPT).accept()
    await accepted.exec()
    await assert.fileExists('inertia/pages/agent_inbox/index.tsx')
  })

  test('--no-page and --page answer the prompt up front', async ({ assert, fs }) => {
    const ace = await setupApp(fs, [INERTIA])
    const without = await ace.create(Configure, [PACKAGE, '--no-page'])
    await without.exec()
    assert.equal(without.exitCode, 0)
    await assert.fileNotExists('inertia/pages/agent_inbox/index.tsx')

    const bare = await setupApp(fs)
    const withPage = await bare.create(Configure, [PACKAGE, '--page'])
    await withPage.exec()
    await assert.fileExists('inertia/agent_inbox/form_state.ts')
  })
})
