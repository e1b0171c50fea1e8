/*
 * `node ace add adonis-agent-inbox` in a fresh AdonisJS 7 web app, then the
 * app as its owner runs it: a real app tree in tmp/ (tests/fixtures/web_app_tree.ts)
 * with the package linked into its node_modules, configured by its own
 * `node ace configure adonis-agent-inbox` (what `add` runs after installing),
 * migrated on SQLite by its own `migration:run`, served by its own
 * bin/server.ts, and a run completed through the inbox's JSON API only.
 * Nothing the configure hook generated is touched.
 *
 * No network: the generated config's model id ('openai/gpt-5', from
 * AGENT_MODEL) is resolved by a scripted provider preloaded into the app's
 * processes (tests/fixtures/offline_provider.ts). Always SQLite, whatever
 * DB the suite runs with.
 */

import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readdir, readFile, rm, unlink } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { freePort } from '../../fixtures/app/bin/launch.ts'
import { writeWebAppTree } from '../fixtures/web_app_tree.ts'

const REPO_ROOT = new URL('../../', import.meta.url)
const APP_ROOT = new URL(`tmp/configured-app-${process.pid}/`, REPO_ROOT)
const OFFLINE_PROVIDER = new URL('../fixtures/offline_provider.ts', import.meta.url)

/** How the app's processes run: the package from its TypeScript, models offline */
const NODE_FLAGS = [
  '--conditions=adonis-agent-inbox-source',
  '--import=@poppinss/ts-exec',
  `--import=${OFFLINE_PROVIDER.href}`,
]

type Exit = { code: number | null; output: string }

/**
 * One process of the app (`node bin/console.ts …`), to its end or killed
 * after `timeout` ms. With stdin closed nothing can wait for an answer, so
 * the bound only catches a hang: it is set for a loaded 2-core machine,
 * where `configure` (booting the app, then ts-morph's codemods) took over
 * 20 s while three test runs shared it.
 */
async function runApp(args: string[], env: NodeJS.ProcessEnv, timeout = 90_000): Promise<Exit> {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...args], {
    cwd: fileURLToPath(APP_ROOT),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return { code, output }
}

/**
 * SIGTERM, then SIGKILL when it has not exited within 5 s.
 */
async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    exited,
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(child.kill('SIGKILL')), 5_000)
    }),
  ])
  clearTimeout(timer)
}

/**
 * Polls `probe` until it returns something, for at most `timeout` ms.
 */
