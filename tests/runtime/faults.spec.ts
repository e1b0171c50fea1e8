/*
 * Fault injection with real processes (docs/design.md §9.4): runs heal
 * themselves, with no restart. Two worker processes
 * (tests/fixtures/fault_worker.ts: real apps with the provider, the inline
 * executor and its periodic recovery) start runs of the painter (a
 * question answered, an action approved) and the surveyor (two reads, an
 * action), and settle what they wait for, while the database misbehaves on
 * a seeded random schedule:
 *
 * - PostgreSQL and MySQL, through a TCP proxy (tests/helpers/fault_proxy.ts):
 *   every connection cut at once, forwarding paused (queries hang holding
 *   their locks), the server down (connections refused) for a few seconds;
 * - SQLite: another process holds the file's write lock, for longer than
 *   the workers' busy timeout.
 *
 * Once the faults end every run must complete within a bound, and each must
 * be exactly what a run no fault touched leaves (tests/helpers/fault_checks.ts):
 * its answer read, its action run exactly once, its journal whole.
 *
 * One file per database run of CI: the proxy on PostgreSQL and MySQL, the
 * lock on SQLite. `FAULT_SEED` replays a schedule, `FAULT_REPORT=1` prints
 * what happened.
 */

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from '@japa/runner'
import { createTestApp, dbName, sqliteFile } from '../helpers/database.ts'
import { FaultProxy } from '../helpers/fault_proxy.ts'
import { mulberry32 } from '../helpers/fuzz.ts'
import { expectedRun, logLines, runFacts } from '../helpers/fault_checks.ts'
import { AgentRun, FINISHED_RUN_STATUSES } from '../../src/persistence/models/agent_run.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURES = new URL('../fixtures/', import.meta.url)
const FILES = new URL(`../../tmp/faults-${process.pid}/`, import.meta.url)

const SEED = Number(process.env.FAULT_SEED ?? 2)
const WORKERS = 2
const RUNS_PER_WORKER = 24
const START_EVERY = 350
/** How long the faults go on */
const WINDOW = 12_000
/** How long the runs may take to finish once the faults end */
const SETTLE_BOUND = 25_000

/**
 * A seeded generator (mulberry32): the same seed, the same schedule.
 */
function random(seed: number) {
  const next = mulberry32(seed)
  return { next, between: (low: number, high: number) => Math.round(low + next() * (high - low)) }
}

type Line = Record<string, any>

/**
 * A child process printing JSON lines; `until(kind)` resolves with the
 * first line whose `fault` is `kind`.
 */
