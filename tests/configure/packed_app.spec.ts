/*
 * The package as a user installs it, before any release: `npm pack` of this
 * repository (what `npm publish` would upload), `npm install <tarball>` in
 * a fresh app laid out like the React starter kit (tests/fixtures/starter_kit_app.ts,
 * written here, not by anything of the package), `node ace configure
 * adonis-agent-inbox` twice with stdin closed, `node ace codegen`, `tsc`,
 * Vite's build, the app's migrations, its server, and the inbox page in
 * Chromium: a refused answer shows on its card, a reply that loses shows
 * who settled the row and how, and the run completes.
 *
 * The app's Inertia middleware is the starter kit's, which shares nothing
 * of the inbox: the page must work with what its own controller gives it.
 * The app carries the kits' traits that broke before (issue 35): with the
 * guide's displayName hook pasted into config/agents.ts, its eager
 * `withAuthFinder(hash)` User still signs up and logs in; its lint is as
 * clean after configure, make:agent and make:tool as before; configure's next step
 * (`agents:run operator --owner=<id>`) puts a row in the signed-in user's
 * inbox; the page keeps its sizes under the kit's CSS and layout, with one
 * main landmark (a screenshot in artifacts/).
 * SQLite by default, PostgreSQL (a schema of its own) with DB=pg; not on
 * MySQL, so CI runs it twice. No network: the model is the scripted
 * offline provider (tests/fixtures/offline_provider.ts) preloaded into the
 * server.
 */

import { randomUUID } from 'node:crypto'
import { lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { freePort } from '../../fixtures/app/bin/launch.ts'
import { connectionConfig, dbName } from '../helpers/database.ts'
import { eventually, launchBrowser, newSession, postJson, screenshot } from '../helpers/browser.ts'
import { cardOf, settledCard } from '../helpers/inbox_browser.ts'
import {
  installTarball,
  packPackage,
  REPO_ROOT,
  run,
  startServer,
  type AppServer,
} from '../helpers/packed_app.ts'
import { writeStarterKitApp, type StarterKitDb } from '../fixtures/starter_kit_app.ts'

const OFFLINE_PROVIDER = new URL('../fixtures/offline_provider.ts', import.meta.url)
const TSC = fileURLToPath(new URL('node_modules/typescript/bin/tsc', REPO_ROOT))

/** An integer question the app adds to the generated intake, as its owner would */
const USERS_QUESTION = `{
            id: 'users',
            prompt: 'How many users are affected?',
            input: { type: 'integer', min: 0, max: 500 },
            defaults: ['10'],
          },
`

type Diagnostic = { file: string; code: string; text: string }

/**
 * The errors `tsc` printed, by file (relative to the app) and code.
 */
function diagnostics(output: string): Diagnostic[] {
  return [...output.matchAll(/^(\S[^\n(]*)\(\d+,\d+\): error (TS\d+): (.*)$/gm)].map((match) => ({
    file: match[1],
    code: match[2],
    text: match[0],
  }))
}

/**
 * The errors `tsc` printed without a file (a broken tsconfig, a missing
 * input), which fail a typecheck whatever the files say.
 */
function unplaced(output: string): string[] {
  return output.match(/^error TS\d+: .*$/gm) ?? []
}

/**
 * What of `tsc --skipLibCheck false` is the app's or the package's: errors
 * in the app's files and in node_modules/adonis-agent-inbox (a real folder,
 * from the tarball). Left out: the framework's own declarations (linked
 * from the repository, so outside the app), which fail the same way in an
 * app without this package (@adonisjs/core's `commands/main.d.ts` imports a
 * `Command` `@adonisjs/ace/types` lacks, …), and the starter kit's
 * composite-project notice on the generated pages.d.ts (TS6305).
 */
function oursOrTheApps(found: Diagnostic[]) {
  return found.filter((item) => {
    if (item.file.startsWith('../')) return false
    if (item.code === 'TS6305' && item.file.startsWith('.adonisjs/')) return false
    return !item.file.includes('node_modules/') || item.file.includes('adonis-agent-inbox/')
  })
}

/** The database the app is generated for, from the suite's DB switch */
function appDatabase(): StarterKitDb {
  if (dbName() !== 'pg') return { client: 'sqlite' }
  const { connection } = connectionConfig('pg') as {
    connection: { host: string; port: number; user: string; password: string; database: string }
  }
  return { client: 'pg', ...connection, schema: `packed_app_${process.pid}` }
}

/**
 * Runs SQL on the suite's PostgreSQL database (the app's schema is made
 * and dropped here).
 */
async function postgres(sql: string) {
  // pg (the suite's driver) ships no types and @types/pg is not installed: the two calls, typed here
  type Client = {
    connect(): Promise<void>
    query(sql: string): Promise<unknown>
    end(): Promise<void>
  }
  const pg: { default: { Client: new (config: object) => Client } } = await import('pg' as string)
  const client = new pg.default.Client(connectionConfig('pg').connection)
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** A JSON request from the page's session, as an API client of the app */
async function getJson(page: Page, path: string) {
  const response = await page.request.get(path, { headers: { accept: 'application/json' } })
  if (!response.ok()) throw new Error(`GET ${path} answered ${response.status()}`)
  return response.json()
}

/**
 * The guide's displayName hook (docs/guides/the_inbox.md) and the imports
 * of its example, as a user pastes them into config/agents.ts.
 */
async function guideDisplayName() {
  const guide = await readFile(new URL('docs/guides/the_inbox.md', REPO_ROOT), 'utf8')
  const block = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1])
    .find((code) => code.includes('displayName: async'))
  if (!block) throw new Error('No displayName example in the inbox guide')
  const imports = block
    .split('\n')
    .filter((line) => line.startsWith('import ') && !line.includes("'adonis-agent-inbox'"))
  const hook = /^( *)displayName: async[\s\S]*?\n\1\},\n/m.exec(block)?.[0]
  if (!hook) throw new Error('No displayName hook in the example')
  return { imports, hook }
}

