/*
 * Named statements on the pg driver (src/persistence/pg_writes.ts): a
 * statement is parsed once per connection, and parsed again on the
 * connection that replaces one the server killed (pg_terminate_backend),
 * with the write then succeeding; and parsed again, under a name of its
 * own, where a migration changed the columns its `*` returns. PostgreSQL
 * only.
 */

import { test } from '@japa/runner'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { pgNamed } from '../../src/persistence/pg_writes.ts'
import { killPooled, PG_KILLING, preparedWhile } from '../helpers/prepared.ts'

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
      const { result, prepared } = await preparedWhile(text, () =>
        pgNamed(db.connection(), text, [value])
      )
      return { pid: Number(result[0].pid), next: Number(result[0].next), prepared }
    }

    test('parsed once per connection, again after the connection is killed', async ({ assert }) => {
      const first = await run(1)
      assert.equal(first.next, 2)
      const again = await run(2)
      assert.equal(again.next, 3)
      if (again.pid === first.pid) assert.isFalse(again.prepared)

      // Every connection that parsed it, its backend killed from another connection
      const killed = await killPooled(db, [first.pid, again.pid], PG_KILLING)
      assert.isAbove(killed, 0)
      const after = await run(3)
      assert.notInclude([first.pid, again.pid], after.pid)
      assert.equal(after.next, 4)
      assert.isTrue(after.prepared)
    })

    test('parsed again after a migration changed what its `*` returns', async ({ assert }) => {
      await db.rawQuery('drop table if exists pg_writes_probe')
      await db.rawQuery('create table pg_writes_probe (id int primary key)')
      await db.rawQuery('insert into pg_writes_probe (id) values (1)')
      try {
        const read = 'select * from pg_writes_probe where id = $1'
        // Parsed on every connection of the pool, as a running app's would be
        const client = db.connection()
        await Promise.all(Array.from({ length: 6 }, () => pgNamed(client, read, [1])))
        // A migration run while the app runs (PostgreSQL: "cached plan must not change result type")
        await db.rawQuery('alter table pg_writes_probe add column label text')
        await db.rawQuery("update pg_writes_probe set label = 'one'")
        const rows = await Promise.all(Array.from({ length: 6 }, () => pgNamed(client, read, [1])))
        assert.deepEqual(rows, Array(6).fill([{ id: 1, label: 'one' }]))
      } finally {
        await db.rawQuery('drop table if exists pg_writes_probe')
      }
    })
  })
}
