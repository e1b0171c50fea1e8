/*
 * Boots a real AdonisJS app with Lucid against the database named by the
 * `DB` env switch (sqlite, the default; pg; mysql), and creates the
 * package's tables by running the very migration stubs an app receives,
 * in their order (database/migration_stubs.ts).
 * Connection settings come from env, with defaults matching the services
 * on the development machines and CI.
 */

import { mkdir, writeFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { IgnitorFactory } from '@adonisjs/core/factories'
import { defineConfig as defineLogger } from '@adonisjs/core/logger'
import type { ApplicationService } from '@adonisjs/core/types'
import type { Database } from '@adonisjs/lucid/database'
import { defineConfig } from '../../src/define_config.ts'
import { readMigrationStubs, type MigrationStub } from '../../database/migration_stubs.ts'

export type DbName = 'sqlite' | 'pg' | 'mysql'

const TMP = new URL('../../tmp/', import.meta.url)
export const MIGRATION_STUBS = fileURLToPath(new URL('../../database/migrations/', import.meta.url))
/** The package's tables, each before those it references: dropped in this order */
export const PACKAGE_TABLES = [
  'agent_conversations',
  'agent_slack_messages',
  'agent_heartbeats',
  'agent_notifications',
  'agent_grants',
  'agent_approvers',
  'agent_inbox_events',
  'agent_effects',
  'agent_run_journal',
  'agent_tool_calls',
  'agent_runs',
]

/**
 * The database the suite runs against.
 */
export function dbName(): DbName {
  const name = (process.env.DB ?? 'sqlite').toLowerCase()
  if (name === 'sqlite' || name === 'pg' || name === 'mysql') return name
  throw new Error(`DB must be sqlite, pg or mysql, got "${name}"`)
}

/**
 * The Lucid connection config for the chosen database; `port` replaces the
 * server's (a proxy in front of it, tests/helpers/fault_proxy.ts).
 */
export function connectionConfig(name: DbName = dbName(), port?: number) {
  const env = process.env
  switch (name) {
    case 'pg':
      return {
        client: 'pg' as const,
        connection: {
          host: env.PG_HOST ?? '127.0.0.1',
          port: port ?? Number(env.PG_PORT ?? 5432),
          user: env.PG_USER ?? 'postgres',
          password: env.PG_PASSWORD ?? '',
          database: env.PG_DATABASE ?? 'test',
        },
        pool: { min: 0, max: 10 },
      }
    case 'mysql':
      return {
        client: 'mysql2' as const,
        connection: {
          host: env.MYSQL_HOST ?? '127.0.0.1',
          port: port ?? Number(env.MYSQL_PORT ?? 3306),
          user: env.MYSQL_USER ?? 'root',
          password: env.MYSQL_PASSWORD ?? '',
          database: env.MYSQL_DATABASE ?? 'test',
        },
        pool: { min: 0, max: 10 },
      }
    case 'sqlite':
      return {
        client: 'better-sqlite3' as const,
        connection: { filename: sqliteFile() },
        useNullAsDefault: true,
        // As docs/guides/scaling_out.md advises: WAL, commits without a full fsync, and waits on a busy file (ms)
        pool: {
          afterCreate(connection: { pragma(sql: string): unknown }, done: Function) {
            connection.pragma('journal_mode = WAL')
            connection.pragma('synchronous = NORMAL')
            connection.pragma(`busy_timeout = ${Number(env.SQLITE_BUSY_TIMEOUT ?? 5000)}`)
            done(null, connection)
          },
        },
      }
  }
}

/**
 * The SQLite file of this process: one per test process, unless `DB_FILE`
 * names one, so child processes (tests/fixtures) share their parent's.
 */
export function sqliteFile(): string {
  return process.env.DB_FILE ?? fileURLToPath(new URL(`db-${process.pid}.sqlite`, TMP))
}

/**
 * Renders a migration stub (by default one of the package's) as the app
 * would receive it, into `folder` with `prefix`; returns the file.
 */
export async function renderMigration(
  app: ApplicationService,
  stub: Pick<MigrationStub, 'file'>,
  folder: URL,
  prefix: string,
  source = MIGRATION_STUBS
): Promise<URL> {
  const stubs = await app.stubs.create()
  const built = await stubs.build(stub.file, { source })
  const prepared = await built.prepare({ prefix })
  await mkdir(folder, { recursive: true })
  const file = new URL(basename(prepared.destination), folder)
  await writeFile(file, prepared.contents)
  return file
}

/**
 * Drops and re-creates the package's tables from its migration stubs, in order.
 */
export async function migrateFresh(app: ApplicationService, db: Database) {
  const folder = new URL(`migrations-${process.pid}/`, TMP)
  const files: URL[] = []
  for (const stub of await readMigrationStubs(MIGRATION_STUBS)) {
    files.push(await renderMigration(app, stub, folder, String(stub.order).padStart(4, '0')))
  }

  const schema = db.connection().schema
  for (const table of PACKAGE_TABLES) {
    await schema.dropTableIfExists(table)
  }
  const version = Date.now()
  for (const file of files) {
    const { default: Migration } = await import(`${file.href}?v=${version}`)
    await new Migration(db.connection(), fileURLToPath(file), false).execUp()
  }
}

/**
 * Boots an app with Lucid on the chosen database and fresh tables, or, with
 * `migrate: false`, on the tables as they are (a child process sharing its
 * parent's database). Call `terminate()` when done.
 */
export type TestAppOptions = {
  migrate?: boolean
  /** config/agents.ts of the app; default: no agents, an ask budget of 2 */
  agents?: ReturnType<typeof defineConfig>
  /** 'web' boots the HTTP server's routes (see tests/helpers/http.ts) */
  environment?: 'console' | 'web'
  /** Runs after boot and before start, e.g. to register routes */
  preload?: (app: ApplicationService) => void | Promise<void>
  /** More providers, registered before the package's (e.g. `@adonisjs/transmit`) */
  providers?: (() => Promise<unknown>)[]
  /** More config files by name, e.g. `{ transmit: defineConfig({ ... }) }` */
  config?: Record<string, unknown>
  /** PostgreSQL or MySQL through this port instead (a fault proxy) */
  dbPort?: number
  /** Where Lucid's migrator finds the app's migrations, from tmp/ (the app's root) */
  migrationsPaths?: string[]
}

export async function createTestApp(options: TestAppOptions = {}) {
  await mkdir(TMP, { recursive: true })
  const ignitor = new IgnitorFactory()
    .withCoreProviders()
    .withCoreConfig()
    .merge({
      rcFileContents: {
        providers: [
          () => import('@adonisjs/lucid/database_provider'),
          ...(options.providers ?? []),
          () => import('../../providers/agent_inbox_provider.ts'),
        ],
      },
      config: {
        ...options.config,
        database: {
          connection: 'primary',
          connections: {
            primary: {
              ...connectionConfig(dbName(), options.dbPort),
              ...(options.migrationsPaths && {
                migrations: { naturalSort: true, paths: options.migrationsPaths },
              }),
            },
          },
        },
        agents: options.agents ?? defineConfig({ limits: { askBudget: 2 } }),
      },
    })
    .create(TMP, { importer: (filePath) => import(filePath) })

  const app = ignitor.createApp(options.environment ?? 'console')
  await app.init()
  await app.boot()
  // Tables exist before start, as in an app whose migrations ran: `ready` hooks may read them
  const db = await app.container.make('lucid.db')
  if (options.migrate !== false) await migrateFresh(app, db)
  await options.preload?.(app)
  await app.start(() => {})

  return {
    app,
    db,
    async terminate() {
      await app.terminate()
    },
  }
}

/**
 * The `logger` config of a test app whose app logger writes its warn (and
 * worse) lines to `destination`: an array's push, or a file stream.
 *
 * @example
 * createTestApp({ config: warnLogger('heal', { write: (line) => void lines.push(line) }) })
 */
export function warnLogger(name: string, destination: { write(line: string): unknown }) {
  return {
    logger: defineLogger({
      default: 'app',
      loggers: { app: { enabled: true, name, level: 'warn', destination } },
    }),
  }
}
