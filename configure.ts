/*
 * `node ace add adonis-agent-inbox`: publishes config/agents.ts (an example
 * agent with an intake, a read tool and an action tool), the migration of
 * the package's tables, the Inertia inbox page and the routes file, then
 * registers the provider, the commands, the preload file and the env
 * variable. Running it again changes nothing unless `--force` is given.
 *
 * Flags: `--page` / `--no-page` decide whether the page is published (else
 * yes with @adonisjs/inertia, else a prompt); ace's own `--force` overwrites
 * files already published (config, migration, page, routes file).
 */

import { access, copyFile, mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type Configure from '@adonisjs/core/commands/configure'
import { stubsRoot } from './stubs/main.ts'

const migrationsRoot = fileURLToPath(new URL('./database/migrations/', import.meta.url))
const MIGRATION_SUFFIX = '_create_agent_inbox_tables.ts'
/**
 * The page's folders below stubs/inertia/, published below the app's
 * inertia/: the page alone in pages/ (every file there is a page to
 * Inertia), its cards, hooks, state and styles beside it. Plain TSX (JSX
 * braces would trip the stub engine), copied as is.
 */
const PAGE_FOLDERS = ['pages/agent_inbox', 'agent_inbox']

async function exists(path: string) {
  return access(path).then(
    () => true,
    () => false
  )
}

/**
 * Whether to publish the Inertia page: `--page` / `--no-page`, else yes
 * when the app has @adonisjs/inertia, else ask (the JSON API works without it).
 */
async function wantsPage(command: Configure, hasInertia: boolean): Promise<boolean> {
  const flag = command.parsedFlags.page
  if (flag !== undefined) return flag !== false && flag !== 'false'
  if (hasInertia) return true
  return command.prompt.confirm(
    'This app has no @adonisjs/inertia. Publish the inbox page anyway? (the JSON API works without it)',
    { default: false }
  )
}

/**
 * Copies the page's files into the app's inertia/ folder, keeping the app's
 * own copies unless `force`.
 */
async function publishPage(command: Configure, inertiaRoot: string, force: boolean) {
  for (const folder of PAGE_FOLDERS) {
    const source = join(stubsRoot, 'inertia', folder)
    await mkdir(join(inertiaRoot, folder), { recursive: true })
    const files = await readdir(source)
    for (const file of files.sort()) {
      const destination = join(inertiaRoot, folder, file)
      const action = command.logger.action(`create inertia/${folder}/${file}`)
      if ((await exists(destination)) && !force) {
        action.skipped('already exists')
        continue
      }
      await copyFile(join(source, file), destination)
      action.succeeded()
    }
  }
}

export async function configure(command: Configure) {
  const app = command.app
  const codemods = await command.createCodemods()
  const force = Boolean(command.force)

  await codemods.makeUsingStub(stubsRoot, 'config/agents.stub', {})

  // The migration name is timestamped, so "already published" means any prefix
  const migrationsDir = app.makePath('database/migrations')
  const migrations = (await exists(migrationsDir)) ? await readdir(migrationsDir) : []
  const published = migrations.find((file) => file.endsWith(MIGRATION_SUFFIX))
  if (published && !force) {
    command.logger.action(`create database/migrations/${published}`).skipped('already exists')
  } else {
    await codemods.makeUsingStub(migrationsRoot, 'create_agent_inbox_tables.stub', {
      prefix: Date.now(),
    })
  }

  const rcSource = await readFile(app.makePath('adonisrc.ts'), 'utf8').catch(() => '')
  if (await wantsPage(command, rcSource.includes('@adonisjs/inertia'))) {
    await publishPage(command, app.makePath('inertia'), force)
  }

  // With @adonisjs/auth registered, the inbox sits behind its auth middleware
  const withAuth = rcSource.includes('@adonisjs/auth')
  // The stub engine drops the line breaks before a tag, so each value brings its own
  await codemods.makeUsingStub(stubsRoot, 'start/agent_inbox.stub', {
    middlewareImport: withAuth ? `\nimport { middleware } from '#start/kernel'` : '',
    registration: withAuth
      ? '\n\nregisterInboxRoutes(router, { modifier: (route) => route.use(middleware.auth()) })'
      : '\n\n// Put your auth middleware in front: the default access hooks read ctx.auth\nregisterInboxRoutes(router)',
  })

  await codemods.updateRcFile((rcFile) => {
    rcFile.addProvider('adonis-agent-inbox/agent_inbox_provider')
    rcFile.addCommand('adonis-agent-inbox/commands')
    rcFile.addPreloadFile('#start/agent_inbox')
  })

  await codemods.defineEnvVariables({ AGENT_MODEL: 'openai/gpt-5' })
  await codemods.defineEnvValidations({
    leadingComment: 'Variables for adonis-agent-inbox',
    variables: { AGENT_MODEL: 'Env.schema.string.optional()' },
  })
}
