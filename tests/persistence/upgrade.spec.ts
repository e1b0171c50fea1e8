/*
 * An app that installed release 0.1.0 upgrades the package: its database,
 * made by that release's migration (the stub as it shipped, kept in
 * tests/fixtures/migrations/), holds runs waiting on rows; it takes the
 * migrations `node ace configure` publishes for what it lacks through
 * Lucid's migrator, and the waiting rows then settle and their runs
 * finish; rolled back, the rows stay. Each database runs it: the changes
 * are ALTER TABLEs on tables with rows in them (SQLite rebuilds a table to
 * drop a column).
 */

import { test } from '@japa/runner'
import { readdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { ApplicationService } from '@adonisjs/core/types'
import type { Database } from '@adonisjs/lucid/database'
import { MigrationRunner } from '@adonisjs/lucid/migration'
import {
  createTestApp,
  dbName,
  MIGRATION_STUBS,
  PACKAGE_TABLES,
  renderMigration,
} from '../helpers/database.ts'
import {
  ask,
  call,
  createAgents,
  DB_QUESTION,
  deployTools,
  rowsOf,
  say,
  scriptedModel,
} from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import {
  migrationPrefixes,
  missingMigrations,
  readMigrationStubs,
} from '../../database/migration_stubs.ts'

const FOLDER_NAME = `upgrade-${process.pid}`
/** The app's migrations folder, below the test app's root (tmp/) */
const FOLDER = new URL(`../../tmp/${FOLDER_NAME}/`, import.meta.url)
const RELEASED = fileURLToPath(new URL('../fixtures/migrations/', import.meta.url))
/** Lucid's own tables: the app's migrations start from nothing */
const SCHEMA_TABLES = ['adonis_schema', 'adonis_schema_versions']

/** Drops the package's tables and the migrator's records, and the folder */
async function dropEverything(db: Database) {
  const schema = db.connection().schema
  for (const table of [...PACKAGE_TABLES, ...SCHEMA_TABLES]) await schema.dropTableIfExists(table)
  await rm(FOLDER, { recursive: true, force: true })
}

/**
 * `node ace migration:run` of the app (or `migration:rollback` of its last
 * batch): what it ran, by name
 */
async function migrationRun(
  app: ApplicationService,
  db: Database,
  direction: 'up' | 'down' = 'up'
) {
  const migrator = new MigrationRunner(db, app, { direction })
  await migrator.run()
  if (migrator.error) throw migrator.error
  return Object.values(migrator.migratedFiles).map((node) => {
    if (node.status !== 'completed') throw new Error(`${node.file.name} ${node.status}`)
    return node.file.name.replace(`${FOLDER_NAME}/`, '')
  })
}

test.group(`Persistence | upgrading from release 0.1.0 | ${dbName()}`, (group) => {
  let app: ApplicationService
  let db: Database

  group.setup(async () => {
    const testApp = await createTestApp({
      migrate: false,
      migrationsPaths: [`./${FOLDER_NAME}/`],
      // As the app was on 0.1.0: its migration published by that release's configure, and run
      async preload(booted) {
        const database = await booted.container.make('lucid.db')
        await dropEverything(database)
        await renderMigration(
          booted,
          { file: '0.1.0_create_agent_inbox_tables.stub' },
          FOLDER,
          '1700000000000',
          RELEASED
        )
        await migrationRun(booted, database)
      },
    })
    app = testApp.app
    db = testApp.db
    return async () => {
      await dropEverything(db)
      await testApp.terminate()
    }
  })

  test('waiting rows of a 0.1.0 database settle after the new migrations ran', async ({
    assert,
  }) => {
    const tools = deployTools()
    // One script each across both deploys: the second goes on where the first stopped
    const askerModel = scriptedModel([[ask('q1', DB_QUESTION)], [say('On PostgreSQL.')]])
    const deployerModel = scriptedModel([
      [call('d1', 'deploy', { branch: 'main' })],
      [say('Deployed.')],
    ])
    const agents = () =>
      createAgents({
        agents: [
          defineAgent({
            name: 'asker',
            model: askerModel,
            instructions: 'Ask which database.',
          }),
          defineAgent({
            name: 'deployer',
            model: deployerModel,
            instructions: 'Deploy.',
            tools: [tools.deploy],
          }),
        ],
      })

    // Before the upgrade: a question and an approval wait
    const before = agents()
    const asked = await before.start('asker', { input: 'go', owner: 'user:1' })
    const approval = await before.start('deployer', { input: 'ship', owner: 'user:1' })
    await before.idle()
    const [question] = await rowsOf(asked.id)
    const [action] = await rowsOf(approval.id)
    assert.deepEqual(
      [question.status, action.status],
      ['pending', 'pending'],
      'both rows wait across the upgrade'
    )

    // What configure publishes for an app holding 0.1.0's migration, then migration:run
    const stubs = await readMigrationStubs(MIGRATION_STUBS)
    const missing = missingMigrations(stubs, await readdir(FOLDER))
    assert.deepEqual(
      missing.map((stub) => stub.order),
      stubs.slice(1).map((stub) => stub.order),
      "0.1.0's create migration is recognized as the app's"
    )
    const prefixes = migrationPrefixes(missing.length)
    for (const [index, stub] of missing.entries()) {
      await renderMigration(app, stub, FOLDER, prefixes[index])
    }
    const ran = await migrationRun(app, db)
    assert.deepEqual(
      ran,
      missing.map((stub, index) => `${prefixes[index]}_${stub.name}`),
      'only the new migrations run, in order'
    )
    // A builder of its own per question: knex chains the calls made on one
    const hasColumn = (table: string) =>
      db.connection().schema.hasColumn(table, 'definition_digest')
    assert.isTrue(await hasColumn('agent_runs'))
    assert.isTrue(await hasColumn('agent_tool_calls'))
    // What was written before the migration holds no fingerprint: nothing says what it was asked under
    await question.refresh()
    assert.isNull(question.definitionDigest)

    // After it, a new deploy settles them: the question is answered, the action runs once
    const after = agents()
    await after.inbox.settle(question.id, { answers: { db: ['pg'] } }, { by: 'user:1', via: 'api' })
    await after.inbox.settle(action.id, { approved: true }, { by: 'user:1', via: 'api' })
    await after.idle()
    await asked.refresh()
    await approval.refresh()
    assert.deepEqual([asked.status, approval.status], ['completed', 'completed'])
    assert.deepEqual(tools.executions, [{ branch: 'main', force: false }])
    await question.refresh()
    await action.refresh()
    assert.deepEqual(
      [question.status, action.status, action.execution],
      ['answered', 'approved', 'succeeded']
    )

    // Running the migrations again runs nothing
    assert.deepEqual(await migrationRun(app, db), [])

    // Rolled back, the new columns go and the rows stay; migrated again, they are back
    assert.deepEqual(await migrationRun(app, db, 'down'), [...ran].reverse())
    assert.isFalse(await hasColumn('agent_runs'))
    assert.isFalse(await hasColumn('agent_tool_calls'))
    assert.lengthOf(await rowsOf(asked.id), 1)
    await question.refresh()
    assert.equal(question.status, 'answered')
    assert.deepEqual(await migrationRun(app, db), ran)
    assert.isTrue(await hasColumn('agent_tool_calls'))
  })
})
