/*
 * Boots the fixture app (fixtures/app) as a real AdonisJS server in a child
 * process, the way an app runs in production: built assets, its own
 * migrations (the package's stub rendered as the app's migration) and
 * seeders run through its ace entry, then bin/server.ts on a loopback port.
 * The database is the one the suite runs on (DB=sqlite|pg|mysql, the same
 * SQLite file as this process), so tests read what the app wrote.
 */

import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, open, readdir, readFile, stat } from 'node:fs/promises'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { dbName, sqliteFile } from './database.ts'

const REPO_ROOT = new URL('../../', import.meta.url)
const FIXTURE_ROOT = new URL('fixtures/app/', REPO_ROOT)
const TMP = new URL('tmp/', REPO_ROOT)
const MANIFEST = new URL('public/assets/.vite/manifest.json', FIXTURE_ROOT)

/** What the build reads: when any of it is newer than the manifest, rebuild */
const BUILD_SOURCES = [
  new URL('inertia/app.tsx', FIXTURE_ROOT),
  new URL('vite.config.ts', FIXTURE_ROOT),
  new URL('resources/views/', FIXTURE_ROOT),
  new URL('stubs/inertia/pages/', REPO_ROOT),
  new URL('database/migrations/', REPO_ROOT),
]

/** Node flags of the fixture's processes: the package resolves to its TypeScript */
const NODE_FLAGS = ['--conditions=adonis-agent-inbox-source', '--import=@poppinss/ts-exec']

async function newestMtime(path: URL): Promise<number> {
  const info = await stat(path).catch(() => null)
  if (!info) return 0
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = new URL(entry.name + (entry.isDirectory() ? '/' : ''), path)
    newest = Math.max(newest, await newestMtime(child))
  }
  return newest
}

/**
 * Runs a node script to its end; rejects with its output when it fails.
 */
async function runNode(args: string[], env: NodeJS.ProcessEnv, what: string) {
  const child = spawn(process.execPath, args, {
    cwd: fileURLToPath(REPO_ROOT),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`${what} failed (exit ${code}):\n${output}`)
  return output
}

/**
 * Builds the fixture's assets unless a build newer than every source exists
 * (CI builds once before the test runs; `npm test` on a fresh clone builds here).
 */
export async function ensureFixtureBuilt() {
  const built = await newestMtime(MANIFEST)
  const sources = Math.max(...(await Promise.all(BUILD_SOURCES.map((path) => newestMtime(path)))))
  if (built > 0 && built >= sources) return false
  await runNode(
    ['--import=@poppinss/ts-exec', fileURLToPath(new URL('bin/build.ts', FIXTURE_ROOT))],
    process.env,
    'Building the fixture app'
  )
  return true
}

/**
 * A free loopback port, picked by the OS.
 */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export type FixtureApp = {
  baseUrl: string
  /** The server's log (JSON lines), for a failing test's message */
  logFile: string
  stop(): Promise<void>
}

/**
 * Builds (when needed), migrates and seeds the fixture app on the suite's
 * database, and starts its HTTP server. Resolves once it listens. `env`
 * adds to the fixture's environment, e.g. `{ INBOX_LIVE: 'poll' }` for an
 * app without Transmit.
 *
 * @example
 * const fixture = await startFixtureApp()
 * await page.goto(`${fixture.baseUrl}/login/1`)
 * await fixture.stop()
 */
export async function startFixtureApp(
  options: { env?: NodeJS.ProcessEnv } = {}
): Promise<FixtureApp> {
  await mkdir(TMP, { recursive: true })
  await ensureFixtureBuilt()

  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: process.env.FIXTURE_LOG_LEVEL ?? 'info',
    DB_CONNECTION: dbName(),
    DB_FILE: sqliteFile(),
    ...options.env,
  }
  const ace = fileURLToPath(new URL('bin/console.ts', FIXTURE_ROOT))
  await runNode([...NODE_FLAGS, ace, 'migration:fresh', '--seed'], env, 'Migrating the fixture app')

  const logFile = fileURLToPath(new URL(`fixture-server-${process.pid}.log`, TMP))
  const log = await open(logFile, 'w')
  const server: ChildProcess = spawn(
    process.execPath,
    [...NODE_FLAGS, fileURLToPath(new URL('bin/server.ts', FIXTURE_ROOT))],
    { cwd: fileURLToPath(REPO_ROOT), env, stdio: ['ignore', log.fd, log.fd, 'ipc'] }
  )

  // AdonisJS tells its parent process once the server listens (and more later,
  // e.g. its routes: the channel stays open until the server exits)
  const exited = once(server, 'exit').then(([code]) => code as number | null)
  const ready = new Promise<void>((resolve) => {
    server.on('message', (message: { isAdonisJS?: boolean; environment?: string }) => {
      if (message?.isAdonisJS && message.environment === 'web') resolve()
    })
  })
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    exited.then((code) => `exited with code ${code}`),
    new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('did not start within 30 s'), 30_000)
    }),
  ])
  clearTimeout(timer)
  if (outcome !== 'ready') {
    server.kill('SIGKILL')
    await log.close()
    throw new Error(`The fixture server ${outcome}:\n${await readFile(logFile, 'utf8')}`)
  }

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    logFile,
    async stop() {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM')
        let killTimer: NodeJS.Timeout | undefined
        await Promise.race([
          exited,
          new Promise((resolve) => {
            killTimer = setTimeout(() => resolve(server.kill('SIGKILL')), 10_000)
          }),
        ])
        clearTimeout(killTimer)
      }
      await log.close()
    },
  }
}
