/*
 * `node ace add adonis-agent-inbox` against a fake AdonisJS 7 app tree: the
 * files it publishes, the rc file and env changes, idempotence, --force,
 * --page / --no-page, and the migrations an app that installed an earlier
 * release lacks. Also the rules of the migration stubs themselves: named
 * in order, each publishing the name it says, a released one never edited.
 */

import { test } from '@japa/runner'
import { IgnitorFactory } from '@adonisjs/core/factories'
import Configure from '@adonisjs/core/commands/configure'
import Add from '@adonisjs/core/commands/add'
import AgentsMigrations from '../../commands/agents_migrations.ts'
import type { FileSystem } from '@japa/file-system'
import type { Assert } from '@japa/assert'
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import {
  migrationPrefixes,
  migrationStubs,
  missingMigrations,
  readMigrationStubs,
} from '../../database/migration_stubs.ts'

const PACKAGE = new URL('../../index.ts', import.meta.url).href
/** The page's cards, hooks, state and styles, as the package ships them */
const PAGE_PARTS = new URL('../../stubs/inertia/agent_inbox/', import.meta.url)
const REACT_PARTS = new URL('../../stubs/inertia/react/agent_inbox/', import.meta.url)
const VUE_PARTS = new URL('../../stubs/inertia/vue/agent_inbox/', import.meta.url)
const FRAMEWORK_PROMPT = 'Which Inertia framework should the inbox pages use?'
const INSTALL_PROMPT =
  "Add the pages' packages (uplot for the console charts, the AI SDK UI for the chat) to the app dependencies?"
const INERTIA = '@adonisjs/inertia/inertia_provider'
const AUTH = '@adonisjs/auth/auth_provider'
const MIGRATION_STUBS = new URL('../../database/migrations/', import.meta.url)
/**
 * The stubs releases shipped, as `<version>_<name>.stub`; 0.1.0's is
 * `git show 81ef5f0:database/migrations/create_agent_inbox_tables.stub`
 */
const RELEASED = new URL('../fixtures/migrations/', import.meta.url)
const PAGE_PROMPT =
  'This app has no @adonisjs/inertia. Publish the inbox page anyway? (the JSON API works without it)'

/**
 * Checks the app holds the three pages of `framework` alone under
 * inertia/pages/ (every file there is a page) and, beside them, the shared
 * parts and that framework's; returns the parts' file names.
 */
async function assertPublished(assert: Assert, fs: FileSystem, framework: 'react' | 'vue') {
  const extension = framework === 'vue' ? 'vue' : 'tsx'
  const pages = await fs.readDir('inertia/pages/agent_inbox')
  assert.sameMembers(
    pages.map((file) => file.basename),
    ['index', 'run', 'history', 'chat'].map((name) => `${name}.${extension}`)
  )
  const published = await fs.readDir('inertia/agent_inbox')
  const parts = published.map((file) => file.basename)
  const own = await readdir(framework === 'vue' ? VUE_PARTS : REACT_PARTS)
  assert.sameMembers(parts, [...(await readdir(PAGE_PARTS)), ...own])
  return parts
}

/**
 * A minimal app tree, booted, with ace ready to run `configure`. An app with
 * Inertia has the React client in its package.json unless `dependencies`
 * say otherwise.
 */
