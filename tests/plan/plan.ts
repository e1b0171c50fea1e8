/*
 * The test plan: which suite runs on which database, and why. A suite
 * whose subject depends on the database (its writes, its locks, its
 * transactions, what survives a killed process) runs on every database;
 * a suite whose subject does not (the pure question model, the pages in
 * the browser, the install flow, the terminal) runs once, on the database
 * named here, chosen so it still meets a real server where that matters.
 * The storms keep their full strength on one database and run a shorter
 * storm of the same shape, with the same assertions, on the others.
 *
 * Pure data and pure functions: bin/test.ts reads the plan, probes the
 * machine (./tools.ts) and runs each database's share. CONTRIBUTING.md
 * says the same in prose; keep them together.
 */

import { matchesGlob } from 'node:path'

export const DATABASES = ['sqlite', 'pg', 'mysql'] as const
export type DbName = (typeof DATABASES)[number]

/** Outside tools some suites need besides the databases */
export type Tool = 'chromium' | 'redis'

/** Where a set of spec files runs: on each database of the run, or once */
export type Placement = {
  /** Globs from the repository's root */
  files: string[]
  /** Globs taken out of `files` (another part of the suite holds them) */
  except?: string[]
  on: 'every' | DbName
  needs?: Tool[]
  why: string
}

export type PlannedSuite = {
  name: string
  timeout?: number
  parts: Placement[]
}

export const SUITES: PlannedSuite[] = [
  {
    name: 'plan',
    parts: [
      {
        files: ['tests/plan/**/*.spec.ts'],
        on: 'sqlite',
        why: 'this plan: every spec file placed, each database’s share, the table below',
      },
    ],
  },
  {
    name: 'questions',
    parts: [
      {
        files: ['tests/questions/**/*.spec.ts'],
        on: 'sqlite',
        why: 'the pure question model: no database at all',
      },
    ],
  },
  {
    name: 'i18n',
    parts: [
      {
        files: ['tests/i18n/**/*.spec.ts'],
        on: 'sqlite',
        why: "the package's words and the app's i18n in memory: no database at all",
      },
    ],
  },
  {
    name: 'mcp',
    parts: [
      {
        files: ['tests/mcp/**/*.spec.ts'],
        except: ['tests/mcp/client_bridge.spec.ts', 'tests/mcp/inbox_handler.spec.ts'],
        on: 'sqlite',
        why: 'the pure MCP mapping: elicitations to question sets and back',
      },
      {
        files: ['tests/mcp/client_bridge.spec.ts', 'tests/mcp/inbox_handler.spec.ts'],
        on: 'every',
        why: 'elicitation rows opened, withdrawn after a restart and expired in the database',
      },
    ],
  },
  {
    name: 'mcp_server',
    timeout: 120_000,
    parts: [
      {
        files: ['tests/mcp_server/**/*.spec.ts'],
        on: 'every',
        why: 'outside agents’ rows, votes, grants and tasks live in the database; the SDK client over HTTP against the fixture server',
      },
    ],
  },
  {
    name: 'persistence',
    parts: [
      {
        files: ['tests/persistence/**/*.spec.ts'],
        on: 'every',
        why: 'rows, settles, sweeps, prunes and index plans are the database’s own behaviour',
      },
    ],
  },
  {
    name: 'inbox',
    parts: [
      {
        files: ['tests/inbox/**/*.spec.ts'],
        on: 'every',
        why: 'opening, listing and laddering rows are queries and conditional writes',
      },
    ],
  },
  {
    name: 'layout',
    parts: [
      {
        files: ['tests/layout/**/*.spec.ts'],
        on: 'sqlite',
        why: 'reads src/’s imports and the package’s exports (the API report): no database',
      },
    ],
  },
  {
    name: 'configure',
    parts: [
      {
        files: [
          'tests/configure/configure.spec.ts',
          'tests/configure/configured_app.spec.ts',
          'tests/configure/package_exports.spec.ts',
        ],
        on: 'sqlite',
        why: 'the install flow on a fake app tree and a fresh app; a new app starts on SQLite',
      },
      {
        files: ['tests/configure/packed_app.spec.ts'],
        on: 'sqlite',
        needs: ['chromium'],
        why: 'the packed tarball in a starter-kit app, on SQLite as a new user runs it',
      },
    ],
  },
  {
    name: 'runtime',
    parts: [
      {
        files: ['tests/runtime/**/*.spec.ts'],
        except: ['tests/runtime/queue_cluster.spec.ts', 'tests/runtime/queue_executor.spec.ts'],
        on: 'every',
        why: 'journals, leases, fences, transactional actions and the kill storms live in the database',
      },
      {
        files: ['tests/runtime/queue_cluster.spec.ts', 'tests/runtime/queue_executor.spec.ts'],
        on: 'every',
        needs: ['redis'],
        why: 'queue workers lease and drive runs in the database; Redis carries their jobs',
      },
    ],
  },
  {
    name: 'http',
    parts: [
      {
        files: ['tests/http/**/*.spec.ts'],
        except: ['tests/http/live_servers.spec.ts', 'tests/http/live_steps.spec.ts'],
        on: 'every',
        why: 'the HTTP API’s writes: 409s, 422s that settle nothing, bulk settles, history reads',
      },
      {
        files: ['tests/http/live_steps.spec.ts'],
        on: 'pg',
        why: 'a streaming step on its run’s Transmit channel and who may watch it: no write of its own',
      },
      {
        files: ['tests/http/live_servers.spec.ts'],
        on: 'every',
        needs: ['redis'],
        why: 'live updates across servers, each settling in the database; Transmit on Redis',
      },
    ],
  },
  {
    name: 'telemetry',
    timeout: 90_000,
    parts: [
      {
        files: ['tests/telemetry/**/*.spec.ts'],
        except: [
          'tests/telemetry/traces.spec.ts',
          'tests/telemetry/without_api.spec.ts',
          'tests/telemetry/model_telemetry.spec.ts',
        ],
        on: 'every',
        why: 'metrics counted where rows and runs change must equal what the database holds',
      },
      {
        files: ['tests/telemetry/model_telemetry.spec.ts'],
        on: 'sqlite',
        why: "the AI SDK's telemetry option on a model call: no database part",
      },
      {
        files: ['tests/telemetry/traces.spec.ts'],
        on: 'pg',
        needs: ['redis'],
        why: 'spans across processes: the trace context a row stores is the only database part',
      },
      {
        files: ['tests/telemetry/without_api.spec.ts'],
        on: 'sqlite',
        why: 'the package loading without the optional OpenTelemetry API: no database',
      },
    ],
  },
  {
    name: 'browser',
    timeout: 120_000,
    parts: [
      {
        files: ['tests/browser/**/*.spec.ts'],
        on: 'pg',
        needs: ['chromium'],
        why: 'the pages in Chromium (React and Vue) against the fixture app on a real server',
      },
    ],
  },
  {
    name: 'page',
    parts: [
      {
        files: ['tests/page/**/*.spec.ts'],
        on: 'sqlite',
        why: 'the pages’ pure state: no database',
      },
    ],
  },
  {
    name: 'commands',
    timeout: 60_000,
    parts: [
      {
        files: ['tests/commands/**/*.spec.ts'],
        except: ['tests/commands/make.spec.ts'],
        on: 'sqlite',
        why: 'the ace commands as processes on a terminal or a pipe; the writes they make run everywhere in persistence and runtime',
      },
      {
        files: ['tests/commands/make.spec.ts'],
        on: 'every',
        why: 'the test make:agent writes runs in the fixture app’s runner on the database, as the testing kit does in an app',
      },
    ],
  },
  {
    name: 'docs',
    timeout: 120_000,
    parts: [
      {
        files: ['tests/docs/**/*.spec.ts'],
        on: 'sqlite',
        why: 'npm run docs:check on fixture docs: TypeScript and links, no database',
      },
    ],
  },
]

