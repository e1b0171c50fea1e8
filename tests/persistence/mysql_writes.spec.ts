/*
 * Prepared statements on mysql2 (src/persistence/mysql_writes.ts): a
 * statement is prepared once per connection, and prepared again on the
 * connection that replaces one the server killed (`KILL <id>` from
 * another connection), with the write then succeeding. MySQL only.
 */

import { test } from '@japa/runner'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { mysqlWrite } from '../../src/persistence/mysql_writes.ts'
import { sqlDiagnostics } from '../../src/persistence/sqlite_writes.ts'

if (dbName() === 'mysql') {
  test.group('MySQL prepared statements on the driver', (group) => {
    let db: Database
    group.setup(async () => {
      const testApp = await createTestApp()
      db = testApp.db
      await db.connection().schema.dropTableIfExists('mysql_writes_probe')
      await db.connection().schema.createTable('mysql_writes_probe', (table) => {
        table.integer('id').primary()
        table.integer('value').notNullable()
        table.bigInteger('connection').nullable()
      })
      await db.table('mysql_writes_probe').insert({ id: 1, value: 0 })
      return async () => {
        await db.connection().schema.dropTableIfExists('mysql_writes_probe')
        await testApp.terminate()
      }
    })

    // The row keeps which connection wrote it
    const text =
      'update mysql_writes_probe set value = ?, connection = connection_id() where id = 1'
    const run = async (value: number) => {
      const seen: boolean[] = []
      const listen = (message: unknown) => {
        const published = message as { sql: string; prepared: boolean }
        if (published.sql === text) seen.push(published.prepared)
      }
      sqlDiagnostics.subscribe(listen)
      try {
        const changed = await mysqlWrite(
          db.connection(),
          (writer) => writer.run(text, [value]),
          undefined,
          false
        )
        const row = await db.from('mysql_writes_probe').where('id', 1).firstOrFail()
        return {
          changed,
          value: Number(row.value),
          connection: Number(row.connection),
          prepared: seen[0],
        }
      } finally {
        sqlDiagnostics.unsubscribe(listen)
      }
    }

    test('prepared once per connection, again after the connection is killed', async ({
      assert,
    }) => {
      const first = await run(1)
      assert.deepInclude(first, { changed: 1, value: 1 })
      const again = await run(2)
      assert.deepInclude(again, { changed: 1, value: 2 })
      if (again.connection === first.connection) assert.isFalse(again.prepared)

      // Take every connection that prepared it, and kill it from another connection
      const pool = db.connection().getWriteClient().client as any
      const held: any[] = []
      for (let count = pool.pool.numFree(); count > 0; count--) {
        held.push(await pool.acquireConnection())
      }
      const preparedOn = held.filter((connection) =>
        [first.connection, again.connection].includes(connection.threadId)
      )
      assert.isAbove(preparedOn.length, 0)
      const closed = preparedOn.map(
        (connection) => new Promise((resolve) => connection.stream.once('close', resolve))
      )
      const killer = await pool.acquireConnection()
      try {
        for (const connection of preparedOn) {
          await killer.promise().query(`KILL ${Number(connection.threadId)}`)
        }
        await Promise.all(closed)
      } finally {
        for (const connection of [killer, ...held]) await pool.releaseConnection(connection)
      }
      const after = await run(3)
      assert.notInclude([first.connection, again.connection], after.connection)
      assert.deepInclude(after, { changed: 1, value: 3, prepared: true })
    })
  })
}
