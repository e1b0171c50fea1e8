/*
 * The checkpoint's write transactions straight on better-sqlite3: all or
 * nothing whatever fails (a statement, the hook before COMMIT), writes of
 * the same turn in one transaction and one COMMIT, each undone alone when
 * it fails (savepoints), the pooled
 * connection left usable, multi-row inserts of rows with differing columns,
 * every statement published for the bench to count, and a statement
 * prepared once per connection, again on a new connection. SQLite only:
 * the other databases have their own (pg_writes.spec.ts, mysql_writes.spec.ts).
 */

import { test } from '@japa/runner'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { insertRows, sqliteWrite } from '../../src/persistence/sqlite_writes.ts'
import { preparedWhile, statementsWhile } from '../helpers/prepared.ts'

if (dbName() === 'sqlite') {
  test.group('SQLite writes on the driver', (group) => {
    let db: Database
    group.setup(async () => {
      const testApp = await createTestApp()
      db = testApp.db
      await db.connection().schema.createTable('driver_writes_probe', (table) => {
        table.integer('id').primary()
        table.text('label').notNullable()
        table.integer('flag').nullable()
      })
      return () => testApp.terminate()
    })
    group.each.setup(async () => {
      await db.from('driver_writes_probe').delete()
    })

    const client = () => db.connection()
    const labels = async () => {
      const rows = await db.from('driver_writes_probe').orderBy('id').select('label')
      return rows.map((row) => row.label)
    }

    test('rows are inserted in runs of the same columns, and bindings converted', async ({
      assert,
    }) => {
      const { seen } = await statementsWhile(() =>
        sqliteWrite(client(), (writer) =>
          insertRows(writer, 'driver_writes_probe', [
            { id: 1, label: 'a', flag: true },
            { id: 2, label: 'b', flag: undefined },
            { id: 3, label: 'c' },
          ])
        )
      )
      assert.deepEqual(await labels(), ['a', 'b', 'c'])
      const flags = await db.from('driver_writes_probe').orderBy('id').select('flag')
      assert.deepEqual(
        flags.map((row) => row.flag),
        [1, null, null]
      )
      // Begin, one insert of the two rows with a flag, one of the row without, commit
      assert.equal(seen.length, 4)
      assert.match(seen[1], /values \(\?, \?, \?\), \(\?, \?, \?\)$/)
      assert.equal(seen.at(-1), 'COMMIT')
    })

    test('a failing statement rolls back the whole write', async ({ assert }) => {
      await assert.rejects(() =>
        sqliteWrite(client(), (writer) => {
          insertRows(writer, 'driver_writes_probe', [{ id: 1, label: 'kept?' }])
          insertRows(writer, 'driver_writes_probe', [{ id: 1, label: 'clash' }])
        })
      )
      assert.deepEqual(await labels(), [])
      // The pooled connection is out of the transaction: the next write commits
      await sqliteWrite(client(), (writer) =>
        insertRows(writer, 'driver_writes_probe', [{ id: 1, label: 'after' }])
      )
      assert.deepEqual(await labels(), ['after'])
    })

    test('a hook failing before COMMIT rolls back what the work wrote', async ({ assert }) => {
      await assert.rejects(
        () =>
          sqliteWrite(
            client(),
            (writer) => {
              insertRows(writer, 'driver_writes_probe', [{ id: 7, label: 'written' }])
              return 'done'
            },
            (result) => {
              assert.equal(result, 'done')
              throw new Error('killed before commit')
            }
          ),
        'killed before commit'
      )
      assert.deepEqual(await labels(), [])
    })

    test('writes asked in the same turn share one transaction and one COMMIT, each its own result', async ({
      assert,
    }) => {
      const { result: results, seen } = await statementsWhile(() =>
        Promise.all(
          [1, 2, 3].map((id) =>
            sqliteWrite(client(), (writer) => {
              insertRows(writer, 'driver_writes_probe', [{ id, label: `w${id}` }])
              return id * 10
            })
          )
        )
      )
      assert.deepEqual(results, [10, 20, 30])
      assert.deepEqual(await labels(), ['w1', 'w2', 'w3'])
      assert.deepEqual(
        seen.filter((sql) => /^(BEGIN|COMMIT)/.test(sql)),
        ['BEGIN IMMEDIATE', 'COMMIT']
      )
      assert.lengthOf(
        seen.filter((sql) => sql.startsWith('SAVEPOINT')),
        3
      )
    })

    test('in a shared transaction, a write that fails is undone alone', async ({ assert }) => {
      await sqliteWrite(client(), (writer) =>
        insertRows(writer, 'driver_writes_probe', [{ id: 1, label: 'first' }])
      )
      const [before, clash, after] = await Promise.allSettled([
        sqliteWrite(client(), (writer) =>
          insertRows(writer, 'driver_writes_probe', [{ id: 2, label: 'before' }])
        ),
        sqliteWrite(client(), (writer) => {
          insertRows(writer, 'driver_writes_probe', [{ id: 3, label: 'undone' }])
          insertRows(writer, 'driver_writes_probe', [{ id: 1, label: 'clash' }])
        }),
        sqliteWrite(client(), (writer) =>
          insertRows(writer, 'driver_writes_probe', [{ id: 4, label: 'after' }])
        ),
      ])
      assert.equal(before.status, 'fulfilled')
      assert.equal(after.status, 'fulfilled')
      assert.equal(clash.status, 'rejected')
      assert.match(String((clash as PromiseRejectedResult).reason), /UNIQUE constraint failed/)
      assert.deepEqual(await labels(), ['first', 'before', 'after'])
    })

    test('a write with a hook before COMMIT has its transaction to itself', async ({ assert }) => {
      const { seen } = await statementsWhile(() =>
        Promise.all([
          sqliteWrite(
            client(),
            (writer) => insertRows(writer, 'driver_writes_probe', [{ id: 1, label: 'hooked' }]),
            () => {}
          ),
          sqliteWrite(client(), (writer) =>
            insertRows(writer, 'driver_writes_probe', [{ id: 2, label: 'grouped' }])
          ),
        ])
      )
      assert.deepEqual(await labels(), ['hooked', 'grouped'])
      assert.lengthOf(
        seen.filter((sql) => sql === 'COMMIT'),
        2
      )
    })

    test('a statement is prepared once per connection, again on the connection that replaces a closed one', async ({
      assert,
    }) => {
      await sqliteWrite(client(), (writer) =>
        insertRows(writer, 'driver_writes_probe', [{ id: 1, label: 'a' }])
      )
      const text = 'update "driver_writes_probe" set "label" = ? where "id" = 1'
      const relabel = async (label: string) => {
        const { result: changed, prepared } = await preparedWhile(text, () =>
          sqliteWrite(client(), (writer) => writer.run(text, [label]))
        )
        return { changed, prepared, labels: await labels() }
      }
      assert.deepEqual(await relabel('b'), { changed: 1, prepared: true, labels: ['b'] })
      // The pool holds one SQLite connection: the same one, its statement kept
      assert.deepEqual(await relabel('c'), { changed: 1, prepared: false, labels: ['c'] })
      // SQLite has no connection to lose: the app's connection is closed and opened again
      await db.manager.close(db.primaryConnectionName)
      assert.deepEqual(await relabel('d'), { changed: 1, prepared: true, labels: ['d'] })
    })
  })
}
