/*
 * The fixture app picks its database like the package's tests, from `DB`,
 * or from `DB_CONNECTION`, which wins when both are set. Checked through
 * the fixture's own ace entry, pointed at a port nothing listens on: a
 * refused connection shows which database it chose, without needing one.
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { plain } from '../helpers/ace.ts'
import { NODE_FLAGS } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CONSOLE = fileURLToPath(new URL('../../fixtures/app/bin/console.ts', import.meta.url))
const SQLITE = fileURLToPath(new URL(`../../tmp/fixture-db-${process.pid}.sqlite`, import.meta.url))

/**
 * `migration:status` of the fixture with only the given switches set, and
 * PostgreSQL and MySQL pointed at port 1.
 */
async function migrationStatus(switches: { DB?: string; DB_CONNECTION?: string }) {
  const inherited = { ...process.env }
  delete inherited.DB
  delete inherited.DB_CONNECTION
  const child = spawn(process.execPath, [...NODE_FLAGS, CONSOLE, 'migration:status'], {
    cwd: ROOT,
    env: { ...inherited, ...switches, DB_FILE: SQLITE, PG_PORT: '1', MYSQL_PORT: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += String(chunk)))
  child.stderr.on('data', (chunk) => (output += String(chunk)))
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return { code: code as number | null, output: plain(output) }
}

test.group('Fixture app | its database switch', () => {
  test('DB={db} alone switches the fixture to it')
    .with([{ db: 'pg' }, { db: 'mysql' }])
    .run(async ({ assert }, { db }) => {
      const { code, output } = await migrationStatus({ DB: db })
      assert.notEqual(code, 0, output)
      assert.include(output, 'ECONNREFUSED')
    })

  test('DB_CONNECTION wins over DB; neither is SQLite', async ({ assert }) => {
    const wins = await migrationStatus({ DB: 'mysql', DB_CONNECTION: 'sqlite' })
    assert.equal(wins.code, 0, wins.output)
    assert.include(wins.output, '0002_0001_create_agent_inbox_tables')
    assert.include(wins.output, '0002_0002_add_agent_inbox_definition_digests')

    const neither = await migrationStatus({})
    assert.equal(neither.code, 0, neither.output)
  })
})
