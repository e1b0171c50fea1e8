/*
 * `npm test` without `DB`: the whole plan (./plan.ts). It probes the
 * machine, then runs each database's share in two processes, its
 * every-database half and its once-only half (`DB=<db> bin/test.ts`, with
 * `TEST_HALF`; ./plan.ts `unitsOf`), one a core (`TEST_JOBS` sets it;
 * 1 prints each run live), the once-only half of a server's share on a
 * database of its own (`<name>_once`), and ends with the tests per
 * database, what was skipped and why, and the slowest tests. A tool or database server that is missing is skipped with one
 * line saying how to install it, unless CI is set: then it fails the run.
 * The pure suites' run collects coverage for `c8` (the pure model must
 * keep 90% of its lines covered).
 */

import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { finished } from 'node:stream/promises'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { resolve as resolvePath } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  DATABASES,
  filesNeeding,
  homeOf,
  SUITES,
  unitsOf,
  type DbName,
  type Tool,
  type Unit,
} from './plan.ts'
import { countsByDatabase, parseTimings, seconds, slowest } from './summary.ts'
import { chromiumPath, databaseUp, ensureDatabase, INSTALL, missingTools } from './tools.ts'
import { ensureFixtureBuilt } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** Where the run writes its timings, logs and summary (a test of the plan runs it elsewhere) */
const reportDir = () => pathToFileURL(`${resolvePath(ROOT, process.env.TEST_REPORT_DIR ?? 'tmp')}/`)
const C8 = fileURLToPath(new URL('../../node_modules/c8/bin/c8.js', import.meta.url))

/** Whether this is a CI run, where nothing may be skipped */
export function inCI(env: NodeJS.ProcessEnv = process.env) {
  const value = (env.CI ?? '').toLowerCase()
  return value !== '' && value !== 'false' && value !== '0'
}

type Outcome = Unit & { code: number; ms: number; log?: string }

/** A unit's name in logs and file names: `pg`, `pg-once` */
function unitName({ db, half }: Unit) {
  return half === 'once' ? `${db}-once` : db
}

/**
 * The environment that moves a once-only half onto a database of its own
 * on its server (created when missing), so it never meets the other half's
 * tables; SQLite's file is each process's own already.
 */
async function ownDatabase(unit: Unit): Promise<NodeJS.ProcessEnv> {
  if (unit.half !== 'once' || unit.db === 'sqlite') return {}
  const variable = unit.db === 'pg' ? 'PG_DATABASE' : 'MYSQL_DATABASE'
  const name = `${process.env[variable] ?? 'test'}_once`
  await ensureDatabase(unit.db, name)
  return { [variable]: name }
}

/**
 * Runs one database's share; with `log`, its output goes there and is
 * printed when it ends (runs side by side would interleave their lines).
 */
function runShare(unit: Unit, args: string[], env: NodeJS.ProcessEnv, log?: string) {
  const began = performance.now()
  const child = spawn(process.execPath, [...process.execArgv, 'bin/test.ts', ...args], {
    cwd: ROOT,
    env,
    stdio: log ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  })
  // Both streams into one file, closed once the child closed both (not when the first ends)
  const out = log ? createWriteStream(log) : undefined
  if (out) {
    child.stdout!.pipe(out, { end: false })
    child.stderr!.pipe(out, { end: false })
  }
  return new Promise<Outcome>((resolve) => {
    child.on('close', async (code, signal) => {
      if (out) {
        out.end()
        await finished(out)
      }
      resolve({ ...unit, code: code ?? (signal ? 1 : 0), ms: performance.now() - began, log })
    })
  })
}

/**
 * The c8 step: the report of the pure suites' run, and the 90% check of
 * the pure model. Returns the exit code.
 */
async function coverage(): Promise<number> {
  const step = (command: string, args: string[]) =>
    new Promise<number>((resolve) => {
      const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' })
      child.on('close', (code) => resolve(code ?? 1))
    })
  const reported = await step(process.execPath, [C8, 'report', '--reporter=text-summary'])
  return reported !== 0 ? reported : step('npm', ['run', '--silent', 'coverage:pure'])
}

/**
 * Runs the plan; resolves with the exit code.
 */
