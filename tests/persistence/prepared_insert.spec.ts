/*
 * A new row inserted on the driver (src/persistence/prepared_insert.ts),
 * on each database: the run it creates is the run Lucid's `create` makes
 * from the same attributes (the model's hook and timestamps applied, JSON
 * and dates written as Lucid writes them), persisted as far as Lucid can
 * tell; runs started at once are all written, on SQLite in one COMMIT; a
 * duplicate key is refused as Lucid's insert refuses it, and the insert
 * is prepared once per connection.
 */

import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import { preparedWhile, statementsWhile } from '../helpers/prepared.ts'
import { createPrepared } from '../../src/persistence/prepared_insert.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'

/** What two runs share, whichever way they were written */
function comparable(run: AgentRun) {
  const { id, createdAt, updatedAt, ...rest } = run.serialize()
  return rest
}

test.group(`Prepared insert | ${dbName()}`, (group) => {
  group.each.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('the run is the run Lucid creates from the same attributes', async ({ assert }) => {
    const attributes = {
      agent: 'deployer',
      status: 'queued' as const,
      input: { text: 'Ship it', tags: ['é', 1, null] },
      ownerId: '42',
      parentRunId: null,
    }
    const before = Date.now()
    const prepared = await createPrepared(AgentRun, attributes)
    const lucid = await AgentRun.create(attributes)

    // What the caller holds: hooked, timestamped, persisted and clean
    assert.match(prepared.id, /^[0-9a-f-]{36}$/)
    assert.isTrue(prepared.$isPersisted)
    assert.isFalse(prepared.$isDirty)
    assert.deepEqual(comparable(prepared), comparable(lucid))
    assert.isAtLeast(prepared.createdAt.toMillis(), before - 1000)
    assert.equal(prepared.updatedAt.toMillis(), prepared.createdAt.toMillis())

    // What the database holds
    const read = await AgentRun.findOrFail(prepared.id)
    const lucidRead = await AgentRun.findOrFail(lucid.id)
    assert.deepEqual(comparable(read), comparable(lucidRead))
    assert.deepEqual(read.input, attributes.input)
    assert.equal(read.attempt, 1)
    assert.equal(read.journalLength, 0)
    // Stored to the second at least (MySQL keeps no fraction), not shifted by a zone
    assert.closeTo(read.createdAt.toMillis(), prepared.createdAt.toMillis(), 1000)

    // Lucid goes on with it as with its own
    prepared.status = 'running'
    await prepared.save()
    const saved = await AgentRun.findOrFail(prepared.id)
    assert.equal(saved.status, 'running')
  })

  test('runs created at once are all written; on SQLite in one COMMIT', async ({ assert }) => {
    const { result, seen } = await statementsWhile(() =>
      Promise.all(
        Array.from({ length: 25 }, (_, index) =>
          createPrepared(AgentRun, { agent: 'deployer', input: `run ${index}`, ownerId: null })
        )
      )
    )
    const ids = result.map((run) => run.id)
    assert.lengthOf(new Set(ids), 25)
    const stored = await AgentRun.query().whereIn('id', ids)
    assert.sameMembers(
      stored.map((run) => run.input),
      Array.from({ length: 25 }, (_, index) => `run ${index}`)
    )
    const inserts = seen.filter((sql) => sql.startsWith('insert into'))
    assert.lengthOf(inserts, 25)
    if (dbName() === 'sqlite') {
      assert.lengthOf(
        seen.filter((sql) => sql === 'COMMIT'),
        1
      )
    }
  })

  test('a duplicate id is refused, and nothing of it is written', async ({ assert }) => {
    const first = await createPrepared(AgentRun, { agent: 'deployer', ownerId: '1' })
    await assert.rejects(() =>
      createPrepared(AgentRun, { id: first.id, agent: 'other', ownerId: '2' })
    )
    const kept = await AgentRun.query().where('id', first.id)
    assert.lengthOf(kept, 1)
    assert.equal(kept[0].agent, 'deployer')
    // The pool goes on: the next insert is written
    const next = await createPrepared(AgentRun, { agent: 'deployer', ownerId: '1' })
    assert.isNotNull(await AgentRun.find(next.id))
  })

  test('the insert is prepared once per connection', async ({ assert }) => {
    const { seen } = await statementsWhile(() =>
      createPrepared(AgentRun, { agent: 'deployer', ownerId: null })
    )
    const text = seen.find((sql) => sql.startsWith('insert into'))!
    assert.match(text, /agent_runs/)
    // A pool of several connections: one of a few inserts in a row reuses what was prepared
    const reused: boolean[] = []
    for (let index = 0; index < 12; index++) {
      const { prepared } = await preparedWhile(text, () =>
        createPrepared(AgentRun, { agent: 'deployer', ownerId: null })
      )
      reused.push(!prepared)
    }
    assert.include(reused, true)
  })
})
