/*
 * `node ace add adonis-agent-inbox`: publishes config/agents.ts (an example
 * agent with an intake, a read tool and an action tool), the migrations of
 * the package's tables that the app lacks, the Inertia pages (the inbox, a
 * run's page, the history, the operator's console; React or Vue, with
 * uPlot added to the app's dependencies for the console's charts) and the
 * routes file, then
 * registers the provider, the commands, the preload file and the env
 * variable, and prints what is left to do. What it writes and edits is
 * left as the app's own prettier formats it (stubs/main.ts). Running it again changes nothing (and says so) unless
 * `--force` is given, but for the migrations a newer version of the
 * package brings: after an upgrade, `node ace configure adonis-agent-inbox`
 * (or `node ace agents:migrations`, which does nothing else) publishes
 * those alone (database/migration_stubs.ts).
 *
 * Flags: `--page` / `--no-page` decide whether the pages are published
 * (else yes with @adonisjs/inertia, else a prompt, and without a terminal
 * to ask, no); `--framework=react|vue` which pages (else the one of the
 * app's Inertia client, as its rc file indexes pages or its package.json
 * lists `@inertiajs/react` / `@inertiajs/vue3`, else a prompt when it has
 * neither or both, and without a
 * terminal to ask, an error before anything is written);
 * `--install` / `--no-install` decide whether the packages the pages
 * import and an Inertia app lacks (uPlot, the console's charts) are added
 * to the app's dependencies (else a prompt, and without a terminal to ask,
 * no: the command to run is printed instead);
 * `--executor=queue` writes a config whose runs are driven by
 * `@adonisjs/queue` workers (default `inline`); ace's own `--force`
 * overwrites files already published (config, migrations, in place, pages,
 * routes file).
 */

import { access, copyFile, mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BaseCommand } from '@adonisjs/core/ace'
import type Configure from '@adonisjs/core/commands/configure'
import { formatAppFiles, makeFromStub, stubsRoot } from './stubs/main.ts'
import {
  migrationPrefixes,
  missingMigrations,
  publishedMigration,
  readMigrationStubs,
} from './database/migration_stubs.ts'

/** The package's migration stubs, in the sources and once built (build/database/migrations/) */
const migrationsRoot = fileURLToPath(new URL('./database/migrations/', import.meta.url))
/** The Inertia clients the pages are written for, by the package that names each */
const FRAMEWORKS = { react: '@inertiajs/react', vue: '@inertiajs/vue3' } as const
type Framework = keyof typeof FRAMEWORKS
const FRAMEWORK_PROMPT = 'Which Inertia framework should the inbox pages use?'
/**
 * What the published pages import besides the app's Inertia client: uPlot
 * draws the console's charts (stubs/inertia/agent_console/uplot_chart.ts)
 */
/** What the pages import beyond Inertia: the console's charts, and the chat's AI SDK UI */
function pagePackageList(framework: Framework) {
  return [
    { name: 'uplot', version: '^1.6.32' },
    framework === 'vue'
      ? { name: '@ai-sdk/vue', version: '^4.0.142' }
      : { name: '@ai-sdk/react', version: '^4.0.177' },
  ]
}
export const INSTALL_PROMPT =
  "Add the pages' packages (uplot for the console charts, the AI SDK UI for the chat) to the app dependencies?"

/**
 * The pages' folders below stubs/inertia/, each with where the app
 * receives it below its inertia/: the pages alone in pages/ (every file
 * there is a page to Inertia), their parts beside them, the framework's own
 * (cards, hooks) and the shared ones (state, words, styles) in one folder.
 * Plain TSX and Vue files (their braces would trip the stub engine),
 * copied as they are.
 */
