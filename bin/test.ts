/*
 * The Japa entry point. Without `DB`, it runs the whole test plan
 * (tests/plan/plan.ts): each database's share in a process of its own,
 * then a summary. With `DB=sqlite|pg|mysql`, it runs that database's
 * share here: on its own (`DB=pg npm test`) every suite runs on it; as
 * part of the plan (TEST_DATABASES names the run's databases), the suites
 * whose subject does not depend on the database run on their home alone.
 */

import { glob } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { assert } from '@japa/assert'
import { apiClient } from '@japa/api-client'
import { fileSystem } from '@japa/file-system'
import { processCLIArgs, configure, run } from '@japa/runner'
import type { Suite } from '@japa/runner/core'
import { spec } from '@japa/runner/reporters'
import { claimRedisDb } from '../tests/helpers/redis_db.ts'
import { stopSuiteShared } from '../tests/helpers/suite_shared.ts'
import {
  DATABASES,
  places,
  shareOf,
  SUITES,
  type DbName,
  type Half,
  type Placement,
  type Tool,
} from '../tests/plan/plan.ts'
import { inCI, runPlan } from '../tests/plan/run_plan.ts'
import { INSTALL, missingTools } from '../tests/plan/tools.ts'
import { timingsReporter } from '../tests/plan/timings_reporter.ts'

const ROOT = new URL('../', import.meta.url)

if (!process.env.DB) {
  process.exitCode = await runPlan(process.argv.slice(2))
} else {
  await runShare(process.env.DB as DbName)
}

/**
 * The spec files (of `specs`, the repository's) a suite's parts place, in order.
 */
function filesOf(specs: string[], parts: Placement[]): URL[] {
  return specs
    .filter((file) => parts.some((part) => places(part, file)))
    .sort()
    .map((file) => new URL(file, ROOT))
}

async function runShare(db: DbName) {
  if (!DATABASES.includes(db)) throw new Error(`DB must be sqlite, pg or mysql, got "${db}"`)
  processCLIArgs(process.argv.splice(2))

  const databases = (process.env.TEST_DATABASES?.split(',') as DbName[] | undefined) ?? [db]
  const missing =
    process.env.TEST_MISSING !== undefined
      ? (process.env.TEST_MISSING.split(',').filter(Boolean) as Tool[])
      : await missingTools()
  // Run by the plan, one half of the share (tests/plan/run_plan.ts)
  const half = process.env.TEST_HALF as Half | undefined
  const share = shareOf(db, databases, missing, process.env, half)
  if (share.skipped.length > 0 && inCI()) {
    const tools = [...new Set(share.skipped.map((part) => part.tool))]
    throw new Error(`CI: ${tools.join(' and ')} missing, and CI skips nothing`)
  }
  // Printed here when run alone; the plan's summary says it otherwise
  if (!process.env.TEST_PLANNED) {
    for (const part of share.skipped) {
      console.log(
        `Skipped ${part.files.join(', ')}: no ${part.tool}. Install it: ${INSTALL[part.tool]}`
      )
    }
  }
  // The storms' sizes, for this process and the workers it starts
  Object.assign(process.env, share.env)

  // The pages' shared files import one another as an app's bundler does (tests/helpers/stub_imports.mjs)
  await import('../tests/helpers/stub_imports.mjs')

  /*
   * The port the HTTP suites listen on (tests/helpers/http.ts), picked per
   * process so parallel runs on one machine do not collide, and below
   * Linux's ephemeral range (32768–60999): between two groups, a server
   * listening on port 0 or an outgoing connection could take a port from
   * that range and fail the next group's listen with EADDRINUSE.
   */
  process.env.TEST_HTTP_PORT ??= String(21_000 + (process.pid % 4000))

  // V8's code cache for every process the tests start (workers, ace, servers): each boots the same modules
  process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('tmp/compile-cache/', ROOT))

  // The queue and live-update suites' Redis database, this run's own (tests/helpers/redis_db.ts)
  const releaseRedisDb = await claimRedisDb()
  const specs = await Array.fromAsync(glob('tests/**/*.spec.ts', { cwd: fileURLToPath(ROOT) }))

  configure({
    /*
     * Every suite of the plan, those of other databases' shares empty, so
     * a filter naming a suite (`npm test -- browser`) is known to each run
     */
    suites: SUITES.map(({ name }) => {
      const mine = share.suites.find((suite) => suite.name === name)
      const files = mine ? filesOf(specs, mine.parts) : []
      return {
        name,
        files: () => Promise.resolve(files),
        timeout: mine?.timeout,
        // What the suite's groups shared (a Chromium, fixture apps) ends with the suite
        configure: (suite: Suite) => void suite.teardown(stopSuiteShared),
      }
    }),
    /*
     * A bound against a wedge, not a speed goal: most tests start an app,
     * a server or a process, and Japa's 2 s default failed them on a
     * loaded machine (two busy loops on two cores) though nothing was stuck
     */
    timeout: 30_000,
    reporters: {
      activated: ['spec', 'timings'],
      list: [spec(), timingsReporter(db)],
    },
    plugins: [
      assert(),
      apiClient({ baseURL: `http://127.0.0.1:${process.env.TEST_HTTP_PORT}` }),
      fileSystem({ basePath: new URL(`../tmp/fs-${process.pid}/`, import.meta.url) }),
    ],
    teardown: [releaseRedisDb],
    forceExit: true,
  })

  run()
}
