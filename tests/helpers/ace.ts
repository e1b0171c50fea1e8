/*
 * Runs `node ace` of the command tests (tests/fixtures/ace.ts) as a child
 * process on the test's database: with piped stdin, or inside a real
 * pseudo-terminal made by util-linux `script`, driven a line at a time.
 * Every wait is bounded: a process that outlives its time is killed and
 * the test fails on its exit instead of hanging.
 */

import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { dbName, sqliteFile } from './database.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const NODE_ARGS = [TS_HOOKS, 'tests/fixtures/ace.ts']

export type AceExit = {
  code: number | null
  signal: NodeJS.Signals | null
  /** stdout and stderr as printed, colours and cursor moves removed */
  output: string
  /** How long the process lived, ms */
  took: number
}

/**
 * The env of a child: the test's database (and SQLite file) and the logs
 * the fixture agents write to.
 */
export function aceEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DB: dbName(),
    DB_FILE: sqliteFile(),
    ...extra,
  }
}

/**
 * Removes ANSI escapes (colours, cursor moves) and carriage returns.
 */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '')
}

function collect(child: ChildProcess, timeout: number) {
  const started = Date.now()
  let output = ''
  child.stdout?.on('data', (chunk) => (output += String(chunk)))
  child.stderr?.on('data', (chunk) => (output += String(chunk)))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
  const exited = new Promise<AceExit>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, output: plain(output), took: Date.now() - started })
    })
  })
  return { exited, output: () => plain(output) }
}

export type RunAceOptions = {
  env?: Record<string, string>
  /** Written to stdin, which is then closed; without it stdin stays open */
  input?: string
  /** Killed after this many ms; default 60 s (a bound against a wedge, on a loaded machine too) */
  timeout?: number
}

/**
 * `node ace <args>` with stdin a pipe (not a TTY). Without `input` the
 * pipe stays open and silent for the whole life of the process, so a
 * command that waited on it would be killed at `timeout`.
 */
export function runAce(args: string[], options: RunAceOptions = {}): Promise<AceExit> {
  return runNode([...NODE_ARGS, ...args], options)
}

/**
 * `node <args>` from the repository's root, as `runAce` runs ace: the
 * test's database, stdin a pipe, killed after `timeout`.
 */
export function runNode(args: string[], options: RunAceOptions = {}): Promise<AceExit> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: aceEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const { exited } = collect(child, options.timeout ?? 60_000)
  if (options.input !== undefined) child.stdin!.end(options.input)
  return exited.finally(() => child.stdin!.destroy())
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`
}

/**
 * `node ace <args>` inside a pseudo-terminal (`script -qec`), so stdin is
 * a TTY. `expect` waits for text printed after the last match; `type`
 * sends a line as the Enter key does.
 */
export function ptyAce(
  args: string[],
  options: { env?: Record<string, string>; timeout?: number } = {}
) {
  const command = [
    'stty cols 120 rows 40;',
    'exec',
    shellQuote(process.execPath),
    ...[...NODE_ARGS, ...args].map(shellQuote),
  ].join(' ')
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env: aceEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const { exited, output } = collect(child, options.timeout ?? 60_000)
  let cursor = 0
  let done = false
  void exited.then(() => (done = true))

  return {
    exited: exited.finally(() => child.stdin!.destroy()),
    /**
     * Resolves once `text` was printed after the previous match; throws
     * with the output so far after `timeout` ms or when the process ended.
     */
    async expect(text: string, timeout = 15_000) {
      const until = Date.now() + timeout
      for (;;) {
        const at = output().indexOf(text, cursor)
        if (at >= 0) {
          cursor = at + text.length
          return
        }
        if (done || Date.now() > until) {
          throw new Error(`Waited for "${text}" in vain. The terminal showed:\n${output()}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    type(line: string) {
      child.stdin!.write(`${line}\r`)
    },
    kill() {
      child.kill('SIGKILL')
    },
  }
}