function pageFolders(framework: Framework): [from: string, to: string][] {
  return [
    [`${framework}/pages/agent_inbox`, 'pages/agent_inbox'],
    ['agent_inbox', 'agent_inbox'],
    [`${framework}/agent_inbox`, 'agent_inbox'],
    [`${framework}/pages/agent_console`, 'pages/agent_console'],
    ['agent_console', 'agent_console'],
    [`${framework}/agent_console`, 'agent_console'],
  ]
}
/** What the rc file gets, and how each entry reads once there */
const RC_ENTRIES = {
  provider: 'adonis-agent-inbox/agent_inbox_provider',
  commands: 'adonis-agent-inbox/commands',
  preload: '#start/agent_inbox',
}
const ENV_VARIABLE = 'AGENT_MODEL'
const QUEUE_PROVIDER = '@adonisjs/queue/queue_provider'
type Executor = 'inline' | 'queue'
const DEFAULT_MODEL = 'openai/gpt-5'

async function exists(path: string) {
  return access(path).then(
    () => true,
    () => false
  )
}

/**
 * A flag of configure's, or undefined when it was not given. `node ace add
 * adonis-agent-inbox --no-page` forwards only truthy flags to configure,
 * so a flag `add` dropped is read off `add` itself (the main command of the
 * process).
 */
async function flagValue(command: Configure, name: string): Promise<unknown> {
  const own = command.parsedFlags[name]
  if (own !== undefined) return own
  const kernel = await command.app.container.make('ace')
  const main = kernel.getMainCommand()
  if (!main || main === command || main.commandName !== 'add') return undefined
  // ace keeps a command's parsed input protected; `add` takes unknown flags as they are
  const parsed = (main as unknown as { parsed?: { flags?: Record<string, unknown> } }).parsed
  return parsed?.flags?.[name]
}

/**
 * The `--page` / `--no-page` flag, or undefined when neither was given.
 */
async function pageFlag(command: Configure): Promise<boolean | undefined> {
  const value = await flagValue(command, 'page')
  return value === undefined ? undefined : value !== false && value !== 'false'
}

/**
 * The Inertia clients the app says it has: the framework its rc file
 * indexes pages for (`indexPages({ framework: 'react' | 'vue3' })`, as the
 * starter kits write it), and the clients its package.json lists.
 */