/** The errors `eslint` printed, as `file:line rule` (its "stylish" format) */
function lintErrors(output: string) {
  const found: string[] = []
  let file = ''
  for (const line of output.split('\n')) {
    if (line.startsWith('/')) file = line.trim()
    const error = /^\s+(\d+):\d+\s+error\s+.*?\s(\S+)$/.exec(line)
    if (error) found.push(`${file}:${error[1]} ${error[2]}`)
  }
  return found
}

/** The run's pending row of that kind, once it waits */
function pendingRow(page: Page, runId: string, kind: string) {
  return eventually(`a pending ${kind} row of run ${runId}`, async () => {
    const inbox = await getJson(page, '/inbox')
    const group = inbox.groups.find((candidate: any) => candidate.run?.id === runId)
    return group?.rows.find((row: any) => row.kind === kind)
  })
}

test.group('Packed package | a fresh starter-kit app', (group) => {
  // Bounds that catch a hang, for a loaded 2-core machine (the steps took ~60 s beside two other test runs)
  group.each.timeout(480_000)

  test('npm pack, npm install of the tarball, configure, tsc, migrate, and the inbox page in Chromium', async ({
    assert,
    cleanup,
  }) => {
    const started = Date.now()
    const steps: string[] = []
    const step = (name: string) => steps.push(`${name}: ${Date.now() - started} ms`)
    const work = join(tmpdir(), `adonis-agent-inbox-packed-${process.pid}-${randomUUID()}`)
    const appRoot = pathToFileURL(join(work, 'app/'))
    const db = appDatabase()
    let server: AppServer | undefined
    cleanup(async () => {
      await server?.stop()
      await rm(work, { recursive: true, force: true })
      if (db.client === 'pg') await postgres(`DROP SCHEMA IF EXISTS "${db.schema}" CASCADE`)
    })
    await mkdir(work, { recursive: true })

    /*
     * What would be published: built by the package's `prepare` script
     */
    const packed = await packPackage(work)
    step('npm pack')
    const files = packed.files
    assert.deepEqual(
      files.filter((file) => /(^|\/)(fixtures|tests|bench|bin)\//.test(file)),
      [],
      'no fixture, test or bench file ships'
    )
    assert.deepEqual(
      files.filter((file) => file.startsWith('build/stubs/inertia/')),
      [],
      'the page ships as sources in build/inertia/, without declarations'
    )
    assert.includeMembers(files, [
      'LICENSE',
      'README.md',
      'package.json',
      'docs/inbox.png',
      'docs/run.png',
      'docs/console.png',
      'build/index.js',
      'build/index.d.ts',
      'build/commands/main.d.ts',
      'build/inertia/react/pages/agent_inbox/index.tsx',
      'build/inertia/vue/pages/agent_inbox/index.vue',
      'build/inertia/react/agent_inbox/approval_card.tsx',
      'build/inertia/vue/agent_inbox/approval_card.vue',
      'build/inertia/agent_inbox/form_state.ts',
      'build/inertia/react/pages/agent_console/index.tsx',
      'build/inertia/vue/pages/agent_console/index.vue',
      'build/inertia/agent_console/uplot_chart.ts',
    ])
    const license = await readFile(new URL('LICENSE', REPO_ROOT), 'utf8')
    assert.match(license, /^MIT License\n\nCopyright \(c\) 2026 the adonis-agent-inbox authors\n/)
    const pkg = JSON.parse(await readFile(new URL('package.json', REPO_ROOT), 'utf8'))
    assert.equal(pkg.license, 'MIT')
    assert.match(pkg.repository?.url ?? '', /^git\+https:\/\/.+\.git$/)
    assert.include(pkg.scripts.prepare, 'compile', 'a git install builds')
    // The README's image is an absolute URL into the published package, which holds it
    const readme = await readFile(new URL('README.md', REPO_ROOT), 'utf8')
    const image = readme.match(/!\[[^\]]*\]\(([^)]+\.png)\)/)?.[1]
    assert.match(image ?? '', /^https:\/\/unpkg\.com\/adonis-agent-inbox\/docs\/inbox\.png$/)

    /*
     * A fresh app, the tarball installed into it by npm
     */
    const port = await freePort()
    if (db.client === 'pg') {
      await postgres(`DROP SCHEMA IF EXISTS "${db.schema}" CASCADE; CREATE SCHEMA "${db.schema}"`)
    }
    await writeStarterKitApp(appRoot, db, port)
    await installTarball(appRoot, packed.tarball)
    step('npm install')
    const installed = new URL('node_modules/adonis-agent-inbox/', appRoot)
    const installedEntry = await lstat(installed)
    assert.isTrue(
      installedEntry.isDirectory(),
      'the package is a folder from the tarball, not a link'
    )
    const appPkg = JSON.parse(await readFile(new URL('package.json', appRoot), 'utf8'))
    assert.match(appPkg.dependencies['adonis-agent-inbox'], /^file:.*\.tgz$/)

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_COMPILE_CACHE: fileURLToPath(new URL('tmp/compile-cache/', REPO_ROOT)),
    }
    // The app's settings come from its .env, as in any app
    for (const name of ['AGENT_MODEL', 'PORT', 'HOST', 'NODE_ENV', 'DB', 'LOG_LEVEL']) {
      delete env[name]
    }
    const ace = (args: string[]) =>
      run(process.execPath, ['ace.js', ...args], { cwd: appRoot, env })
    const read = (path: string) => readFile(new URL(path, appRoot), 'utf8')

    // The app's lint before the package: what configure and make:agent must leave as it is
    const lint = () =>
      run(
        process.execPath,
        [fileURLToPath(new URL('node_modules/eslint/bin/eslint.js', appRoot)), '.'],
        {
          cwd: appRoot,
          env,
        }
      )
    const lintBefore = await lint()
    assert.include([0, 1], lintBefore.code ?? -1, lintBefore.output)
    step('lint before')

    /*
     * `node ace configure adonis-agent-inbox`, stdin closed, twice
     */
    const configured = await ace(['configure', 'adonis-agent-inbox'])
    assert.equal(configured.code, 0, configured.output)
    assert.include(configured.output, 'AI_GATEWAY_API_KEY')
    await read('inertia/pages/agent_inbox/index.tsx')
    await read('inertia/agent_inbox/form_state.ts')
    assert.include(
      await read('start/agent_inbox.ts'),
      'registerInboxRoutes(router, { modifier: (route) => route.use(middleware.auth()) })'
    )
    const configuredOnce = await read('adonisrc.ts')
    const again = await ace(['configure', 'adonis-agent-inbox'])
    assert.equal(again.code, 0, again.output)
    assert.notMatch(again.output, /DONE/, 'a second run changes nothing and claims nothing')
    assert.equal(await read('adonisrc.ts'), configuredOnce)
    step('configure')

    // The app's owner adds a question to the generated intake, and the guide's displayName hook
    const agentsConfig = await read('config/agents.ts')
    assert.include(agentsConfig, '        questions: [\n')
    assert.include(agentsConfig, 'defineConfig({\n  agents: [\n')
    const { imports, hook } = await guideDisplayName()
    await writeFile(
      new URL('config/agents.ts', appRoot),
      [...imports, agentsConfig]
        .join('\n')
        .replace('        questions: [\n', `        questions: [\n          ${USERS_QUESTION}`)
        .replace('defineConfig({\n', `defineConfig({\n  inbox: {\n${hook}  },\n`)
    )

    // A new agent and its test, on the testing kit of the built package
    const made = await ace(['make:agent', 'triage'])
    assert.equal(made.code, 0, made.output)
    assert.include(
      await read('tests/unit/agents/triage.spec.ts'),
      `from 'adonis-agent-inbox/testing'`
    )
    assert.include(await read('tests/bootstrap.ts'), '[assert(), agentAssertions()]')
    const tool = await ace(['make:tool', 'lookup_order'])
    assert.equal(tool.code, 0, tool.output)
    const lintAfter = await lint()
    assert.deepEqual(
      lintErrors(lintAfter.output),
      lintErrors(lintBefore.output),
      `eslint after configure, make:agent and make:tool:\n${lintAfter.output}`
    )
    step('lint after')

    /*
     * Types: the generated page index, then tsc as the app's typecheck runs it
     */
    const codegen = await ace(['codegen'])
    assert.equal(codegen.code, 0, codegen.output)
    const pages = await read('.adonisjs/server/pages.d.ts')
    for (const name of ['index', 'run', 'history', 'chat']) {
      assert.include(pages, `'agent_inbox/${name}':`)
    }
    assert.notMatch(
      pages,
      /form_state|card_parts|agent_inbox\/(?!index|run|history|chat)/,
      'only the pages are pages'
    )
    step('codegen')
    /*
     * One tsc per project, without skipLibCheck, one after the other. The
     * app's own typecheck (`tsc --noEmit`, skipLibCheck on) is the same
     * program with the declaration files left unchecked, so its errors are
     * exactly this run's outside declaration files. A second run per project only
     * spent CPU: four compilers side by side on 2 cores (the server
     * project's grown by the test runner and make:agent's test, whose
     * declarations the strict run checks) ran past their 60 s bound under
     * a full suite.
     */
    for (const project of ['tsconfig.json', 'inertia/tsconfig.json']) {
      const checked = await run(
        process.execPath,
        [TSC, '--noEmit', '-p', project, '--skipLibCheck', 'false'],
        { cwd: appRoot, env }
      )
      const found = diagnostics(checked.output)
      // Killed, or failed without a diagnostic (a crash): not a typecheck at all
      assert.isTrue(
        checked.code === 0 || found.length + unplaced(checked.output).length > 0,
        `tsc -p ${project} ended ${checked.code}:\n${checked.output}`
      )
      assert.deepEqual(
        [
          ...found.filter((item) => !/\.d\.[cm]?ts$/.test(item.file)).map((item) => item.text),
          ...unplaced(checked.output),
        ],
        [],
        `tsc -p ${project}, as the app's typecheck runs it`
      )
      assert.deepEqual(
        oursOrTheApps(found).map((item) => item.text),
        [],
        `tsc -p ${project} --skipLibCheck false`
      )
      step(`tsc -p ${project}`)
    }

    /*
     * Vite's build, the app's migrations, its server
     */
    const vite = await run(
      process.execPath,
      [fileURLToPath(new URL('node_modules/vite/bin/vite.js', appRoot)), 'build'],
      { cwd: appRoot, env }
    )
    assert.equal(vite.code, 0, vite.output)
    const migrated = await ace(['migration:run'])
    assert.equal(migrated.code, 0, migrated.output)
    assert.match(migrated.output, /migrated database\/migrations\/\d+_create_agent_inbox_tables/)
    // The generated agent test passes on adonis-agent-inbox/testing from build/
    const tested = await run(process.execPath, ['--import=@poppinss/ts-exec', 'bin/test.ts'], {
      cwd: appRoot,
      env,
    })
    assert.equal(tested.code, 0, tested.output)
    assert.include(tested.output, 'completes a run on a scripted model')
    step('make:agent and its test')
    server = await startServer(
      appRoot,
      ['--import=@poppinss/ts-exec', `--import=${OFFLINE_PROVIDER.href}`],
      env
    )
    step('build, migrate, serve')

    /*
     * The inbox page in Chromium
     */
    const browser = await launchBrowser()
    cleanup(() => browser.close())
    const session = await newSession(browser, `http://127.0.0.1:${port}`)
    const page = await session.newPage()
    // Sign-up and login as the kit has them, its User capturing hash eagerly beside the pasted hook
    await page.goto('/')
    const credentials = { email: 'ada@example.com', password: 'a long secret' }
    await postJson(page, '/signup', { fullName: 'ada', ...credentials })
    const other = await newSession(browser, `http://127.0.0.1:${port}`)
    cleanup(() => other.close())
    const otherPage = await other.newPage()
    await otherPage.goto('/')
    const loggedIn = await postJson(otherPage, '/login', credentials)
    await page.goto('/inbox')
    const { person, people } = await getJson(page, '/inbox')
    assert.equal(loggedIn.person, person, 'the login reached the inbox as the same user')
    // People are shown as the guide's displayName hook names them
    assert.equal(people[person], 'ada <ada@example.com>')
    assert.include(
      await page.locator('.ai-header').innerText(),
      'Signed in as ada <ada@example.com> ·'
    )

    // configure's next step: a run of the example agent that waits in this user's inbox
    const tour = await run(
      process.execPath,
      [
        `--import=${OFFLINE_PROVIDER.href}`,
        'ace.js',
        'agents:run',
        'operator',
        'The API is slow',
        `--owner=${person}`,
      ],
      { cwd: appRoot, env }
    )
    assert.equal(tour.code, 0, tour.output)
    assert.include(tour.output, `waits in the inbox of ${person}: open /inbox`)
    const runId = /Run ([0-9a-f-]{36}) of "operator" started/.exec(tour.output)![1]
    const intake = await pendingRow(page, runId, 'intake')
    await page.reload()
    const intakeCard = cardOf(page, intake.id)
    const users = intakeCard.getByLabel('How many users are affected?')
    assert.equal(await users.inputValue(), '10')

    // Inside the kit's layout and under its CSS: one main landmark, a radio the size of a radio
    assert.equal(await page.locator('body main .agent-inbox').count(), 1)
    assert.equal(await page.getByRole('main').count(), 1)
    const radio = await intakeCard
      .getByRole('radio', { name: 'Users are affected now' })
      .boundingBox()
    assert.isBelow(radio!.width, 24)
    assert.isBelow(radio!.height, 24)
    await screenshot(page, 'packed_app_inbox.png')

    // Out of range: refused on the card, named by its prompt in the alert, nothing settled
    await users.fill('999')
    await intakeCard.getByRole('button', { name: 'Confirm' }).click()
    const fieldError = intakeCard.locator('[data-question-id="users"] .ai-field-error')
    await fieldError.waitFor()
    assert.match(await fieldError.innerText(), /500/)
    const refusal = page.getByRole('alert')
    await refusal.waitFor()
    assert.equal(await refusal.getAttribute('data-status'), '422')
    const refusalText = await refusal.innerText()
    assert.include(refusalText, '“How many users are affected?”')
    assert.notInclude(refusalText, 'answers.')
    assert.equal(await intakeCard.getAttribute('data-status'), 'pending')

    await users.fill('20')
    await intakeCard.getByRole('radio', { name: 'Users are affected now' }).check()
    await intakeCard.getByRole('button', { name: 'Confirm' }).click()
    const intakeSettled = await settledCard(page, intake.id, 'ada')
    assert.include(await intakeSettled.innerText(), 'via web')

    // The approval: the page starts a rejection, the same person approves it over the API first
    const approval = await pendingRow(page, runId, 'action')
    await page.reload()
    const approvalCard = cardOf(page, approval.id)
    await approvalCard.getByRole('button', { name: 'Reject', exact: true }).click()
    await approvalCard.getByLabel('Why not?').fill('Not now')
    const viaApi = await postJson(page, `/inbox/rows/${approval.id}/reply`, {
      approved: true,
      // The card as the API listed it carries the digest of what it shows
      digest: approval.digest,
    })
    assert.equal(viaApi.row.settled.via, 'api')
    await approvalCard.getByRole('button', { name: 'Send rejection' }).click()
    const conflict = page.getByRole('alert')
    await conflict.getByText('Already settled.').waitFor()
    assert.equal(await conflict.getAttribute('data-status'), '409')
    assert.include(await conflict.innerText(), 'Settled by you, via api, at ')
    // The card says what the server recorded, not what this page sent
    const approvalSettled = await settledCard(page, approval.id, 'ada')
    assert.include(await approvalSettled.innerText(), 'via api')

    // Nothing waits now: the box says so below the rows just settled
    const empty = page.getByRole('heading', { name: 'Nothing waits for you' })
    await empty.waitFor()
    assert.equal(await page.locator('.ai-run:has([data-status="settled"]) ~ .ai-empty').count(), 1)
    assert.equal(
      await page.locator('.ai-empty ~ .ai-run').count(),
      0,
      'the empty box sits below the rows just settled'
    )

    // The run completes with the answers and the action it was given
    const detail = await eventually('the run to complete', async () => {
      const body = await getJson(page, `/inbox/rows/${approval.id}`)
      return body.run.status === 'completed' ? body : undefined
    })
    const report: string = detail.run.result.text
    assert.include(report, 'Users are affected now')
    assert.include(report, '20')
    assert.include(report, '{"restarted":"api"}')
    assert.deepEqual(
      detail.rows.map((row: any) => [row.kind, row.status, row.settled?.via ?? null]),
      [
        ['intake', 'answered', 'web'],
        ['read', 'auto', null],
        ['action', 'approved', 'api'],
      ]
    )
    step('browser')
    console.log(`  packed app (${db.client}): ${steps.join(', ')}`)
  }).skip(
    dbName() === 'mysql',
    'runs on SQLite and PostgreSQL; MySQL is covered by the other suites'
  )
})
