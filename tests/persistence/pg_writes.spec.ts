/*
 * Named statements on the pg driver (src/persistence/pg_writes.ts): a
 * statement is parsed once per connection, and parsed again on the
 * connection that replaces one the server killed (pg_terminate_backend),
 * with the write then succeeding. PostgreSQL only.
 */

import { test } from '@japa/runner'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { pgNamed } from '../../src/persistence/pg_writes.ts'
import { sqlDiagnostics } from '../../src/persistence/sqlite_writes.ts'

if (dbName() === 'pg') {
  test.group('PostgreSQL named statements on the driver', (group) => {
    let db: Database
    group.setup(async () => {
      const testApp = await createTestApp()
      db = testApp.db
      return () => testApp.terminate()
    })

    const text = 'select pg_backend_pid() as pid, $1::int + 1 as next'
    const run = async (value: number) => {
      const seen: boolean[] = []
      const listen = (message: unknown) => {
        const published = message as { sql: string; prepared: boolean }
        if (published.sql === text) seen.push(published.prepared)
      }
      sqlDiagnostics.subscribe(listen)
      try {
        const [row] = await pgNamed(db.connection(), text, [value])
        return { pid: Number(row.pid), next: Number(row.next), prepared: seen[0] }
      } finally {
        sqlDiagnostics.unsubscribe(listen)
      }
    }

    test('parsed once per connection, again after the connection is killed', async ({ assert }) => {
      const first = await run(1)
      assert.equal(first.next, 2)
      const again = await run(2)
      assert.equal(again.next, 3)
      if (again.pid === first.pid) assert.isFalse(again.prepared)

      // Take every connection that parsed it, and kill its backend from another connection
      const pool = db.connection().getWriteClient().client as any
      const held: any[] = []
      for (let count = pool.pool.numFree(); count > 0; count--) {
        held.push(await pool.acquireConnection())
      }
      const parsedOn = held.filter((connection) =>
        [first.pid, again.pid].includes(connection.processID)
      )
      assert.isAbove(parsedOn.length, 0)
      const ended = parsedOn.map(
        (connection) => new Promise((resolve) => connection.once('end', resolve))
      )
      const killer = await pool.acquireConnection()
      try {
        await killer.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [
          parsedOn.map((connection) => connection.processID),
        ])
        await Promise.all(ended)
      } finally {
        for (const connection of [killer, ...held]) await pool.releaseConnection(connection)
      }
      const after = await run(3)
      assert.notInclude([first.pid, again.pid], after.pid)
      assert.equal(after.next, 4)
      assert.isTrue(after.prepared)
    })
  })
}