/**
 * The storms' sizes (env knobs of their suites): full strength on one
 * database, a shorter storm of the same shape on the others. Set only
 * when the plan runs several databases with the storm's home among them:
 * otherwise (`DB=sqlite npm test`, a machine without that database) each
 * suite keeps its own defaults, which suit each database. A size the
 * caller set in the environment wins.
 */
export const STORMS: { env: string; full: number; short: number; fullOn: DbName; what: string }[] =
  [
    {
      env: 'EXACTLY_ONCE_KILLS',
      full: 50,
      short: 12,
      fullOn: 'sqlite',
      what: 'workers killed inside a transactional handler (tests/runtime/exactly_once.spec.ts)',
    },
    {
      env: 'CLUSTER_RUNS',
      full: 200,
      short: 40,
      fullOn: 'pg',
      what: 'runs per queue backend through two servers and two workers (tests/runtime/queue_cluster.spec.ts)',
    },
    {
      env: 'STORM_KILLS',
      full: 16,
      short: 6,
      fullOn: 'mysql',
      what: 'queue workers killed every 0.3–1.5 s on the database backend (tests/runtime/queue_kill_storm.spec.ts)',
    },
  ]

/**
 * Whether `file` (relative to the repository's root) is one of `part`'s:
 * the runner picks a share's files with it, and a test checks with it
 * that every spec file is placed by exactly one part.
 */
export function places(part: Placement, file: string): boolean {
  return (
    part.files.some((pattern) => matchesGlob(file, pattern)) &&
    !(part.except ?? []).some((pattern) => matchesGlob(file, pattern))
  )
}

