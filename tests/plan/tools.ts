/*
 * What this machine has of the outside tools the plan needs (./plan.ts):
 * the database servers, Chromium and Redis. Each probe answers in about a
 * second at worst and never throws: a tool is there or it is not. What to
 * do about a missing one (skip loudly, or fail in CI) is bin/test.ts's.
 */

import { access, constants } from 'node:fs/promises'
import { createConnection } from 'node:net'
import type { DbName, Tool } from './plan.ts'

/** How each missing tool is installed or started on a Debian machine like CI's */
export const INSTALL: Record<Tool | Exclude<DbName, 'sqlite'>, string> = {
  chromium: 'apt-get update && apt-get install -y chromium',
  redis:
    'apt-get install -y redis-server && redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save ""',
  pg: 'apt-get install -y postgresql (trust auth on 127.0.0.1:5432, database "test"), or set PG_HOST/PG_PORT/PG_USER/PG_PASSWORD/PG_DATABASE',
  mysql:
    'apt-get install -y mariadb-server (root without a password on 127.0.0.1:3306, database "test"), or set MYSQL_HOST/MYSQL_PORT/MYSQL_USER/MYSQL_PASSWORD/MYSQL_DATABASE',
}

/** The Chromium the browser suites drive (tests/helpers/browser.ts reads the same) */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env) {
  return env.CHROMIUM_PATH ?? '/usr/bin/chromium'
}

/**
 * Whether something listens on a TCP port (a database server, Redis).
 * A listener is enough here: a server that accepts and then refuses the
 * tests' credentials fails the tests with its own message.
 */
export function listening(host: string, port: number, timeout = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port })
    const done = (up: boolean) => {
      socket.destroy()
      resolve(up)
    }
    socket.setTimeout(timeout, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

/**
 * Which of the plan's tools this machine lacks.
 */
export async function missingTools(env: NodeJS.ProcessEnv = process.env): Promise<Tool[]> {
  const missing: Tool[] = []
  try {
    await access(chromiumPath(env), constants.X_OK)
  } catch {
    missing.push('chromium')
  }
  if (!(await listening('127.0.0.1', 6379))) missing.push('redis')
  return missing
}

/**
 * Whether a database's server takes connections (SQLite is a file: always).
 */
export function databaseUp(db: DbName, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  switch (db) {
    case 'sqlite':
      return Promise.resolve(true)
    case 'pg':
      return listening(env.PG_HOST ?? '127.0.0.1', Number(env.PG_PORT ?? 5432))
    case 'mysql':
      return listening(env.MYSQL_HOST ?? '127.0.0.1', Number(env.MYSQL_PORT ?? 3306))
  }
}

/**
 * Creates the database `name` on `db`'s server if it is not there (the
 * once-only half of a database's share runs on a database of its own, so
 * it can run beside the other half); SQLite needs none. Connects with the
 * same settings as the tests (PG_*, MYSQL_*).
 */
export async function ensureDatabase(
  db: DbName,
  name: string,
  env: NodeJS.ProcessEnv = process.env
): Promise<void> {
  if (db === 'sqlite') return
  if (!/^\w+$/.test(name))
    throw new Error(`A test database's name is letters, digits and _: ${name}`)
  const { default: knex } = await import('knex')
  const server =
    db === 'pg'
      ? knex({
          client: 'pg',
          connection: {
            host: env.PG_HOST ?? '127.0.0.1',
            port: Number(env.PG_PORT ?? 5432),
            user: env.PG_USER ?? 'postgres',
            password: env.PG_PASSWORD ?? '',
            database: env.PG_DATABASE ?? 'test',
          },
        })
      : knex({
          client: 'mysql2',
          connection: {
            host: env.MYSQL_HOST ?? '127.0.0.1',
            port: Number(env.MYSQL_PORT ?? 3306),
            user: env.MYSQL_USER ?? 'root',
            password: env.MYSQL_PASSWORD ?? '',
          },
        })
  try {
    if (db === 'mysql') {
      await server.raw(`create database if not exists \`${name}\``)
      return
    }
    const found = await server.raw('select 1 from pg_database where datname = ?', [name])
    if (found.rowCount > 0) return
    // Two runs at once: the other one created it (42P04, duplicate_database)
    await server.raw(`create database "${name}"`).catch((error: { code?: string }) => {
      if (error.code !== '42P04') throw error
    })
  } finally {
    await server.destroy()
  }
}