async function setupApp(
  fs: FileSystem,
  providers: string[] = [],
  dependencies: Record<string, string> = providers.includes(INERTIA)
    ? { '@inertiajs/react': '^3.0.0' }
    : {},
  rcLines = ''
) {
  /*
   * The codemods' ts-morph project parses what the app's files import
   * unless told not to: here the repository's @types and the published
   * pages' React and Inertia types, 2–10 s a configure run. The edits are
   * syntactic, so the fake app resolves nothing (a real app's configure
   * runs in tests/configure/configured_app.spec.ts and packed_app.spec.ts).
   */
  await fs.createJson('tsconfig.json', { compilerOptions: { noResolve: true, types: [] } })
  await fs.createJson('package.json', { name: 'app', dependencies })
  await fs.create(
    'adonisrc.ts',
    `export default defineConfig({${rcLines}
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

/** The app's migration files, by name, in the order they run */
async function appMigrations(fs: FileSystem): Promise<string[]> {
  const files = await fs.readDir('database/migrations')
  return files.map((file) => file.basename).sort()
}

/** How many migration stubs the package ships */
async function stubCount(): Promise<number> {
  const stubs = await readdir(MIGRATION_STUBS)
  return stubs.length
}

/**
 * Runs `body` with stdin seen as a terminal or not: configure asks only
 * when someone can answer.
 */
async function withStdinTTY<T>(isTTY: boolean, body: () => Promise<T>): Promise<T> {
  const before = Object.getOwnPropertyDescriptor(process.stdin, 'isTTY')
  Object.defineProperty(process.stdin, 'isTTY', { value: isTTY, configurable: true })
  try {
    return await body()
  } finally {
    if (before) Object.defineProperty(process.stdin, 'isTTY', before)
    else delete (process.stdin as { isTTY?: boolean }).isTTY
  }
}

/** What a command logged, in ace's raw mode, one line per message */
function logsOf(ace: Awaited<ReturnType<typeof setupApp>>): string[] {
  const logs = ace.ui.logger.getLogs().map((log) => log.message)
  ace.ui.logger.flushLogs()
  return logs
}

test.group('Configure', (group) => {
  // Each configure run builds a ts-morph project for its codemods: seconds on a busy machine
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
    // The pages alone under inertia/pages/ (every file there is a page), their parts beside them
    const parts = await assertPublished(assert, fs, 'react')
    assert.includeMembers(parts, [
      'form_state.ts',
      'inbox.css',
      'question_card.tsx',
      'live_updates.ts',
    ])
    await assert.fileContains(
      'inertia/pages/agent_inbox/index.tsx',
      `from '../../agent_inbox/question_card'`
    )
    await assert.fileContains('.env', 'AGENT_MODEL=openai/gpt-5')
    await assert.fileContains('start/env.ts', 'AGENT_MODEL: Env.schema.string.optional()')

    // Every migration of the package, in the order they run
    const stubs = await readMigrationStubs(fileURLToPath(MIGRATION_STUBS))
    const migrations = await appMigrations(fs)
    assert.deepEqual(
      migrations.map((file) => file.replace(/^\d{13}_/, '')),
      stubs.map((stub) => `${stub.name}.ts`)
    )
    assert.match(migrations[0], /^\d{13}_create_agent_inbox_tables\.ts$/)
    await assert.fileContains(
      `database/migrations/${migrations[0]}`,
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
    assert.match(
      routes,
      /^import \{ registerConsoleRoutes, registerInboxRoutes \} from 'adonis-agent-inbox'$/m
    )
    assert.match(routes, /^registerInboxRoutes\(router, \{ modifier: /m)
    assert.match(routes, /^registerConsoleRoutes\(router, \{ modifier: /m)
  })

  test('running it twice changes nothing; --force overwrites', async ({ assert, fs }) => {
    const ace = await setupApp(fs, [INERTIA])
    const first = await ace.create(Configure, [PACKAGE])
    await first.exec()

    await fs.create('inertia/pages/agent_inbox/index.tsx', '// the app changed its page')
    await fs.create('inertia/agent_inbox/inbox.css', '/* the app changed its styles */')
    await fs.create('config/agents.ts', '// the app changed its config')
    logsOf(ace)
    const second = await ace.create(Configure, [PACKAGE])
    await second.exec()
    assert.equal(second.exitCode, 0)
    // Nothing changed, and nothing claims to have changed
    const secondLogs = logsOf(ace)
    assert.deepEqual(
      secondLogs.filter((line) => /DONE/.test(line)),
      []
    )
    assert.isTrue(secondLogs.some((line) => /SKIPPED.*update adonisrc\.ts/.test(line)))
    const migrations = await appMigrations(fs)
    assert.lengthOf(migrations, await stubCount())
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
    // The migrations are rendered again in place: no second copy under a new timestamp
    assert.sameMembers(await appMigrations(fs), migrations)
  })

  test('an app without Inertia is asked whether it wants the page', async ({ assert, fs }) => {
    const ace = await setupApp(fs)
    const declined = await ace.create(Configure, [PACKAGE])
    declined.prompt.trap(PAGE_PROMPT).reject()
    await withStdinTTY(true, () => declined.exec())
    assert.equal(declined.exitCode, 0)
    await assert.fileNotExists('inertia/pages/agent_inbox/index.tsx')
    await assert.fileNotExists('inertia/agent_inbox/form_state.ts')
    await assert.fileExists('start/agent_inbox.ts')

    const accepted = await ace.create(Configure, [PACKAGE])
    accepted.prompt.trap(PAGE_PROMPT).accept()
    // No Inertia client in its package.json either: which pages is asked too
    accepted.prompt.trap(FRAMEWORK_PROMPT).chooseOption(0)
    accepted.prompt.trap(INSTALL_PROMPT).reject()
    await withStdinTTY(true, () => accepted.exec())
    await assert.fileExists('inertia/pages/agent_inbox/index.tsx')
  })

  test('without a terminal to ask, the page is left out, everything else is done, and it says how', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs)
    // No trap: a prompt here would fail the test ("no trap set")
    const command = await ace.create(Configure, [PACKAGE])
    await withStdinTTY(false, () => command.exec())
    assert.equal(command.exitCode, 0)
    await assert.fileNotExists('inertia/pages/agent_inbox/index.tsx')
    await assert.fileExists('config/agents.ts')
    assert.lengthOf(await fs.readDir('database/migrations'), await stubCount())
    await assert.fileContains('start/agent_inbox.ts', 'registerInboxRoutes(router)')
    await assert.fileContains('adonisrc.ts', [
      `() => import('adonis-agent-inbox/agent_inbox_provider')`,
      `() => import('#start/agent_inbox')`,
    ])
    await assert.fileContains('.env', 'AGENT_MODEL=openai/gpt-5')
    const warning = logsOf(ace).find((line) => line.includes('No terminal to ask'))
    assert.exists(warning)
    assert.include(warning, '--page')
    assert.include(warning, '--no-page')
  })

  test('`node ace add adonis-agent-inbox --no-page`: the flag add does not forward is read off add', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    // What `add` runs after installing: configure, with only its truthy flags
    const add = await ace.create(Add, ['adonis-agent-inbox', '--no-page'])
    ace.getMainCommand = () => add
    const command = await ace.create(Configure, [PACKAGE])
    await command.exec()
    assert.equal(command.exitCode, 0)
    await assert.fileNotExists('inertia/pages/agent_inbox/index.tsx')
    await assert.fileExists('start/agent_inbox.ts')

    // Any other main command leaves the decision to configure's own flags
    const withPage = await ace.create(Add, ['adonis-agent-inbox', '--page'])
    ace.getMainCommand = () => withPage
    const again = await ace.create(Configure, [PACKAGE])
    await again.exec()
    await assert.fileExists('inertia/pages/agent_inbox/index.tsx')
  })

  test('prints what is left to do: the migration, and the key the default model needs', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const command = await ace.create(Configure, [PACKAGE])
    await command.exec()
    const printed = logsOf(ace).join('\n')
    assert.include(printed, 'node ace migration:run')
    assert.include(printed, 'AI_GATEWAY_API_KEY')
    assert.include(printed, '/inbox')
  })

  test('--no-page and --page answer the prompt up front', async ({ assert, fs }) => {
    const ace = await setupApp(fs, [INERTIA])
    const without = await ace.create(Configure, [PACKAGE, '--no-page'])
    await without.exec()
    assert.equal(without.exitCode, 0)
    await assert.fileNotExists('inertia/pages/agent_inbox/index.tsx')

    const bare = await setupApp(fs)
    const withPage = await bare.create(Configure, [PACKAGE, '--page', '--framework=react'])
    await withPage.exec()
    await assert.fileExists('inertia/agent_inbox/form_state.ts')
  })

  test('--framework=vue publishes the Vue pages, their parts and the shared ones', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const command = await ace.create(Configure, [PACKAGE, '--framework=vue'])
    await command.exec()
    assert.equal(command.exitCode, 0)
    const parts = await assertPublished(assert, fs, 'vue')
    assert.notInclude(parts, 'approval_card.tsx')
    await assert.fileContains('inertia/pages/agent_inbox/index.vue', `from '@inertiajs/vue3'`)
    await assert.fileContains('inertia/agent_inbox/schema_form.ts', 'export function argsForm')
  })

  test("the app's Inertia client decides; with neither or both it is asked", async ({
    assert,
    fs,
  }) => {
    const vue = await setupApp(fs, [INERTIA], { '@inertiajs/vue3': '^3.0.0' })
    // No trap: a Vue app gets the Vue pages without a question
    const detected = await vue.create(Configure, [PACKAGE, '--no-install'])
    await withStdinTTY(true, () => detected.exec())
    assert.equal(detected.exitCode, 0)
    await assert.fileExists('inertia/pages/agent_inbox/run.vue')

    // As the Vue starter kit's rc file says it, with nothing in package.json
    const indexed = await setupApp(
      fs,
      [INERTIA],
      {},
      `
  hooks: { init: [indexPages({ framework: 'vue3' })] },`
    )
    const fromRc = await indexed.create(Configure, [PACKAGE, '--force'])
    await withStdinTTY(false, () => fromRc.exec())
    assert.equal(fromRc.exitCode, 0)
    await assert.fileExists('inertia/pages/agent_inbox/history.vue')

    const both = await setupApp(fs, [INERTIA], {
      '@inertiajs/react': '^3.0.0',
      '@inertiajs/vue3': '^3.0.0',
    })
    const asked = await both.create(Configure, [PACKAGE, '--force'])
    asked.prompt.trap(FRAMEWORK_PROMPT).chooseOption(0)
    asked.prompt.trap(INSTALL_PROMPT).reject()
    await withStdinTTY(true, () => asked.exec())
    assert.equal(asked.exitCode, 0)
    await assert.fileExists('inertia/pages/agent_inbox/history.tsx')
  })

  test("the pages' packages (uPlot, the AI SDK UI): asked for, printed when declined or nobody can answer, not asked when present", async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const unattended = await ace.create(Configure, [PACKAGE])
    await withStdinTTY(false, () => unattended.exec())
    assert.equal(unattended.exitCode, 0)
    await assert.fileContains('inertia/pages/agent_console/index.tsx', `from '@inertiajs/react'`)
    await assert.fileContains('inertia/agent_console/uplot_chart.ts', `import uPlot from 'uplot'`)
    await assert.fileContains(
      'inertia/agent_console/console_lists.tsx',
      'export function OverdueList'
    )
    const printed = logsOf(ace)
    assert.isTrue(printed.some((line) => /npm i\b.*uplot@\^1\.6\.32/.test(line)))
    // The chat page's AI SDK UI, of the app's framework
    assert.isTrue(printed.some((line) => /npm i\b.*@ai-sdk\/react@\^4/.test(line)))
    assert.isTrue(printed.some((line) => line.includes('pass --install')))

    const declined = await ace.create(Configure, [PACKAGE])
    declined.prompt.trap(INSTALL_PROMPT).reject()
    await withStdinTTY(true, () => declined.exec())
    assert.isTrue(logsOf(ace).some((line) => /npm i\b.*uplot@\^1\.6\.32/.test(line)))

    const flagged = await ace.create(Configure, [PACKAGE, '--no-install'])
    await withStdinTTY(true, () => flagged.exec())
    assert.isTrue(logsOf(ace).some((line) => /npm i\b.*uplot@\^1\.6\.32/.test(line)))

    // An app that has it: no question (no trap set), nothing to install
    await fs.createJson('package.json', {
      name: 'app',
      dependencies: { '@inertiajs/react': '^3.0.0', 'uplot': '^1.6.0', '@ai-sdk/react': '^4.0.0' },
    })
    const present = await ace.create(Configure, [PACKAGE])
    await withStdinTTY(true, () => present.exec())
    assert.equal(present.exitCode, 0)
    assert.isTrue(logsOf(ace).some((line) => /SKIPPED.*install uplot, @ai-sdk\/react/.test(line)))
  })

  test('an unknown --framework, or nobody to ask, stops before anything is written', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const unknown = await ace.create(Configure, [PACKAGE, '--framework=svelte'])
    await unknown.exec()
    assert.equal(unknown.exitCode, 1)
    assert.isTrue(logsOf(ace).some((line) => line.includes('Unknown --framework "svelte"')))
    await assert.fileNotExists('config/agents.ts')
    await assert.fileNotExists('inertia/pages/agent_inbox/index.tsx')

    const neither = await setupApp(fs, [INERTIA], {})
    const unasked = await neither.create(Configure, [PACKAGE])
    await withStdinTTY(false, () => unasked.exec())
    assert.equal(unasked.exitCode, 1)
    const error = logsOf(neither).find((line) => line.includes('no terminal to ask'))
    assert.include(error, 'neither @inertiajs/react nor @inertiajs/vue3')
    assert.include(error, '--framework=react')
    await assert.fileNotExists('config/agents.ts')
  })

  test('--executor=queue writes a config driven by queue workers, and says to add @adonisjs/queue when missing', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const command = await ace.create(Configure, [PACKAGE, '--executor=queue'])
    await command.exec()
    assert.equal(command.exitCode, 0)
    const config = await fs.contents('config/agents.ts')
    assert.match(config, /^ {2}limits: \{\},\n\n {2}\/\*\*\n/m)
    assert.match(config, /^ {2}executor: 'queue',\n\}\)$/m)
    const printed = logsOf(ace).join('\n')
    assert.include(printed, 'node ace queue:work')
    assert.include(printed, 'node ace add @adonisjs/queue')

    const withQueue = await setupApp(fs, [INERTIA, '@adonisjs/queue/queue_provider'])
    const again = await withQueue.create(Configure, [PACKAGE, '--executor=queue', '--force'])
    await again.exec()
    const printedAgain = logsOf(withQueue).join('\n')
    assert.include(printedAgain, 'node ace queue:work')
    assert.notInclude(printedAgain, 'node ace add @adonisjs/queue')
  })

  test('the inline executor is the default, and an unknown --executor is refused before any file', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const refused = await ace.create(Configure, [PACKAGE, '--executor=cron'])
    await refused.exec()
    assert.equal(refused.exitCode, 1)
    assert.include(logsOf(ace).join('\n'), 'Invalid --executor "cron"')
    await assert.fileNotExists('config/agents.ts')

    const inline = await ace.create(Configure, [PACKAGE])
    await inline.exec()
    assert.notInclude(await fs.contents('config/agents.ts'), 'executor')
    assert.notInclude(logsOf(ace).join('\n'), 'queue:work')
  })

  test('an app on an earlier release gets only the migrations it lacks, after its own; again, none', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    // What configure of release 0.1.0 published, and a migration the app wrote since
    const installed = '1700000000000_create_agent_inbox_tables.ts'
    const own = '1750000000000_create_posts_table.ts'
    await fs.create(`database/migrations/${installed}`, '// ran in 0.1.0')
    await fs.create(`database/migrations/${own}`, "// the app's own")
    const before = Date.now()
    const upgrade = await ace.create(Configure, [PACKAGE])
    await upgrade.exec()
    assert.equal(upgrade.exitCode, 0)

    const stubs = await readMigrationStubs(fileURLToPath(MIGRATION_STUBS))
    const files = await appMigrations(fs)
    const added = files.filter((file) => file !== installed && file !== own)
    assert.deepEqual(
      added.map((file) => file.replace(/^\d{13}_/, '')),
      stubs.slice(1).map((stub) => `${stub.name}.ts`)
    )
    // Timestamped now, so they run after everything the app had, in the stubs' order
    assert.isAtLeast(Number(added[0].slice(0, 13)), before)
    assert.deepEqual(files.slice(0, 2), [installed, own])
    assert.equal(await fs.contents(`database/migrations/${installed}`), '// ran in 0.1.0')
    const logs = logsOf(ace)
    assert.isTrue(
      logs.some((line) => line.includes(`SKIPPED`) && line.includes(installed)),
      logs.join('\n')
    )
    for (const file of added) {
      assert.isTrue(
        logs.some((line) => /DONE/.test(line) && line.includes(file)),
        file
      )
    }

    const again = await ace.create(Configure, [PACKAGE])
    await again.exec()
    assert.equal(again.exitCode, 0)
    assert.deepEqual(await appMigrations(fs), files)
    assert.deepEqual(
      logsOf(ace).filter((line) => /DONE/.test(line)),
      []
    )
  })

  test('`node ace agents:migrations` publishes the missing migrations and nothing else', async ({
    assert,
    fs,
  }) => {
    const ace = await setupApp(fs, [INERTIA])
    const installed = '1700000000000_create_agent_inbox_tables.ts'
    await fs.create(`database/migrations/${installed}`, '// ran in 0.1.0')
    const command = await ace.create(AgentsMigrations, [])
    await command.exec()
    assert.equal(command.exitCode, 0)

    const stubs = await readMigrationStubs(fileURLToPath(MIGRATION_STUBS))
    const files = await appMigrations(fs)
    assert.deepEqual(
      files.map((file) => file.replace(/^\d{13}_/, '')),
      stubs.map((stub) => `${stub.name}.ts`)
    )
    assert.equal(files[0], installed)
    await assert.fileNotExists('config/agents.ts')
    await assert.fileNotExists('start/agent_inbox.ts')
    assert.include(logsOf(ace).join('\n'), 'run node ace migration:run')

    const again = await ace.create(AgentsMigrations, [])
    await again.exec()
    assert.equal(again.exitCode, 0)
    assert.lengthOf(await fs.readDir('database/migrations'), stubs.length)
    const logs = logsOf(ace)
    assert.deepEqual(
      logs.filter((line) => /DONE/.test(line)),
      []
    )
    assert.include(logs.join('\n'), 'already published')
  })
})

test.group('Migration stubs', () => {
  test('are numbered from 0001 without a gap, each publishing <timestamp>_<its name>.ts', async ({
    assert,
  }) => {
    const files = await readdir(MIGRATION_STUBS)
    const stubs = migrationStubs(files)
    assert.lengthOf(stubs, files.length, 'every file in database/migrations/ is a stub')
    assert.deepEqual(
      stubs.map((stub) => stub.order),
      stubs.map((_, index) => index + 1)
    )
    for (const stub of stubs) {
      const text = await readFile(new URL(stub.file, MIGRATION_STUBS), 'utf8')
      assert.include(
        text,
        `app.makePath('database/migrations', \`\${prefix}_${stub.name}.ts\`)`,
        stub.file
      )
    }
    assert.equal(new Set(stubs.map((stub) => stub.name)).size, stubs.length)
  })

  test('a released stub is never edited: each equals the one its release shipped', async ({
    assert,
  }) => {
    const stubs = migrationStubs(await readdir(MIGRATION_STUBS))
    assert.equal(stubs[0].file, '0001_create_agent_inbox_tables.stub')
    // <version>_<name>.stub: the stub of that name as the release shipped it
    const released = await readdir(RELEASED)
    assert.include(released, '0.1.0_create_agent_inbox_tables.stub')
    for (const file of released) {
      const name = file.replace(/^\d+\.\d+\.\d+_/, '').replace(/\.stub$/, '')
      const stub = stubs.find((candidate) => candidate.name === name)
      assert.exists(stub, `${file}: the package still ships it`)
      assert.equal(
        await readFile(new URL(stub!.file, MIGRATION_STUBS), 'utf8'),
        await readFile(new URL(file, RELEASED), 'utf8'),
        `${stub!.file} was released: a change of the schema is a new stub (CONTRIBUTING.md)`
      )
    }
  })

  test('an app lacks the stubs none of its files ends with; prefixes keep their order', ({
    assert,
  }) => {
    const stubs = migrationStubs(['0002_add_b.stub', '0001_create_a.stub', 'README.md'])
    assert.deepEqual(
      stubs.map((stub) => stub.name),
      ['create_a', 'add_b']
    )
    assert.deepEqual(
      missingMigrations(stubs, ['1_create_users.ts', '1700000000000_create_a.ts']).map(
        (stub) => stub.file
      ),
      ['0002_add_b.stub']
    )
    assert.deepEqual(missingMigrations(stubs, ['9_create_a.ts', '10_add_b.ts']), [])
    assert.lengthOf(missingMigrations(stubs, []), 2)
    assert.deepEqual(migrationPrefixes(3, 1700000000999), [
      '1700000000999',
      '1700000001000',
      '1700000001001',
    ])
    assert.throws(() => migrationStubs(['create_a.stub']), /NNNN_<name>\.stub/)
    assert.throws(() => migrationStubs(['0001_a.stub', '0001_b.stub']), /share a number/)
  })
})