/**
 * Where a once-only part runs in a run over `databases`: its own database
 * when that one is in the run, else the first of the run (a machine
 * without PostgreSQL still runs the browser suites, on SQLite).
 */
export function homeOf(placement: Placement, databases: readonly DbName[]): DbName | 'every' {
  if (placement.on === 'every') return 'every'
  return databases.includes(placement.on) ? placement.on : databases[0]
}

/**
 * A half of a database's share: its parts that run on every database, or
 * the once-only parts whose home it is. The plan runs each half as a
 * process of its own (a unit), so the long once-only suites (the browser
 * pages, the install flow) run beside the database suites instead of after
 * them.
 */
export type Half = 'every' | 'once'

/** One process of a run of the plan: a database's half */
export type Unit = { db: DbName; half: Half }

export type Share = {
  suites: { name: string; parts: Placement[]; timeout?: number }[]
  /** The parts left out for a missing tool */
  skipped: { files: string[]; tool: Tool }[]
  env: Record<string, string>
}

/**
 * What the run on `db` runs, as one of a run over `databases`, with the
 * tools `missing` left out: all of it, or one half.
 */
export function shareOf(
  db: DbName,
  databases: readonly DbName[],
  missing: readonly Tool[] = [],
  env: Record<string, string | undefined> = {},
  half?: Half
): Share {
  const share: Share = { suites: [], skipped: [], env: {} }
  for (const suite of SUITES) {
    const parts: Placement[] = []
    for (const part of suite.parts) {
      const home = homeOf(part, databases)
      if (home !== 'every' && home !== db) continue
      if (half !== undefined && half !== (home === 'every' ? 'every' : 'once')) continue
      const lacking = part.needs?.find((tool) => missing.includes(tool))
      if (lacking) share.skipped.push({ files: part.files, tool: lacking })
      else parts.push(part)
    }
    if (parts.length > 0) share.suites.push({ name: suite.name, parts, timeout: suite.timeout })
  }
  for (const storm of STORMS) {
    if (env[storm.env] !== undefined && env[storm.env] !== '') continue
    if (databases.length < 2 || !databases.includes(storm.fullOn)) continue
    share.env[storm.env] = String(storm.fullOn === db ? storm.full : storm.short)
  }
  return share
}

/**
 * The processes of a run over `databases`, in the order they start: each
 * database's once-only half (the longest: the browser pages on
 * PostgreSQL, the install flow on SQLite) first, then each database's
 * every-database half. A half with nothing to run (its parts all skipped
 * for a missing tool, or none placed there) is left out.
 *
 * @example
 * unitsOf(['sqlite', 'pg', 'mysql'])
 * // pg once, sqlite once, then sqlite, pg and mysql every
 */
export function unitsOf(databases: readonly DbName[], missing: readonly Tool[] = []): Unit[] {
  const halves = (half: Half) =>
    databases
      .map((db) => ({ db, half }))
      .filter(({ db }) => shareOf(db, databases, missing, {}, half).suites.length > 0)
  // The browser pages outlast the install flow: the half that holds them starts first
  const browser = (db: DbName) => Number(holdsBrowser(db, databases, missing))
  const once = halves('once').sort((a, b) => browser(b.db) - browser(a.db))
  return [...once, ...halves('every')]
}

/** Whether `db`'s once-only half holds the browser suite (not skipped for a missing tool) */
function holdsBrowser(db: DbName, databases: readonly DbName[], missing: readonly Tool[]) {
  const browser = SUITES.find((suite) => suite.name === 'browser')!
  return browser.parts.some(
    (part) => homeOf(part, databases) === db && !part.needs?.some((tool) => missing.includes(tool))
  )
}

/**
 * The spec files that need `tool`, as the plan names them.
 */
export function filesNeeding(tool: Tool): string[] {
  return SUITES.flatMap((suite) =>
    suite.parts.filter((part) => part.needs?.includes(tool)).flatMap((part) => part.files)
  )
}

/**
 * The plan as the Markdown table CONTRIBUTING.md shows (a test keeps the
 * two the same).
 */
export function planTable(): string {
  const code = (files: string[]) =>
    files.map((file) => `\`${file.replace(/^tests\//, '')}\``).join(', ')
  const rows = SUITES.flatMap((suite) =>
    suite.parts.map((part) => {
      const files = code(part.files) + (part.except ? ` except ${code(part.except)}` : '')
      const on = part.on === 'every' ? 'every database' : part.on
      return `| ${suite.name} | ${files} | ${on} | ${part.needs?.join(', ') ?? ''} | ${part.why} |`
    })
  )
  return ['| Suite | Files | Runs on | Needs | Why |', '|---|---|---|---|---|', ...rows].join('\n')
}
