/*
 * The package as a user gets it, in an app of its own: `npm pack` of this
 * repository (its `prepare` script builds it), the tarball installed with
 * npm into an app outside the repository, and the app's processes. The
 * app's other dependencies are links into the repository's node_modules,
 * so no slow install runs; the package itself comes only from the tarball.
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { lstat, mkdir, readdir, realpath, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = new URL('../../', import.meta.url)

export type Exit = { code: number | null; output: string; ms: number }

/**
 * Runs a command to its end (or kills it after `timeout` ms) with stdin
 * closed, as in CI or a script, and collects what it printed. With stdin
 * closed nothing waits for an answer, so the bound only catches a hang: it
 * is set for a loaded 2-core machine, where a tsc that takes 13 s alone
 * took over 60 s beside other test runs.
 */
export async function run(
  command: string,
  args: string[],
  options: { cwd: URL | string; env?: NodeJS.ProcessEnv; timeout?: number }
): Promise<Exit> {
  const started = Date.now()
  const child = spawn(command, args, {
    cwd: typeof options.cwd === 'string' ? options.cwd : fileURLToPath(options.cwd),
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout ?? 180_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return { code, output, ms: Date.now() - started }
}

/** npm, as the running Node ships it */
function npm(args: string[], cwd: URL | string, timeout = 240_000) {
  return run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, timeout })
}

export type Packed = { tarball: string; files: string[]; ms: number }

/**
 * `npm pack` of the repository into `destination`: the tarball and the
 * paths it holds. The package's `prepare` script builds it first.
 */
export async function packPackage(destination: string): Promise<Packed> {
  const packed = await npm(['pack', '--json', '--pack-destination', destination], REPO_ROOT)
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`)
  // The build's own output comes first; npm's JSON report is the last thing printed
  const report = JSON.parse(packed.output.slice(packed.output.lastIndexOf('\n[\n') + 1)) as {
    filename: string
    files: { path: string }[]
  }[]
  return {
    tarball: join(destination, report[0].filename),
    files: report[0].files.map((file) => file.path),
    ms: packed.ms,
  }
}

/**
 * Installs the tarball into the app with npm (the package and its own
 * dependencies; peers are the app's), then links every other package of
 * the repository's node_modules into the app's.
 */
export async function installTarball(appRoot: URL, tarball: string) {
  const installed = await npm(
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      // The peers (@adonisjs/core, Lucid, the AI SDK…) are the app's, linked below
      '--legacy-peer-deps',
      tarball,
    ],
    appRoot
  )
  if (installed.code !== 0)
    throw new Error(`npm install of the tarball failed:\n${installed.output}`)
  await linkNodeModules(
    fileURLToPath(new URL('node_modules/', appRoot)),
    await realpath(fileURLToPath(new URL('node_modules/', REPO_ROOT)))
  )
  return installed
}

async function present(path: string) {
  return lstat(path).then(
    () => true,
    () => false
  )
}

/**
 * Links each entry of `source` (a node_modules folder) into `target` unless
 * `target` has it; a scope folder both have is linked entry by entry.
 */
async function linkNodeModules(target: string, source: string) {
  await mkdir(target, { recursive: true })
  for (const entry of await readdir(source, { withFileTypes: true })) {
    if (entry.name === '.package-lock.json' || entry.name === '.cache') continue
    const from = join(source, entry.name)
    const to = join(target, entry.name)
    if (!(await present(to))) {
      await symlink(from, to, 'dir')
    } else if (entry.name.startsWith('@') && entry.isDirectory()) {
      await linkNodeModules(to, from)
    }
  }
}

export type AppServer = { log: () => string; stop: () => Promise<void> }

/**
 * Starts `node <flags> bin/server.ts` in the app and resolves once
 * AdonisJS tells its parent it listens; rejects with the log otherwise.
 */
export async function startServer(
  appRoot: URL,
  nodeFlags: string[],
  env: NodeJS.ProcessEnv
): Promise<AppServer> {
  let log = ''
  const child = spawn(process.execPath, [...nodeFlags, 'bin/server.ts'], {
    cwd: fileURLToPath(appRoot),
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  child.stdout!.on('data', (chunk) => (log += chunk))
  child.stderr!.on('data', (chunk) => (log += chunk))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    await exited
    clearTimeout(timer)
  }
  let timer: NodeJS.Timeout | undefined
  const started = await Promise.race([
    new Promise<string>((resolve) => {
      child.on('message', (message: { isAdonisJS?: boolean; environment?: string }) => {
        if (message?.isAdonisJS && message.environment === 'web') resolve('ready')
      })
    }),
    once(child, 'exit').then(([code]) => `exited with code ${code}`),
    new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('did not start within 20 s'), 20_000)
    }),
  ])
  clearTimeout(timer)
  if (started !== 'ready') {
    await stop()
    throw new Error(`The app's server ${started}:\n${log}`)
  }
  return { log: () => log, stop }
}