function spawnChild(script: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [TS_HOOKS, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams
  const lines: Line[] = []
  let stderr = ''
  let buffer = ''
  const waiters: Array<() => void> = []
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk
    const complete = buffer.split('\n')
    buffer = complete.pop()!
    for (const line of complete) {
      if (line === 'locked') lines.push({ fault: 'locked' })
      else if (line.startsWith('{"pid"')) lines.push(JSON.parse(line))
    }
    for (const wake of waiters.splice(0)) wake()
  })
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exit = new Promise<number | null>((resolve) => {
    child.on('close', (code) => {
      for (const wake of waiters.splice(0)) wake()
      resolve(code)
    })
  })
  let ended = false
  void exit.then(() => (ended = true))

  async function until(kind: string): Promise<Line> {
    for (;;) {
      const line = lines.find((candidate) => candidate.fault === kind)
      if (line) return line
      if (ended) throw new Error(`${script} ended before "${kind}" (${child.exitCode}):\n${stderr}`)
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return { child, exit, until, stderr: () => stderr }
}

type Files = { modelLog: string; actionLog: string; readLog: string; logFile: string }

function filesFor(name: string): Files {
  const file = (suffix: string) => fileURLToPath(new URL(`${name}-${suffix}`, FILES))
  return {
    modelLog: file('model.log'),
    actionLog: file('action.log'),
    readLog: file('read.log'),
    logFile: file('app.log'),
  }
}

function startWorkers(files: Files, env: Record<string, string>) {
  return Array.from({ length: WORKERS }, (_, index) =>
    spawnChild(fileURLToPath(new URL('fault_worker.ts', FIXTURES)), [`w${index}`], {
      DB: dbName(),
      DB_FILE: sqliteFile(),
      MODEL_LOG: files.modelLog,
      ACTION_LOG: files.actionLog,
      READ_LOG: files.readLog,
      LOG_FILE: `${files.logFile}.w${index}`,
      RUNS: String(RUNS_PER_WORKER),
      START_EVERY: String(START_EVERY),
      /*
       * Longer than any fault, as the 60 s default is: a live process finishes
       * what it claimed. A lease that lapses is another matter (fence.spec.ts)
       */
      LEASE_TTL: '15000',
      RECOVER_INTERVAL: '500',
      ...env,
    })
  )
}

/**
 * Waits until every worker started its runs and every run in the database
 * finished. Returns the ms it took, or null past `bound`.
 */
async function untilAllFinished(workers: ReturnType<typeof startWorkers>, bound: number) {
  const began = Date.now()
  await Promise.race([Promise.all(workers.map((worker) => worker.until('started'))), sleep(bound)])
  while (Date.now() - began < bound) {
    const open = await AgentRun.query().whereNotIn('status', FINISHED_RUN_STATUSES).count('* as n')
    if (Number(open[0].$extras.n) === 0) return Date.now() - began
    await sleep(100)
  }
  return null
}

/**
 * Stops the workers and checks every run against what a run no fault
 * touched leaves. Returns what the report prints.
 */
async function finish(
  assert: any,
  workers: ReturnType<typeof startWorkers>,
  files: Files,
  settledIn: number | null
) {
  for (const worker of workers) worker.child.stdin.write('stop\n')
  const summaries = await Promise.all(workers.map((worker) => worker.until('summary')))
  const codes = await Promise.all(workers.map((worker) => worker.exit))
  assert.deepEqual(codes, [0, 0], workers.map((worker) => worker.stderr()).join('\n'))
  assert.isNotNull(settledIn, `runs still open ${SETTLE_BOUND} ms after the faults ended`)

  const runs = await AgentRun.query().orderBy('created_at', 'asc')
  assert.isAtLeast(runs.length, WORKERS * RUNS_PER_WORKER)
  for (const run of runs) {
    assert.deepEqual(await runFacts(run.id, files), expectedRun(run.agent), run.id)
  }
  const logged = workers.flatMap((_worker, index) =>
    logLines(`${files.logFile}.w${index}`).map((line) => JSON.parse(line) as { level: number })
  )
  return {
    runs: runs.length,
    settledIn,
    warned: logged.filter((line) => line.level === 40).length,
    errors: logged.filter((line) => line.level >= 50).length,
    workers: summaries.map(({ pid: _pid, fault: _fault, ...counts }) => counts),
  }
}

function report(name: string, facts: object) {
  if (process.env.FAULT_REPORT) console.log(`${name}: ${JSON.stringify(facts)}`)
}

test.group(`Runtime | faults | ${dbName()}`, (group) => {
  group.setup(async () => {
    await mkdir(FILES, { recursive: true })
    const testApp = await createTestApp()
    return async () => {
      await testApp.terminate()
      await rm(FILES, { recursive: true, force: true })
    }
  })

  if (dbName() !== 'sqlite') {
    test('connections cut, paused and refused at random while runs are in flight: every run completes, each action once', async ({
      assert,
    }) => {
      const files = filesFor('proxy')
      const proxy = new FaultProxy({
        host: '127.0.0.1',
        port: dbName() === 'pg' ? 5432 : 3306,
      })
      await proxy.start()
      const workers = startWorkers(files, { PROXY_PORT: String(proxy.port) })
      try {
        await Promise.all(workers.map((worker) => worker.until('ready')))
        const faults = await injectNetworkFaults(proxy, random(SEED), WINDOW)
        const settledIn = await untilAllFinished(workers, SETTLE_BOUND)
        const facts = await finish(assert, workers, files, settledIn)
        report(`faults ${dbName()} seed ${SEED}`, { ...facts, faults, cut: proxy.cuts })
      } finally {
        for (const worker of workers) worker.child.kill('SIGKILL')
        await proxy.stop()
      }
    }).timeout(120_000)
  } else {
    test('the write lock held by another process at random while runs are in flight: every run completes, each action once', async ({
      assert,
    }) => {
      const files = filesFor('lock')
      // A short busy wait, so holds of a few seconds fail writes, several times over
      const workers = startWorkers(files, { SQLITE_BUSY_TIMEOUT: '1000' })
      try {
        await Promise.all(workers.map((worker) => worker.until('ready')))
        const faults = await holdWriteLock(random(SEED), WINDOW)
        const settledIn = await untilAllFinished(workers, SETTLE_BOUND)
        const facts = await finish(assert, workers, files, settledIn)
        report(`faults sqlite seed ${SEED}`, { ...facts, faults })
      } finally {
        for (const worker of workers) worker.child.kill('SIGKILL')
      }
    }).timeout(120_000)
  }
})

/**
 * For `window` ms: a spell of normal service, then a fault, again. The
 * first three faults are one of each kind, so every seed has them all.
 * Returns the faults, as `<kind> <ms>`.
 */
async function injectNetworkFaults(
  proxy: FaultProxy,
  rng: ReturnType<typeof random>,
  window: number
) {
  const end = Date.now() + window
  const kinds = ['cut', 'pause', 'down'].sort(() => rng.next() - 0.5)
  const faults: string[] = []
  while (Date.now() < end) {
    await sleep(rng.between(150, 900))
    const roll = rng.next()
    const kind = kinds.shift() ?? (roll < 0.5 ? 'cut' : roll < 0.8 ? 'pause' : 'down')
    if (kind === 'cut') {
      faults.push(`cut ${proxy.cut()}`)
    } else if (kind === 'pause') {
      // Queries hang mid-transaction, holding their locks; the pool's connections run out
      const ms = rng.between(300, 2500)
      proxy.pause()
      await sleep(ms)
      proxy.resume()
      faults.push(`pause ${ms}`)
    } else {
      const ms = rng.between(500, 3000)
      await proxy.down(ms)
      faults.push(`down ${ms}`)
    }
  }
  return faults
}

/**
 * For `window` ms: a spell of normal service, then another process holds
 * the SQLite file's write lock, longer than the workers' 1 s busy timeout
 * (the first, past their drives' retries). Returns the locks held, as
 * `<mode> <ms>`.
 */
async function holdWriteLock(rng: ReturnType<typeof random>, window: number) {
  const end = Date.now() + window
  const faults: string[] = []
  let longOne = true
  while (Date.now() < end) {
    await sleep(rng.between(200, 900))
    const ms = longOne ? 6000 : rng.between(500, 3000)
    longOne = false
    const mode = rng.next() < 0.5 ? 'immediate' : 'exclusive'
    const locker = spawnChild(
      fileURLToPath(new URL('sqlite_locker.ts', FIXTURES)),
      [sqliteFile(), String(ms), mode],
      {}
    )
    await locker.until('locked')
    const code = await locker.exit
    if (code !== 0) throw new Error(`the locker failed:\n${locker.stderr()}`)
    faults.push(`${mode} ${ms}`)
  }
  return faults
}
