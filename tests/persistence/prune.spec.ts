/*
 * Retention (src/persistence/prune.ts): finished runs older than the
 * cutoff go with their rows and journal, settled rows without a run go
 * once settled before it; nothing unfinished, recent or pending is touched.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { variantSet } from '../helpers/expiry.ts'
import { AgentRun, type RunStatus } from '../../src/persistence/models/agent_run.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import { AgentEffect, type EffectStatus } from '../../src/persistence/models/agent_effect.ts'
import { ToolCall, type ToolCallStatus } from '../../src/persistence/models/tool_call.ts'
import { parseAge, pruneFinished } from '../../src/persistence/prune.ts'

/**
 * A run with two rows and three journal entries.
 */
async function runWith(
  status: RunStatus,
  finishedDaysAgo: number | null,
  parentRunId: string | null = null
) {
  const run = await AgentRun.create({
    agent: 'deployer',
    status,
    ownerId: 'user:1',
    input: 'go',
    parentRunId,
    finishedAt: finishedDaysAgo === null ? null : DateTime.now().minus({ days: finishedDaysAgo }),
  })
  for (const sequence of [1, 2]) {
    await ToolCall.create({
      runId: run.id,
      sequence,
      toolName: 'ask',
      kind: 'ask',
      status: 'answered',
      ownerId: 'user:1',
      request: variantSet(sequence),
      settledAt: DateTime.now().minus({ days: 60 }),
    })
  }
  for (const sequence of [1, 2, 3]) {
    await JournalRow.create({
      runId: run.id,
      sequence,
      key: `entry:${sequence}`,
      kind: 'input',
      payload: { sequence },
    })
  }
  return run
}

async function outsideRow(status: ToolCallStatus, settledDaysAgo: number | null) {
  return ToolCall.create({
    runId: null,
    sequence: 1,
    toolName: 'ask',
    kind: 'ask',
    status,
    ownerId: 'user:1',
    request: variantSet(0),
    settledAt: settledDaysAgo === null ? null : DateTime.now().minus({ days: settledDaysAgo }),
    createdAt: DateTime.now().minus({ days: 90 }),
  })
}

async function left() {
  const runs = await AgentRun.query().select('id')
  const rows = await ToolCall.query().select('id', 'run_id')
  const journal = await JournalRow.query().select('run_id')
  return {
    runs: new Set(runs.map((run) => run.id)),
    rows: new Set(rows.map((row) => row.id)),
    rowsOf: (runId: string) => rows.filter((row) => row.runId === runId).length,
    journalOf: (runId: string) => journal.filter((entry) => entry.runId === runId).length,
  }
}

test.group(`Prune | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    await AgentEffect.query().delete()
    await JournalRow.query().delete()
    await ToolCall.query().delete()
    await AgentRun.query().whereNotNull('parent_run_id').delete()
    await AgentRun.query().delete()
  })

  test('deletes finished runs older than the cutoff with their rows and journal, and only those', async ({
    assert,
  }) => {
    const old = await Promise.all([
      runWith('completed', 40),
      runWith('failed', 31),
      runWith('cancelled', 45),
    ])
    const parent = await runWith('completed', 50)
    const child = await runWith('completed', 40, parent.id)
    const busyParent = await runWith('completed', 50)
    const runningChild = await runWith('running', null, busyParent.id)
    const kept = await Promise.all([
      runWith('completed', 2),
      runWith('waiting', null),
      runWith('running', null),
      // never deleted while unfinished, whatever its finished_at says (a retried run)
      runWith('queued', 40),
    ])
    const oldOutside = await outsideRow('answered', 40)
    const recentOutside = await outsideRow('expired', 1)
    const pendingOutside = await outsideRow('pending', null)

    const before = DateTime.now().minus({ days: 30 })
    const dry = await pruneFinished({ before, dryRun: true })
    assert.deepEqual(dry, { runs: 6, rows: 12, journal: 18, outsideRows: 1 })
    const untouched = await left()
    assert.equal(untouched.runs.size, 11, 'a dry run deletes nothing')

    const counts = await pruneFinished({ before, batchSize: 2 })
    assert.deepEqual(counts, { runs: 5, rows: 10, journal: 15, outsideRows: 1 })

    const after = await left()
    for (const run of [...old, parent, child]) {
      assert.isFalse(after.runs.has(run.id))
      assert.equal(after.rowsOf(run.id), 0)
      assert.equal(after.journalOf(run.id), 0)
    }
    for (const run of [...kept, busyParent, runningChild]) {
      assert.isTrue(after.runs.has(run.id), `run ${run.status} kept`)
      assert.equal(after.rowsOf(run.id), 2)
      assert.equal(after.journalOf(run.id), 3)
    }
    assert.isFalse(after.rows.has(oldOutside.id))
    assert.isTrue(after.rows.has(recentOutside.id))
    assert.isTrue(after.rows.has(pendingOutside.id))

    assert.deepEqual(await pruneFinished({ before }), {
      runs: 0,
      rows: 0,
      journal: 0,
      outsideRows: 0,
    })
  })

  test('a run with an effect still to deliver stays until it is delivered; then it goes with its effects', async ({
    assert,
  }) => {
    const before = DateTime.now().minus({ days: 30 })
    const effectOf = async (run: AgentRun, status: EffectStatus) => {
      const [row] = await ToolCall.query().where('run_id', run.id)
      return AgentEffect.create({
        id: crypto.randomUUID(),
        runId: run.id,
        rowId: row.id,
        position: 0,
        toolName: 'refund',
        name: 'notify',
        payload: { orderId: 1 },
        idempotencyKey: crypto.randomUUID(),
        status,
        attempts: 1,
        availableAt: DateTime.now(),
        createdAt: DateTime.now(),
        updatedAt: DateTime.now(),
      })
    }
    const undelivered = await runWith('completed', 60)
    const waiting = await effectOf(undelivered, 'pending')
    const delivered = await runWith('completed', 60)
    await effectOf(delivered, 'done')
    await effectOf(await runWith('failed', 60), 'failed')

    assert.deepEqual(await pruneFinished({ before, dryRun: true }), {
      runs: 2,
      rows: 4,
      journal: 6,
      outsideRows: 0,
    })
    assert.deepEqual(await pruneFinished({ before }), {
      runs: 2,
      rows: 4,
      journal: 6,
      outsideRows: 0,
    })
    const effects = await AgentEffect.query()
    assert.deepEqual(
      effects.map((effect) => effect.id),
      [waiting.id]
    )
    const kept = await left()
    assert.isTrue(kept.runs.has(undelivered.id))

    // Delivered, it goes at the next prune
    await AgentEffect.query().where('id', waiting.id).update({ status: 'done' })
    const next = await pruneFinished({ before })
    assert.equal(next.runs, 1)
    assert.lengthOf(await AgentEffect.query(), 0)
  })

  test('ages are whole days, hours or minutes', ({ assert }) => {
    assert.equal(parseAge('30d'), 30 * 24 * 3600_000)
    assert.equal(parseAge('12h'), 12 * 3600_000)
    assert.equal(parseAge('90m'), 90 * 60_000)
    for (const bad of ['', '30', 'd', '0d', '-1d', '1.5h', '30 days', '2w', 'soon']) {
      assert.isNull(parseAge(bad), bad)
    }
  })
})