async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  log: () => string,
  timeout = 10_000
): Promise<T> {
  const deadline = Date.now() + timeout
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for ${what}. Server log:\n${log()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Removes the app tree: its link to the repository first, so removing the
 * tree can never reach the repository.
 */
async function removeTree() {
  await unlink(new URL('node_modules/adonis-agent-inbox', APP_ROOT)).catch(() => {})
  await rm(APP_ROOT, { recursive: true, force: true })
}

test.group('Configured app', (group) => {
  group.each.timeout(240_000)

  test('node ace add in a fresh app: it boots, migrates on SQLite and completes a run through the inbox API', async ({
    assert,
    cleanup,
  }) => {
    let server: ChildProcess | undefined
    cleanup(async () => {
      if (server) await stop(server)
      await removeTree()
    })

    await removeTree()
    await writeWebAppTree(APP_ROOT, REPO_ROOT)
    const port = await freePort()
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      NODE_COMPILE_CACHE: fileURLToPath(new URL('tmp/compile-cache/', REPO_ROOT)),
    }
    // The model id must come from what configure wrote to .env
    delete env.AGENT_MODEL
    const read = (path: string) => readFile(new URL(path, APP_ROOT), 'utf8')

    /*
     * What `node ace add adonis-agent-inbox` runs once the package is installed
     */
    // A JSON-API app without Inertia, stdin closed (as in CI): nobody to ask about the page,
    // so it is left out with a word on --page, and everything else is done
    const configured = await runApp(['bin/console.ts', 'configure', 'adonis-agent-inbox'], env)
    assert.equal(configured.code, 0, configured.output)
    assert.match(configured.output, /No terminal to ask .* --page .* --no-page/)
    assert.notInclude(configured.output, 'Publish the inbox page anyway?')
    await assert.rejects(() => read('inertia/pages/agent_inbox/index.tsx'))
    assert.include(await read('config/agents.ts'), `model: env.get('AGENT_MODEL', 'openai/gpt-5')`)
    assert.match(await read('.env'), /^AGENT_MODEL=openai\/gpt-5$/m)
    const routes = await read('start/agent_inbox.ts')
    assert.match(
      routes,
      /^import \{ registerConsoleRoutes, registerInboxRoutes \} from 'adonis-agent-inbox'$/m
    )
    assert.match(routes, /^registerInboxRoutes\(router\)$/m)
    assert.match(routes, /^registerConsoleRoutes\(router\)$/m)
    const rc = await read('adonisrc.ts')
    assert.include(rc, `() => import('adonis-agent-inbox/agent_inbox_provider')`)
    assert.include(rc, `() => import('#start/agent_inbox')`)
    // Every migration of the package, in the order they run
    const migrations = await readdir(new URL('database/migrations/', APP_ROOT))
    migrations.sort()
    const stubs = await readdir(new URL('database/migrations/', REPO_ROOT))
    assert.lengthOf(migrations, stubs.length)
    assert.match(migrations[0], /^\d{13}_create_agent_inbox_tables\.ts$/)

    const migrated = await runApp(['bin/console.ts', 'migration:run'], env)
    assert.equal(migrated.code, 0, migrated.output)
    for (const migration of migrations) {
      assert.include(
        migrated.output,
        `migrated database/migrations/${migration.replace(/\.ts$/, '')}`
      )
    }

    /*
     * The app's server, ready once AdonisJS tells its parent it listens
     */
    let log = ''
    const child = spawn(process.execPath, [...NODE_FLAGS, 'bin/server.ts'], {
      cwd: fileURLToPath(APP_ROOT),
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    server = child
    child.stdout!.on('data', (chunk) => (log += chunk))
    child.stderr!.on('data', (chunk) => (log += chunk))
    let startTimer: NodeJS.Timeout | undefined
    const started = await Promise.race([
      new Promise<string>((resolve) => {
        child.on('message', (message: { isAdonisJS?: boolean; environment?: string }) => {
          if (message?.isAdonisJS && message.environment === 'web') resolve('ready')
        })
      }),
      once(child, 'exit').then(([code]) => `exited with code ${code}`),
      new Promise<string>((resolve) => {
        startTimer = setTimeout(() => resolve('did not start within 60 s'), 60_000)
      }),
    ])
    clearTimeout(startTimer)
    assert.equal(started, 'ready', log)

    const baseUrl = `http://127.0.0.1:${port}`
    const api = async (method: 'GET' | 'POST', path: string, user?: string, body?: unknown) => {
      const headers: Record<string, string> = { accept: 'application/json' }
      if (user) headers['x-user-id'] = user
      if (body !== undefined) headers['content-type'] = 'application/json'
      const response = await fetch(baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(5_000),
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    /** A pending row of the run in this person's inbox, once it is there */
    const pendingRow = async (user: string, runId: string, kind: string) => {
      const inbox = await api('GET', '/inbox', user)
      assert.equal(inbox.status, 200, JSON.stringify(inbox.body))
      const ofRun = inbox.body.groups.find((candidate: any) => candidate.run.id === runId)
      return ofRun?.rows.find((row: any) => row.kind === kind && row.status === 'pending')
    }

    /*
     * The app's own route starts a run of the generated agent, owned by user 1
     */
    const start = await api('POST', '/runs', '1', { agent: 'operator', input: 'The API is slow' })
    assert.equal(start.status, 201, JSON.stringify(start.body))
    const runId: string = start.body.run.id

    const intake = await waitFor(
      'the intake row',
      () => pendingRow('1', runId, 'intake'),
      () => log
    )
    assert.deepEqual(
      intake.questionSet.questions.map((question: any) => question.id),
      ['urgency']
    )
    const others = await api('GET', '/inbox', '2')
    assert.equal(others.status, 200)
    assert.notInclude(
      others.body.groups.map((candidate: any) => candidate.run.id),
      runId
    )

    // A JSON client sends back the digest of the card it was shown
    const intruder = await api('POST', `/inbox/rows/${intake.id}/reply`, '2', {
      answers: { urgency: ['low'] },
      digest: intake.digest,
    })
    assert.equal(intruder.status, 403, JSON.stringify(intruder.body))
    assert.equal(intruder.body.errors[0].code, 'E_FORBIDDEN')
    const stillPending = await pendingRow('1', runId, 'intake')
    assert.equal(stillPending?.id, intake.id)

    const answered = await api('POST', `/inbox/rows/${intake.id}/reply`, '1', {
      answers: { urgency: ['high'] },
      digest: intake.digest,
    })
    assert.equal(answered.status, 200, JSON.stringify(answered.body))
    assert.equal(answered.body.row.status, 'answered')
    assert.equal(answered.body.row.settled.by, '1')
    assert.equal(answered.body.row.settled.via, 'api')

    const approval = await waitFor(
      'the approval row',
      async () => {
        const row = await pendingRow('1', runId, 'action')
        if (row) return row
        // A run that ended instead (a model id the provider does not know) fails here, not at the timeout
        const { body } = await api('GET', `/inbox/rows/${intake.id}`, '1')
        if (['completed', 'failed', 'cancelled'].includes(body.run?.status)) {
          throw new Error(`The run ended before its approval: ${JSON.stringify(body.run)}`)
        }
      },
      () => log
    )
    assert.equal(approval.toolName, 'restart_service')
    const { schema, ...shown } = approval.action
    assert.deepEqual(shown, {
      summary: 'Restart api',
      args: { service: 'api', reason: 'Slow responses reported' },
    })
    // The generated tool's Vine schema, as JSON Schema: what the page's edit form is made from
    assert.equal(schema.type, 'object')
    assert.includeMembers(Object.keys(schema.properties), ['service', 'reason'])

    const approved = await api('POST', `/inbox/rows/${approval.id}/reply`, '1', {
      approved: true,
      digest: approval.digest,
    })
    assert.equal(approved.status, 200, JSON.stringify(approved.body))
    assert.equal(approved.body.row.status, 'approved')

    const detail = await waitFor(
      'the run to end',
      async () => {
        const response = await api('GET', `/inbox/rows/${approval.id}`, '1')
        assert.equal(response.status, 200, JSON.stringify(response.body))
        const ended = ['completed', 'failed', 'cancelled'].includes(response.body.run.status)
        return ended ? response.body : undefined
      },
      () => log
    )
    assert.equal(detail.run.status, 'completed', JSON.stringify(detail.run))
    const report: string = detail.run.result.text
    // The intake's answer (the label of 'high'), the read tool's and the approved action's results
    assert.include(report, 'Answer: Users are affected now')
    assert.include(report, 'read_status: {"service":"api","status":"healthy"}')
    assert.include(report, '{"restarted":"api"}')
    assert.deepEqual(
      detail.rows.map((row: any) => [row.kind, row.toolName, row.status]),
      [
        ['intake', 'intake', 'answered'],
        ['read', 'read_status', 'auto'],
        ['action', 'restart_service', 'approved'],
      ]
    )
    const after = await api('GET', '/inbox', '1')
    assert.deepEqual(after.body.groups, [])
  })
})
