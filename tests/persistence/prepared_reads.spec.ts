/*
 * Reads prepared on the driver (src/persistence/prepared_reads.ts), on
 * each database: they answer what knex's query answers, types and all
 * (mysql2's `execute` speaks MySQL's binary protocol, knex its text one);
 * `findRow`, the read every settle starts with, gives the row Lucid gives
 * with its run's agent; an update prepared on MySQL counts the rows it
 * changed, as knex's does; a statement is prepared once per connection, and
 * again on the connection that replaces one the server killed (SQLite: the
 * app's connection closed and opened again).
 */

import { test } from '@japa/runner'
import type { Database } from '@adonisjs/lucid/database'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createAskRow } from '../helpers/rows.ts'
import {
  killPooled,
  MYSQL_KILLING,
  PG_KILLING,
  preparedWhile,
  statementsWhile,
} from '../helpers/prepared.ts'
import { preparedRead, preparedUpdate } from '../../src/persistence/prepared_reads.ts'
import { findRow, runAgentOf } from '../../src/inbox/rows.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'

const PROBE = 'prepared_reads_probe'

/** The connection a statement ran on, as the server names it (SQLite has one, named 0) */
const CONNECTION: Record<string, string> = {
  pg: 'pg_backend_pid()',
  mysql: 'connection_id()',
  sqlite: '0',
}

const probeRead = preparedRead(2, (client, id, label) =>
  client
    .knexQuery()
    .from(PROBE)
    .where('id', id)
    .orWhere('label', label)
    .orderBy('id')
    .select('*', client.knexRawQuery(`${CONNECTION[dbName()]} as conn`))
)

test.group(`Prepared reads | ${dbName()}`, (group) => {
  let db: Database
  const client = (): QueryClientContract => db.connection()
  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    await db.connection().schema.dropTableIfExists(PROBE)
    await db.connection().schema.createTable(PROBE, (table) => {
      table.integer('id').primary()
      table.string('label').nullable()
      table.text('note').nullable()
      table.bigInteger('big').nullable()
      table.boolean('flag').nullable()
      table.decimal('amount', 10, 2).nullable()
      table.json('payload').nullable()
      table.timestamp('at', { useTz: true }).nullable()
    })
    await db.table(PROBE).multiInsert([
      {
        id: 1,
        label: 'one',
        note: 'é'.repeat(300),
        big: 9_007_199_254_740_000,
        flag: true,
        amount: '12.50',
        payload: JSON.stringify({ a: [1, 'b'] }),
        at: new Date('2026-12-05T10:11:12.000Z'),
      },
      { id: 2, label: 'two' },
      { id: 3, label: null, flag: false, amount: '0.10', big: -1 },
    ])
    return async () => {
      await db.connection().schema.dropTableIfExists(PROBE)
      await testApp.terminate()
    }
  })

  test('answers what the same query answers through knex, each type as knex reads it', async ({
    assert,
  }) => {
    const through = await client()
      .knexQuery()
      .from(PROBE)
      .where('id', 1)
      .orWhere('label', 'two')
      .orderBy('id')
    const prepared = await probeRead(client(), [1, 'two'])
    assert.deepEqual(
      prepared.map(({ conn, ...row }) => row),
      through
    )
    assert.lengthOf(await probeRead(client(), [3, 'none']), 1)
    assert.deepEqual(await probeRead(client(), [4, 'none']), [])
  })

  test("findRow reads the row Lucid reads, with its run's agent", async ({ assert }) => {
    const created = await createAskRow()
    const row = await findRow(created.id)
    const lucid = await ToolCall.findOrFail(created.id)
    assert.deepEqual(row!.serialize(), lucid.serialize())
    assert.equal(runAgentOf(row!), 'deployer')
    assert.isNull(await findRow('7c1a3a52-0000-4000-8000-000000000000'))
  })

  test('a prepared update counts the rows it changed, as knex does, prepared on MySQL', async ({
    assert,
  }) => {
    const relabel = preparedUpdate(2, (writer, id, label) =>
      writer.knexQuery().from(PROBE).where('id', id).whereNot('label', label).update({ label })
    )
    const { result: changed, seen } = await statementsWhile(() => relabel(client(), [2, 'deux']))
    assert.equal(changed, 1)
    // The row no longer matches, then a row that is not there
    assert.equal(await relabel(client(), [2, 'deux']), 0)
    assert.equal(await relabel(client(), [9, 'neuf']), 0)
    const [row] = await client().knexQuery().from(PROBE).where('id', 2)
    assert.equal(row.label, 'deux')
    // Sent on the driver on MySQL (published), through knex elsewhere (not)
    assert.lengthOf(seen, dbName() === 'mysql' ? 1 : 0)
    await client().knexQuery().from(PROBE).where('id', 2).update({ label: 'two' })
  })

  test('a parameter the query does not bind as a value is refused at once', async ({ assert }) => {
    const inline = preparedRead(1, (reader, id) =>
      reader.knexQuery().from(PROBE).whereRaw(`label = '${id}'`)
    )
    await assert.rejects(() => inline(client(), ['one']), /binds 0 of its 1 parameters/)
  })

  test('prepared once per connection, again after the connection is lost', async ({ assert }) => {
    // The statement's text, as the channel publishes it
    const published = await statementsWhile(() => probeRead(client(), [1, 'none']))
    const text = published.seen[0]
    assert.match(text, new RegExp(PROBE))
    const read = async (id: number) => {
      const { result, prepared } = await preparedWhile(text, () =>
        probeRead(client(), [id, 'none'])
      )
      return { id: Number(result[0].id), conn: Number(result[0].conn), prepared }
    }

    const first = await read(1)
    const again = await read(2)
    assert.deepInclude(first, { id: 1 })
    assert.deepInclude(again, { id: 2 })
    if (again.conn === first.conn) assert.isFalse(again.prepared)

    if (dbName() === 'sqlite') {
      // SQLite has no connection to lose: the app's connection is closed and opened again
      await db.manager.close(db.primaryConnectionName)
    } else {
      const killing = dbName() === 'pg' ? PG_KILLING : MYSQL_KILLING
      assert.isAbove(await killPooled(db, [first.conn, again.conn], killing), 0)
    }
    const after = await read(3)
    assert.deepInclude(after, { id: 3, prepared: true })
    if (dbName() !== 'sqlite') assert.notInclude([first.conn, again.conn], after.conn)
  })
})
