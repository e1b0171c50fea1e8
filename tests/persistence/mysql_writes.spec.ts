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
import { killPooled, MYSQL_KILLING, preparedWhile } from '../helpers/prepared.ts'

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
      const { result: changed, prepared } = await preparedWhile(text, () =>
        mysqlWrite(db.connection(), (writer) => writer.run(text, [value]), undefined, false)
      )
      const row = await db.from('mysql_writes_probe').where('id', 1).firstOrFail()
      return { changed, value: Number(row.value), connection: Number(row.connection), prepared }
    }

    test('prepared once per connection, again after the connection is killed', async ({
      assert,
    }) => {
      const first = await run(1)
      assert.deepInclude(first, { changed: 1, value: 1 })
      const again = await run(2)
      assert.deepInclude(again, { changed: 1, value: 2 })
      if (again.connection === first.connection) assert.isFalse(again.prepared)

      // Every connection that prepared it, killed from another connection
      const killed = await killPooled(db, [first.connection, again.connection], MYSQL_KILLING)
      assert.isAbove(killed, 0)
      const after = await run(3)
      assert.notInclude([first.connection, again.connection], after.connection)
      assert.deepInclude(after, { changed: 1, value: 3, prepared: true })
    })
  })
}
