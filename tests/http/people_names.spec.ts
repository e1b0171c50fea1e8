/*
 * People named without a `displayName` hook: the field a user record gives
 * (fullName, then name, then email, then the id), the signed-in user read
 * off `ctx.auth.user`, and the other people of a page found in one query
 * through the signed-in user's Lucid model, on every database. An id no
 * user has (one that is no number beside numeric keys, which PostgreSQL
 * would refuse for the whole query), and a context without auth, leave
 * the id.
 */

import { test } from '@japa/runner'
import type { HttpContext } from '@adonisjs/core/http'
import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { defaultAccess, namePeople, resolveAccess } from '../../src/http/access.ts'
import { nameOfUser } from '../../src/http/people_names.ts'

const TABLE = 'people_names_users'

/** An app's user model, as the starter kit writes it */
class User extends BaseModel {
  static table = TABLE

  @column({ isPrimary: true })
  declare id: number

  @column()
  declare fullName: string | null

  @column()
  declare name: string | null

  @column()
  declare email: string
}

/** A request context with that user signed in, as @adonisjs/auth leaves it */
function signedIn(user: unknown): HttpContext {
  return { auth: { user } } as unknown as HttpContext
}

test.group('nameOfUser', () => {
  test('fullName, then name, then email, then the id', ({ assert }) => {
    const ada = { fullName: 'Ada Lovelace', name: 'ada', email: 'ada@example.com' }
    assert.equal(nameOfUser(ada, '1'), 'Ada Lovelace')
    assert.equal(nameOfUser({ ...ada, fullName: null }, '1'), 'ada')
    assert.equal(nameOfUser({ ...ada, fullName: '  ', name: '' }, '1'), 'ada@example.com')
    assert.equal(nameOfUser({ fullName: 42, email: null }, '1'), '1')
    assert.equal(nameOfUser(null, '1'), '1')
    assert.equal(nameOfUser('ada', '1'), '1')
  })
})

test.group(`Default names of people | ${dbName()}`, (group) => {
  let db: Database
  let queries: string[] = []

  group.setup(async () => {
    const testApp = await createTestApp()
    db = testApp.db
    const schema = db.connection().schema
    await schema.dropTableIfExists(TABLE)
    await schema.createTable(TABLE, (table) => {
      table.increments('id')
      table.string('full_name').nullable()
      table.string('name').nullable()
      table.string('email').notNullable()
    })
    db.connection()
      .getReadClient()
      .on('query', (query: { sql: string }) => queries.push(query.sql))
    return async () => {
      await db.connection().schema.dropTableIfExists(TABLE)
      await testApp.terminate()
    }
  })

  group.each.setup(async () => {
    await User.query().delete()
    queries = []
  })

  test('the signed-in user and the others of a page, in one query', async ({ assert }) => {
    const ada = await User.create({ fullName: 'Ada Lovelace', email: 'ada@example.com' })
    const grace = await User.create({ name: 'grace', email: 'grace@example.com' })
    const alan = await User.create({ email: 'alan@example.com' })
    const signedInAda = await User.findOrFail(ada.id)
    queries = []

    const people = await namePeople(resolveAccess({}), signedIn(signedInAda), [
      String(ada.id),
      String(grace.id),
      String(alan.id),
      String(grace.id),
      'nobody',
      null,
    ])

    assert.deepEqual(people, {
      [String(ada.id)]: 'Ada Lovelace',
      [String(grace.id)]: 'grace',
      [String(alan.id)]: 'alan@example.com',
      nobody: 'nobody',
    })
    assert.lengthOf(queries, 1, queries.join('\n'))
  })

  test('the signed-in user alone costs no query', async ({ assert }) => {
    const ada = await User.create({ fullName: 'Ada Lovelace', email: 'ada@example.com' })
    queries = []
    const people = await namePeople(defaultAccess, signedIn(ada), [String(ada.id)])
    assert.deepEqual(people, { [String(ada.id)]: 'Ada Lovelace' })
    assert.lengthOf(queries, 0)
    assert.equal(await defaultAccess.displayName(String(ada.id), signedIn(ada)), 'Ada Lovelace')
  })

  test('without auth, or with a user that is no Lucid model, people are their ids', async ({
    assert,
  }) => {
    assert.deepEqual(await namePeople(defaultAccess, {} as HttpContext, ['1', '2']), {
      1: '1',
      2: '2',
    })
    const plain = signedIn({ id: 1, fullName: 'Ada Lovelace' })
    assert.deepEqual(await namePeople(defaultAccess, plain, ['1', '2']), {
      1: 'Ada Lovelace',
      2: '2',
    })
  })

  test('a lookup that fails leaves the ids and throws nothing', async ({ assert }) => {
    class Gone extends User {
      static table = 'people_names_no_such_table'
    }
    const ghost = new Gone()
    ghost.id = 7
    ghost.fullName = 'Ghost'
    const people = await namePeople(defaultAccess, signedIn(ghost), ['7', '8'])
    assert.deepEqual(people, { 7: 'Ghost', 8: '8' })
  })

  test("an app's hook still names people", async ({ assert }) => {
    const ada = await User.create({ fullName: 'Ada Lovelace', email: 'ada@example.com' })
    const access = resolveAccess({ displayName: (person) => `person ${person}` })
    assert.deepEqual(await namePeople(access, signedIn(ada), [String(ada.id)]), {
      [String(ada.id)]: `person ${ada.id}`,
    })
  })
})