async function appFrameworks(command: Configure, rcSource: string): Promise<Framework[]> {
  const indexed = /indexPages\(\s*\{[^}]*framework:\s*['"](react|vue3)['"]/.exec(rcSource)?.[1]
  const manifest = await readFile(command.app.makePath('package.json'), 'utf8').catch(() => '{}')
  const pkg = JSON.parse(manifest) as Record<string, Record<string, string> | undefined>
  return (Object.keys(FRAMEWORKS) as Framework[]).filter(
    (name) =>
      indexed === (name === 'vue' ? 'vue3' : name) ||
      [pkg.dependencies, pkg.devDependencies].some((deps) => deps?.[FRAMEWORKS[name]])
  )
}

/**
 * Which pages to publish: `--framework`, else the app's Inertia client
 * when it has one of the two, else ask. Null (and the exit code set, the
 * error logged) when the flag names no framework of the package, or when
 * nobody can be asked.
 */
async function chooseFramework(command: Configure, rcSource: string): Promise<Framework | null> {
  const given = await flagValue(command, 'framework')
  const names = Object.keys(FRAMEWORKS) as Framework[]
  if (given !== undefined) {
    if (names.includes(given as Framework)) return given as Framework
    command.exitCode = 1
    command.logger.logError(
      `Unknown --framework "${String(given)}": the inbox pages are written for ${names.join(' and ')}`
    )
    return null
  }
  const installed = await appFrameworks(command, rcSource)
  if (installed.length === 1) return installed[0]
  if (!process.stdin.isTTY) {
    command.exitCode = 1
    command.logger.logError(
      `${installed.length === 0 ? 'The app uses neither @inertiajs/react nor' : 'The app uses both @inertiajs/react and'} @inertiajs/vue3, and there is no terminal to ask which pages to publish: pass --framework=react or --framework=vue (or --no-page)`
    )
    return null
  }
  return command.prompt.choice(FRAMEWORK_PROMPT, names, { default: installed[0] ?? 'react' })
}

/**
 * `--executor=inline|queue` (default inline), or null after reporting a
 * value that is neither.
 */
async function executorFlag(command: Configure): Promise<Executor | null> {
  const value = (await flagValue(command, 'executor')) ?? 'inline'
  if (value === 'inline' || value === 'queue') return value
  command.logger.logError(
    `Invalid --executor "${String(value)}": use --executor=inline (runs resume in the process that settled them) or --executor=queue (on @adonisjs/queue workers)`
  )
  command.exitCode = 1
  return null
}

/**
 * Whether to publish the Inertia page: `--page` / `--no-page`, else yes
 * when the app has @adonisjs/inertia, else ask (the JSON API works without
 * it). With no terminal to ask (CI, a script, stdin closed) the answer is
 * no, and the message says how to change it: a prompt nobody can answer
 * would stop the command half way.
 */
async function wantsPage(command: Configure, hasInertia: boolean): Promise<boolean> {
  const flag = await pageFlag(command)
  if (flag !== undefined) return flag
  if (hasInertia) return true
  const question =
    'This app has no @adonisjs/inertia. Publish the inbox page anyway? (the JSON API works without it)'
  if (!process.stdin.isTTY) {
    command.logger.warning(
      'No terminal to ask whether to publish the inbox page (the app has no @adonisjs/inertia), so it is not published. Pass --page to publish it, or --no-page to say so'
    )
    return false
  }
  return command.prompt.confirm(question, { default: false })
}

/**
 * The pages' packages the app's package.json lacks, and whether to install
 * them: `--install` / `--no-install`, else ask (yes by default), and with
 * no terminal to ask, no. Asked before anything is written.
 */
async function pagePackages(command: Configure, framework: Framework) {
  const manifest = await readFile(command.app.makePath('package.json'), 'utf8').catch(() => '{}')
  const pkg = JSON.parse(manifest) as Record<string, Record<string, string> | undefined>
  const missing = pagePackageList(framework).filter(
    ({ name }) => !pkg.dependencies?.[name] && !pkg.devDependencies?.[name]
  )
  const flag = await flagValue(command, 'install')
  let install = flag === undefined ? undefined : flag !== false && flag !== 'false'
  if (missing.length > 0 && install === undefined) {
    install = process.stdin.isTTY
      ? await command.prompt.confirm(INSTALL_PROMPT, { default: true })
      : false
  }
  return { missing, install: install === true, all: pagePackageList(framework) }
}

/**
 * Adds the pages' packages to the app's dependencies, or prints the
 * command that does when it was told not to (or nobody could be asked).
 */
async function installPagePackages(
  command: Configure,
  { missing, install, all }: Awaited<ReturnType<typeof pagePackages>>
) {
  const names = all.map(({ name }) => name).join(', ')
  if (missing.length === 0) {
    command.logger.action(`install ${names}`).skipped('already a dependency')
    return
  }
  const codemods = await command.createCodemods()
  const packages = missing.map(({ name, version }) => ({
    name: `${name}@${version}`,
    isDevDependency: false,
  }))
  if (install) {
    await codemods.installPackages(packages)
    return
  }
  await codemods.listPackagesToInstall(packages)
  if (!process.stdin.isTTY && (await flagValue(command, 'install')) === undefined) {
    command.logger.warning(
      `No terminal to ask whether to install ${missing.map(({ name }) => name).join(' and ')}, which the pages import: install them as printed above, or pass --install`
    )
  }
}

/**
 * Copies the pages' files into the app's inertia/ folder, keeping the app's
 * own copies unless `force`.
 */
async function publishPages(
  command: Configure,
  framework: Framework,
  inertiaRoot: string,
  force: boolean
) {
  for (const [from, to] of pageFolders(framework)) {
    const source = join(stubsRoot, 'inertia', from)
    await mkdir(join(inertiaRoot, to), { recursive: true })
    const files = await readdir(source)
    for (const file of files.sort()) {
      const destination = join(inertiaRoot, to, file)
      const action = command.logger.action(`create inertia/${to}/${file}`)
      if ((await exists(destination)) && !force) {
        action.skipped('already exists')
        continue
      }
      await copyFile(join(source, file), destination)
      action.succeeded()
    }
  }
}

/**
 * Registers what adonisrc.ts lacks of the provider, the commands and the
 * preload file. The codemod reports "update adonisrc.ts" even when it adds
 * nothing, so an rc file that has them all is left alone and said so.
 */
async function registerInRcFile(command: Configure, rcSource: string) {
  const codemods = await command.createCodemods()
  const missing = {
    provider: !rcSource.includes(`'${RC_ENTRIES.provider}'`),
    commands: !rcSource.includes(`'${RC_ENTRIES.commands}'`),
    preload: !rcSource.includes(`'${RC_ENTRIES.preload}'`),
  }
  if (!missing.provider && !missing.commands && !missing.preload) {
    command.logger.action('update adonisrc.ts file').skipped('already registered')
    return
  }
  await codemods.updateRcFile((rcFile) => {
    if (missing.provider) rcFile.addProvider(RC_ENTRIES.provider)
    if (missing.commands) rcFile.addCommand(RC_ENTRIES.commands)
    if (missing.preload) rcFile.addPreloadFile(RC_ENTRIES.preload)
  })
  await formatAppFiles(command.app.makePath(), [command.app.makePath('adonisrc.ts')])
}

/**
 * Adds AGENT_MODEL to .env and its validation to start/env.ts, each unless
 * it is there already (the codemods report an update either way).
 */
async function defineEnv(command: Configure) {
  const app = command.app
  const codemods = await command.createCodemods()
  const dotEnv = await readFile(app.makePath('.env'), 'utf8').catch(() => '')
  if (new RegExp(`^\\s*${ENV_VARIABLE}=`, 'm').test(dotEnv)) {
    command.logger.action('update .env file').skipped(`${ENV_VARIABLE} is set`)
  } else {
    await codemods.defineEnvVariables({ [ENV_VARIABLE]: DEFAULT_MODEL })
  }
  const envFile = await readFile(app.makePath('start/env.ts'), 'utf8').catch(() => '')
  if (envFile.includes(`${ENV_VARIABLE}:`)) {
    command.logger.action('update start/env.ts file').skipped(`${ENV_VARIABLE} is validated`)
  } else {
    await codemods.defineEnvValidations({
      leadingComment: 'Variables for adonis-agent-inbox',
      variables: { [ENV_VARIABLE]: 'Env.schema.string.optional()' },
    })
    await formatAppFiles(app.makePath(), [app.makePath('start/env.ts')])
  }
}

/**
 * Publishes the package's migrations the app lacks (database/migration_stubs.ts),
 * each timestamped after the app's own, in the order they run; one it has
 * is skipped, whatever its timestamp, or with `force` rendered again in
 * place. Returns the files written. Also `node ace agents:migrations`.
 */
export async function publishMigrations(command: BaseCommand, force: boolean) {
  const codemods = await command.createCodemods()
  const folder = command.app.makePath('database/migrations')
  const appFiles = (await exists(folder)) ? await readdir(folder) : []
  const stubs = await readMigrationStubs(migrationsRoot)
  const missing = missingMigrations(stubs, appFiles)
  const prefixes = migrationPrefixes(missing.length)
  const written: string[] = []
  for (const stub of stubs) {
    const existing = publishedMigration(stub, appFiles)
    if (existing && !force) {
      command.logger.action(`create database/migrations/${existing}`).skipped('already exists')
      continue
    }
    const prefix = existing
      ? existing.slice(0, -`_${stub.name}.ts`.length)
      : prefixes[missing.indexOf(stub)]
    const output = await makeFromStub(command, codemods, migrationsRoot, stub.file, { prefix })
    if (output.status !== 'skipped') written.push(command.app.relativePath(output.destination))
  }
  return written
}

/**
 * What is left to do, printed last: the migration, the model's key, where
 * the inbox is.
 */
function printNextSteps(command: Configure, page: boolean, queue: QueueSetup) {
  const lines = [
    'Next steps:',
    '  1. node ace migration:run',
    `  2. ${ENV_VARIABLE}=${DEFAULT_MODEL} is a Vercel AI Gateway model id: set AI_GATEWAY_API_KEY in .env.`,
    `     Or give ${ENV_VARIABLE} another gateway id, or a provider's model in config/agents.ts,`,
    `     e.g. openai('gpt-5') from @ai-sdk/openai with OPENAI_API_KEY.`,
    '  3. Sign in, start a run that waits for you (node ace agents:run operator --owner=<your user id>)',
    page
      ? "     and open /inbox (a run's page and the history link from there)"
      : '     and read /inbox: it answers JSON',
  ]
  if (queue !== 'none') {
    lines.push(
      '  4. Runs are driven by @adonisjs/queue workers: start them with node ace queue:work'
    )
  }
  if (queue === 'missing') {
    lines.push(
      '     This app has no @adonisjs/queue yet: run node ace add @adonisjs/queue first',
      '     (Redis, or its database backend for an app without Redis)'
    )
  }
  command.logger.info(lines.join('\n'))
}

/** What the queue executor needs of the app: nothing, present, or still missing */
type QueueSetup = 'none' | 'ready' | 'missing'

export async function configure(command: Configure) {
  const app = command.app
  const codemods = await command.createCodemods()
  const force = Boolean(command.force)

  // Every question is answered before the first file is written
  const rcSource = await readFile(app.makePath('adonisrc.ts'), 'utf8').catch(() => '')
  const executor = await executorFlag(command)
  if (!executor) return
  const page = await wantsPage(command, rcSource.includes('@adonisjs/inertia'))
  const framework = page ? await chooseFramework(command, rcSource) : null
  if (page && !framework) return
  const packages = framework ? await pagePackages(command, framework) : null

  await makeFromStub(command, codemods, stubsRoot, 'config/agents.stub', {
    // The stub engine drops the line breaks before a tag, so the value brings its own
    executor:
      executor === 'queue'
        ? `\n\n  /**\n   * Runs are driven by @adonisjs/queue workers (node ace queue:work), a job\n   * per resume carrying the run id; see config/queue.ts for the backend.\n   */\n  executor: 'queue',`
        : '',
  })

  await publishMigrations(command, force)

  if (framework) await publishPages(command, framework, app.makePath('inertia'), force)
  if (packages) await installPagePackages(command, packages)

  // With @adonisjs/auth registered, the inbox sits behind its auth middleware
  const withAuth = rcSource.includes('@adonisjs/auth')
  // The stub engine drops the line breaks before a tag, so each value brings its own
  await makeFromStub(command, codemods, stubsRoot, 'start/agent_inbox.stub', {
    middlewareImport: withAuth ? `\nimport { middleware } from '#start/kernel'` : '',
    registration: withAuth
      ? '\n\nregisterInboxRoutes(router, { modifier: (route) => route.use(middleware.auth()) })\nregisterConsoleRoutes(router, { modifier: (route) => route.use(middleware.auth()) })'
      : '\n\n// Put your auth middleware in front: the default access hooks read ctx.auth\nregisterInboxRoutes(router)\nregisterConsoleRoutes(router)',
  })

  await registerInRcFile(command, rcSource)
  await defineEnv(command)
  const queue: QueueSetup =
    executor === 'inline' ? 'none' : rcSource.includes(QUEUE_PROVIDER) ? 'ready' : 'missing'
  printNextSteps(command, page, queue)
}