export async function runPlan(args: string[]): Promise<number> {
  const began = performance.now()
  const ci = inCI()
  const up = await Promise.all(DATABASES.map((db) => databaseUp(db)))
  const databases = DATABASES.filter((_, at) => up[at])
  const absentDbs = DATABASES.filter((_, at) => !up[at])
  const missing = await missingTools()

  const absent: { what: string; skipped: string; install: string }[] = [
    ...absentDbs.map((db) => ({
      what: db === 'pg' ? 'PostgreSQL' : 'MySQL/MariaDB',
      skipped: `the ${db} run (what runs once ran on ${databases[0]})`,
      install: INSTALL[db as Exclude<DbName, 'sqlite'>],
    })),
    ...missing.map((tool: Tool) => ({
      what: tool === 'chromium' ? `Chromium (${chromiumPath()})` : 'Redis (127.0.0.1:6379)',
      skipped: filesNeeding(tool).join(', '),
      install: INSTALL[tool],
    })),
  ]
  const TMP = reportDir()
  await mkdir(TMP, { recursive: true })
  await rm(new URL('test-summary.txt', TMP), { force: true })
  if (ci && absent.length > 0) {
    for (const { what, install } of absent) {
      console.error(`CI skips nothing, and ${what} is missing. Install it: ${install}`)
    }
    return 1
  }

  const units = unitsOf(databases, missing)
  const timings = (unit: Unit) => fileURLToPath(new URL(`timings-${unitName(unit)}.jsonl`, TMP))
  await Promise.all(units.map((unit) => rm(timings(unit), { force: true })))
  // The pure suites' run collects coverage; c8 reads it from its temp directory
  const coverageOn = homeOf(SUITES.find((suite) => suite.name === 'questions')!.parts[0], databases)
  // A filtered run (`npm test -- --files …`) checks no coverage
  const filtered = args.length > 0
  const coverageDir = fileURLToPath(new URL('../../coverage/tmp/', import.meta.url))
  if (!filtered) {
    await rm(coverageDir, { recursive: true, force: true })
    await mkdir(coverageDir, { recursive: true })
  }

  /*
   * Side by side, one a core. Three at a time on two cores was measured
   * (issue 28's session): no faster (1,847 s against 1,870 s), the machine
   * being CPU-bound, and the packed-app test outran its 8-minute bound. One
   * at a time when REDIS_DB names the Redis database: runs side by side
   * would share it and take (or flush) each other's jobs.
   */
  const jobs = process.env.REDIS_DB
    ? 1
    : Math.max(1, Math.min(units.length, Number(process.env.TEST_JOBS) || availableParallelism()))

  // Built once here: the runs side by side would each rebuild a stale one at the same time
  if (databases.length > 1) await ensureFixtureBuilt()
  console.log(
    `Test plan: ${units.map(unitName).join(', ')}${jobs > 1 ? `, ${jobs} at a time` : ''} (tests/plan/plan.ts)`
  )
  const queue = [...units]
  const outcomes: Outcome[] = []
  const portBase = 21_000 + (process.pid % 1000) * 6
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let unit = queue.shift(); unit; unit = queue.shift()) {
        const name = unitName(unit)
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          ...(await ownDatabase(unit)),
          DB: unit.db,
          TEST_HALF: unit.half,
          TEST_DATABASES: databases.join(','),
          TEST_MISSING: missing.join(','),
          TEST_PLANNED: '1',
          TEST_TIMINGS: timings(unit),
          TEST_HTTP_PORT: String(portBase + units.indexOf(unit)),
          // The pure suites' half collects coverage
          ...(unit.db === coverageOn && unit.half === 'once' && !filtered
            ? { NODE_V8_COVERAGE: coverageDir }
            : {}),
        }
        const log = jobs > 1 ? fileURLToPath(new URL(`test-${name}.log`, TMP)) : undefined
        console.log(
          log ? `${name}: started; its output follows when it ends (${log})` : `\n== ${name} ==`
        )
        const outcome = await runShare(unit, args, env, log)
        if (log) {
          console.log(`\n== ${name} (${seconds(outcome.ms)}) ==`)
          process.stdout.write(await readFile(log, 'utf8'))
        }
        outcomes.push(outcome)
      }
    })
  )

  let code = outcomes.some((outcome) => outcome.code !== 0) ? 1 : 0
  if (code === 0 && !filtered) code = await coverage()

  const perUnit = await Promise.all(
    units.map((unit) => readFile(timings(unit), 'utf8').then(parseTimings, () => []))
  )
  const lines = perUnit.flat()
  const report = ['== Tests per database ==']
  for (const count of countsByDatabase(lines, databases)) {
    const halves = outcomes
      .filter((one) => one.db === count.db)
      .map((one) => `${one.half} ${seconds(one.ms)} wall, exit ${one.code}`)
    report.push(
      `${count.db.padEnd(6)} ${String(count.tests).padStart(4)} tests, ${count.failed} failed; ` +
        halves.join('; ')
    )
  }
  report.push('', '== The ten slowest tests ==', ...slowest(lines, 'test'))
  report.push('', '== The five slowest files (with their hooks) ==', ...slowest(lines, 'file', 5))
  for (const { what, skipped, install } of absent) {
    report.push('', `Skipped ${skipped}: no ${what}. Install it: ${install}`)
  }
  report.push('', `Tests took ${seconds(performance.now() - began)}; exit ${code}`)
  console.log(`\n${report.join('\n')}`)
  // .ci/run prints it again at its very end, under its phases
  await writeFile(new URL('test-summary.txt', TMP), report.join('\n') + '\n')
  return code
}
