/*
 * Guarded writes asked for in the same turn (src/persistence/write_groups.ts):
 * on PostgreSQL and MySQL, checkpoints of many runs at once share one
 * write (PostgreSQL: one statement, pg_guarded.ts; MySQL: one transaction
 * with one update, mysql_guarded.ts), each still all or nothing behind its
 * own fence: a run whose lease another driver took writes nothing while
 * the others commit; a duplicate key in one is that one's error alone;
 * writes of other shapes, and those that cannot share, go on their own.
 * (SQLite's turn shares a COMMIT, sqlite_writes.spec.ts.)
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { statementsWhile } from '../helpers/prepared.ts'
import { writeCheckpoint } from '../../src/runtime/checkpoint_write.ts'
import { guardedWrite } from '../../src/persistence/guarded_write.ts'
import { createPrepared } from '../../src/persistence/prepared_insert.ts'
import { preparedColumns, preparedRows } from '../../src/persistence/prepared_columns.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'

const OWNER = 'driver:a'

/** A run this driver holds the lease of */
function heldRun(index: number) {
  return createPrepared(AgentRun, {
    agent: 'stepper',
    status: 'running',
    input: `run ${index}`,
    ownerId: null,
    leaseOwner: OWNER,
    leaseExpiresAt: DateTime.now().plus({ minutes: 1 }),
  })
}

/** Run `run`'s checkpoint of one journal entry at `sequence` */
function checkpoint(run: AgentRun, sequence: number, owner = OWNER) {
  const now = DateTime.now()
  return writeCheckpoint({
    runId: run.id,
    owner,
    running: true,
    run: preparedColumns(run, { journalLength: sequence, updatedAt: now }),
    journal: preparedRows(JournalRow, [
      {
        runId: run.id,
        sequence,
        key: `step:${sequence}`,
        kind: 'response',
        payload: { text: `${run.input} step ${sequence}` },
        createdAt: now,
      },
    ]),
    calls: [],
  })
}

/** The statements of `work` that updated runs: PostgreSQL's one-statement writes, MySQL's updates */
async function writesWhile<T>(work: () => Promise<T>) {
  const { result, seen } = await statementsWhile(work)
  return { result, writes: seen.filter((sql) => /^(with|update) /.test(sql)) }
}

if (dbName() === 'pg' || dbName() === 'mysql') {
  test.group(`Guarded writes of one turn | ${dbName()}`, (group) => {
    group.each.setup(async () => {
      const testApp = await createTestApp()
      return () => testApp.terminate()
    })

    test('checkpoints of many runs at once share one write; each is written', async ({
      assert,
    }) => {
      const runs = await Promise.all(Array.from({ length: 20 }, (_, index) => heldRun(index)))
      const { result, writes } = await writesWhile(() =>
        Promise.all(runs.map((run) => checkpoint(run, 1)))
      )
      assert.deepEqual(result, Array(20).fill(true))
      assert.lengthOf(writes, 1)
      for (const run of runs) {
        const stored = await AgentRun.findOrFail(run.id)
        assert.equal(stored.journalLength, 1)
        const journal = await JournalRow.query().where('run_id', run.id)
        assert.deepEqual(
          journal.map((entry) => entry.payload),
          [{ text: `${run.input} step 1` }]
        )
      }

      // A lone checkpoint is the one-write form, as before
      const lone = await writesWhile(() => checkpoint(runs[0], 2))
      assert.isTrue(lone.result)
      assert.lengthOf(lone.writes, 1)
      assert.notEqual(lone.writes[0], writes[0])
    })

    test('a run whose lease another driver took writes nothing; the others commit', async ({
      assert,
    }) => {
      const runs = await Promise.all(Array.from({ length: 5 }, (_, index) => heldRun(index)))
      await AgentRun.query().where('id', runs[2].id).update({ lease_owner: 'driver:b' })
      const { result, writes } = await writesWhile(() =>
        Promise.all(runs.map((run) => checkpoint(run, 1)))
      )
      assert.deepEqual(result, [true, true, false, true, true])
      assert.lengthOf(writes, 1)
      const fenced = await AgentRun.findOrFail(runs[2].id)
      assert.equal(fenced.journalLength, 0)
      assert.lengthOf(await JournalRow.query().where('run_id', runs[2].id), 0)
      assert.lengthOf(await JournalRow.query().where('run_id', runs[3].id), 1)
    })

    test("a duplicate key in one run's checkpoint is its error alone", async ({ assert }) => {
      const runs = await Promise.all(Array.from({ length: 4 }, (_, index) => heldRun(index)))
      // Run 1's sequence 1 is written already (a second writer, as the crash tests make)
      assert.isTrue(await checkpoint(runs[1], 1))
      const settled = await Promise.allSettled(runs.map((run) => checkpoint(run, 1)))
      assert.deepEqual(
        settled.map((outcome) => outcome.status),
        ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']
      )
      assert.match(String((settled[1] as PromiseRejectedResult).reason), /duplicate/i)
      for (const index of [0, 2, 3]) {
        assert.lengthOf(await JournalRow.query().where('run_id', runs[index].id), 1)
      }
      assert.lengthOf(await JournalRow.query().where('run_id', runs[1].id), 1)
    })

    test('writes of other shapes, or with values of their own, go on their own', async ({
      assert,
    }) => {
      const runs = await Promise.all(Array.from({ length: 3 }, (_, index) => heldRun(index)))
      const failed = (run: AgentRun) =>
        guardedWrite({
          model: AgentRun,
          set: preparedColumns(run, { status: 'failed', leaseOwner: null }),
          // A condition with a value of its own besides `column = ?`: not shared
          where: [
            ['id = ?', run.id],
            [
              '(lease_expires_at is null or lease_expires_at > ?)',
              preparedColumns(run, { leaseExpiresAt: DateTime.fromISO('2000-01-01T00:00:00Z') })
                .lease_expires_at,
            ],
          ],
          inserts: [],
        })
      const { result, writes } = await writesWhile(() =>
        Promise.all([checkpoint(runs[0], 1), checkpoint(runs[1], 1), failed(runs[2])])
      )
      assert.deepEqual(result, [true, true, true])
      assert.lengthOf(writes, 2)
      const failedRun = await AgentRun.findOrFail(runs[2].id)
      assert.equal(failedRun.status, 'failed')
    })
  })
}
