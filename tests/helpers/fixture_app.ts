/*
 * The fixture app (fixtures/app) for the browser suites, on the database
 * the suite runs on (DB=sqlite|pg|mysql, the same SQLite file as this
 * process), so tests read what the app wrote. Building, migrating and
 * starting it is fixtures/app/bin/launch.ts, shared with the demo.
 */

import { mkdir } from 'node:fs/promises'
import { dbName, sqliteFile } from './database.ts'
import type { InboxFramework } from '../../fixtures/app/config/inbox_client.ts'
import {
  ensureFixtureBuilt,
  fixtureAce,
  launchFixtureApp,
  type FixtureApp,
} from '../../fixtures/app/bin/launch.ts'

export { ensureFixtureBuilt, type FixtureApp }

/**
 * Starts the fixture on the suite's database, serving `framework`'s pages
 * (React by default). `env` adds to its environment, e.g. `{ INBOX_LIVE:
 * 'poll' }` for an app without Transmit.
 *
 * @example
 * const fixture = await startFixtureApp()
 * await page.goto(`${fixture.baseUrl}/login/1`)
 * await fixture.stop()
 */
export function startFixtureApp(
  options: {
    env?: NodeJS.ProcessEnv
    framework?: InboxFramework
    /** A restart: the same port, the database as it is */
    port?: number
    migrate?: boolean
  } = {}
): Promise<FixtureApp> {
  return launchFixtureApp({
    framework: options.framework,
    port: options.port,
    migrate: options.migrate,
    env: { ...databaseEnv(), ...options.env },
  })
}

/**
 * Migrates and seeds the fixture's tables afresh on the suite's database,
 * as `startFixtureApp` does unless told `migrate: false`: for apps that
 * share one database, migrated once before the first starts.
 */
export async function migrateFixture() {
  await mkdir(new URL('../../tmp/', import.meta.url), { recursive: true })
  await fixtureAce(['migration:fresh', '--seed'], databaseEnv())
}

/** The fixture's database: the suite's, the same SQLite file as this process */
function databaseEnv(): NodeJS.ProcessEnv {
  return { DB_CONNECTION: dbName(), DB_FILE: sqliteFile() }
}
