/*
 * The worker processes of the crash tests (tests/runtime/crash.spec.ts,
 * exactly_once.spec.ts): each runs tests/fixtures/agent_worker.ts on this
 * test's database, does one thing to some runs and may SIGKILL itself at a
 * named point. The files the agents append to (synchronously, so a line
 * survives a SIGKILL right after it) are the ground truth across processes.
 */

import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Group } from '@japa/runner/core'
import { createTestApp, dbName, sqliteFile } from './database.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const WORKER = fileURLToPath(new URL('../fixtures/agent_worker.ts', import.meta.url))

export type WorkerExit = {
  pid: number
  code: number | null
  signal: NodeJS.Signals | null
  /** The last JSON line the worker printed, if it lived to print one */
  output: Record<string, any> | null
}

/**
 * The non-empty lines of a file, none when it does not exist yet.
 */
export function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/**
 * Starts a worker process on this test's database. `next()` resolves with
 * each line it prints ("ready", then JSON), in order. `script` is
 * tests/fixtures/agent_worker.ts unless named.
 */
export function startWorker(
  command: string,
  runIds: string[],
  env: Record<string, string>,
  script = WORKER
) {
  const child = spawn(process.execPath, [TS_HOOKS, script, command, ...runIds], {
    cwd: ROOT,
    env: { ...process.env, DB: dbName(), DB_FILE: sqliteFile(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const printed: Array<Record<string, any>> = []
  let unread = 0
  let wake: (() => void) | undefined
  let ended = false
  let buffer = ''
  let stderr = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk
    const complete = buffer.split('\n')
    buffer = complete.pop()!
    for (const line of complete) {
      if (line === 'ready') printed.push({ ready: true })
      else if (line.startsWith('{')) printed.push(JSON.parse(line))
    }
    wake?.()
  })
  child.stderr.on('data', (chunk) => (stderr += chunk))

  const exit = new Promise<WorkerExit>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      ended = true
      wake?.()
      if (code !== 0 && signal !== 'SIGKILL') {
        reject(new Error(`worker ${command} exited with ${code}:\n${stderr}`))
      }
      const output = printed.findLast((line) => !line.ready) ?? null
      resolve({ pid: child.pid!, code, signal, output })
    })
  })
  exit.catch(() => {})

  async function next() {
    while (unread === printed.length) {
      if (ended) throw new Error(`worker ${command} ended without printing:\n${stderr}`)
      await new Promise<void>((resolve) => (wake = resolve))
    }
    return printed[unread++]
  }
  return { child, exit, next }
}

/**
 * Runs a worker to its end. Crash workers get a short lease so a restart
 * does not wait long for it to lapse.
 */
export function runWorker(command: string, runIds: string[], env: Record<string, string> = {}) {
  const worker = startWorker(command, runIds, { LEASE_TTL: '1000', ...env })
  worker.child.stdin.end()
  return worker.exit
}

/**
 * The group's test app, and `files` (where the workers write what they
 * did) made empty before its tests and removed after.
 */
export function useAppWithFiles(group: Group, files: URL) {
  group.setup(async () => {
    const testApp = await createTestApp()
    await rm(files, { recursive: true, force: true })
    await mkdir(files, { recursive: true })
    return async () => {
      await testApp.terminate()
      await rm(files, { recursive: true, force: true })
    }
  })
}
