/*
 * The expiry sweep in set-based batches (docs/design.md §7.3,
 * src/inbox/expiry.ts): every due row settled exactly once however many
 * sweepers run at once, rows a person answered left alone, and the
 * `cancel` policy's row and run written in one transaction, so a sweep
 * that dies between the two leaves neither.
 */

import { setTimeout as sleep } from 'node:timers/promises'
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { seedExpiring, startSweepers, variantSet } from '../helpers/expiry.ts'
import { eventRecorder } from '../helpers/runtime.ts'
import { statementsOf } from '../helpers/statements.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { Agents } from '../../src/runtime/agents.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import { batchTransaction } from '../../src/persistence/batch_transaction.ts'
import { E_EXPIRED } from '../../src/errors.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'

async function statuses(ids: string[]) {
  const rows = await ToolCall.query().whereIn('id', ids)
  return new Map(rows.map((row) => [row.id, row]))
}

/**
 * The distinct statuses of some rows, or of the runs of some seeded rows.
 */
async function rowStatuses(seeded: { id: string }[]) {
  const rows = await ToolCall.query().whereIn(
    'id',
    seeded.map((seed) => seed.id)
  )
  return [...new Set(rows.map((row) => row.status))]
}

async function runStatuses(seeded: { runId: string }[]) {
  const runs = await AgentRun.query().whereIn(
    'id',
    seeded.map((seed) => seed.runId)
  )
  return [...new Set(runs.map((run) => run.status))]
}

async function statusOf(id: string) {
  const row = await ToolCall.findOrFail(id)
  return row.status
}

test.group(`Expiry sweep | ${dbName()}`, (group) => {
  // Hundreds of rows seeded and swept: Japa's 2 s default was met by a loaded machine, not a hang
  group.each.timeout(30_000)
  let testApp: Awaited<ReturnType<typeof createTestApp>>
  group.setup(async () => {
    testApp = await createTestApp()
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    await JournalRow.query().delete()
    await ToolCall.query().delete()
    await AgentRun.query().delete()
  })

  test('two sweepers at once settle every due row exactly once, by its policy', async ({
    assert,
  }) => {
    const seeded = await seedExpiring(600, {
      policies: ['defaults', 'reject', 'cancel'],
      variants: 7,
    })
    const later = await seedExpiring(20, { expiresAt: DateTime.now().plus({ hours: 1 }) })
    const events = [eventRecorder(), eventRecorder()]
    const [first, second] = events.map((sink) => new Agents({ agents: [], events: sink }))

    const [a, b] = await Promise.all([
      first.sweep({ resume: false, batchSize: 50 }),
      second.sweep({ resume: false, batchSize: 50 }),
    ])
    assert.equal(a + b, seeded.length, 'no row settled twice, none left')
    const settledEvents = events
      .flatMap((sink) => sink.names)
      .filter((name) => name === 'agents:row:settled')
    assert.lengthOf(settledEvents, seeded.length)
    const cancelledEvents = events
      .flatMap((sink) => sink.names)
      .filter((name) => name === 'agents:run:cancelled')
    assert.lengthOf(cancelledEvents, seeded.length / 3)

    const rows = await statuses(seeded.map((row) => row.id))
    const seededRuns = await AgentRun.query().whereIn(
      'id',
      seeded.map((row) => row.runId)
    )
    const runs = new Map(seededRuns.map((run) => [run.id, run]))
    seeded.forEach((seed, index) => {
      const row = rows.get(seed.id)!
      assert.equal(row.status, 'expired')
      assert.equal(row.answeredVia, 'expiry')
      const outcome = row.outcome as QuestionOutcome
      assert.isTrue(outcome.expired)
      // defaults keeps the pre-picked answer; reject and cancel skip the set
      assert.equal(outcome.skipped, seed.policy !== 'defaults', `row ${index}`)
      assert.equal(runs.get(seed.runId)!.status, seed.policy === 'cancel' ? 'cancelled' : 'waiting')
    })
    assert.deepEqual(await rowStatuses(later), ['pending'])
  })

  test('a sweep with nothing due reads two indexes, notes its heartbeat and opens no transaction', async ({
    assert,
  }) => {
    // Pending, not due yet: an hour to go, and a ladder step due tomorrow
    const [later] = await seedExpiring(1, { expiresAt: DateTime.now().plus({ hours: 1 }) })
    const tomorrow = DateTime.now().plus({ days: 1 })
    await ToolCall.query()
      .where('id', later.id)
      .update(
        preparedColumns(new ToolCall(), {
          ladder: [{ at: tomorrow.toISO()!, do: 'remind' }],
          ladderDueAt: tomorrow,
        })
      )
    const agents = new Agents({ agents: [] })

    const idle = await statementsOf(testApp.db, () => agents.sweep({ resume: false }))
    assert.lengthOf(idle, 3, idle.map((sent) => sent.sql).join('\n'))
    const [first, second, heartbeat] = idle
    for (const sent of [first, second]) assert.match(sent.sql, /^select /)
    // One statement for the health check's heartbeat (src/health/heartbeat.ts)
    assert.match(heartbeat.sql, /^insert into .?agent_heartbeats/)
    for (const sent of idle) assert.isUndefined(sent.__knexTxId, sent.sql)

    // Due now: the same sweep takes its batch transaction and settles the row
    const [due] = await seedExpiring(1)
    const busy = await statementsOf(testApp.db, () => agents.sweep({ resume: false }))
    assert.isTrue(busy.some((sent) => sent.__knexTxId !== undefined))
    assert.equal(await statusOf(due.id), 'expired')
    assert.equal(await statusOf(later.id), 'pending')
  })

  test('each row keeps the outcome of its own question set', async ({ assert }) => {
    const seeded = await seedExpiring(30, { variants: 30 })
    assert.equal(await new Agents({ agents: [] }).sweep({ resume: false, batchSize: 8 }), 30)
    const rows = await statuses(seeded.map((row) => row.id))
    seeded.forEach((seed, index) => {
      const outcome = rows.get(seed.id)!.outcome as QuestionOutcome
      assert.deepEqual(outcome.answers, { region: ['eu'] })
      assert.include(JSON.stringify(outcome), variantSet(index).questions[0].prompt)
    })
  })

  test('rows a person answers while sweeps run are left alone', async ({ assert }) => {
    const seeded = await seedExpiring(300, { policies: ['defaults', 'cancel'] })
    // The person's clock is before the expiry, the sweepers' after it
    const person = new Inbox({ now: () => DateTime.now().minus({ hours: 2 }) })
    const sweeper = () => new Agents({ agents: [] }).sweep({ resume: false, batchSize: 40 })
    const answers = seeded.filter((_, index) => index % 3 === 0)

    const [swept, ...replies] = await Promise.all([
      Promise.all([sweeper(), sweeper()]),
      ...answers.map((seed) =>
        person
          .settle(seed.id, { answers: { region: ['us'] } }, { by: 'user:1', via: 'web' })
          .then(() => 'won')
          .catch((error) => {
            if (error instanceof E_EXPIRED) return 'lost'
            throw error
          })
      ),
    ])
    const won = answers.filter((_, index) => replies[index] === 'won')
    assert.equal(swept[0] + swept[1] + won.length, seeded.length, 'one winner per row')

    const rows = await statuses(seeded.map((row) => row.id))
    const runs = await AgentRun.query().whereIn(
      'id',
      seeded.map((row) => row.runId)
    )
    const runStatus = new Map(runs.map((run) => [run.id, run.status]))
    for (const seed of won) {
      const row = rows.get(seed.id)!
      assert.equal(row.status, 'answered')
      assert.deepEqual((row.outcome as QuestionOutcome).answers, { region: ['us'] })
      assert.equal(runStatus.get(seed.runId), 'waiting', 'an answered row never cancels its run')
    }
    const expired = [...rows.values()].filter((row) => row.status === 'expired')
    assert.lengthOf(expired, seeded.length - won.length)
  })

  test('cancel policy: a batch that fails before commit leaves neither row nor run', async ({
    assert,
  }) => {
    const seeded = await seedExpiring(10, { policies: ['cancel'] })
    const inbox = new Agents({ agents: [] }).inbox
    const failed = await inbox
      .sweepExpired({
        onWrite: (step) => {
          if (step === 'rows') throw new Error('the process died here')
        },
      })
      .catch((error) => error)
    assert.equal(failed.message, 'the process died here')
    assert.deepEqual(await rowStatuses(seeded), ['pending'])
    assert.deepEqual(await runStatuses(seeded), ['waiting'])

    const steps: string[] = []
    const swept = await inbox.sweepExpired({ onWrite: (step) => void steps.push(step) })
    assert.lengthOf(swept, 10)
    assert.deepEqual(steps, ['rows', 'runs'], 'rows and runs written in one transaction')
    assert.deepEqual(await runStatuses(seeded), ['cancelled'])
  })

  test('cancel policy: the run is cancelled with its other pending rows, a finished run is left', async ({
    assert,
  }) => {
    const [due, finished] = await seedExpiring(2, { policies: ['cancel'] })
    const sibling = await ToolCall.create({
      runId: due.runId,
      sequence: 2,
      toolName: 'ask',
      kind: 'ask',
      status: 'pending',
      ownerId: 'user:1',
      request: variantSet(1),
    })
    await AgentRun.query().where('id', finished.runId).update({ status: 'completed' })

    assert.equal(await new Agents({ agents: [] }).sweep({ resume: false }), 2)
    await sibling.refresh()
    assert.equal(sibling.status, 'cancelled')
    const runs = await AgentRun.query().whereIn('id', [due.runId, finished.runId])
    const byId = new Map(runs.map((run) => [run.id, run]))
    assert.equal(byId.get(due.runId)!.status, 'cancelled')
    assert.isNotNull(byId.get(due.runId)!.finishedAt)
    assert.equal(byId.get(finished.runId)!.status, 'completed')
    const rows = await statuses([due.id, finished.id])
    assert.equal(rows.get(due.id)!.status, 'expired')
    assert.equal(rows.get(finished.id)!.status, 'expired')
  })

  test('cancel policy: a sweeper killed inside its transaction leaves neither row nor run', async ({
    assert,
  }) => {
    const seeded = await seedExpiring(5, { policies: ['cancel'] })
    const killed = await startSweepers(1, { CRASH_AT: 'rows' })
    const {
      exits: [exit],
    } = await killed.go()
    assert.equal(exit.signal, 'SIGKILL', exit.output)
    assert.deepEqual(await rowStatuses(seeded), ['pending'])
    assert.deepEqual(await runStatuses(seeded), ['waiting'])

    /*
     * PostgreSQL holds the dead sweeper's row locks until its backend sees
     * the closed socket, a moment after the kill; SKIP LOCKED passes the
     * rows over until then, and the next sweep takes them.
     */
    const sweeper = new Agents({ agents: [] })
    let swept = 0
    for (const started = Date.now(); swept < 5 && Date.now() - started < 10_000;) {
      swept += await sweeper.sweep({ resume: false })
      if (swept < 5) await sleep(100)
    }
    assert.equal(swept, 5)
    assert.deepEqual(await runStatuses(seeded), ['cancelled'])
  }).timeout(60_000)

  test('two sweeper processes share the rows', async ({ assert }) => {
    const seeded = await seedExpiring(400, { policies: ['defaults', 'cancel'], variants: 3 })
    const sweepers = await startSweepers(2, { SWEEP_BATCH: '50' })
    const { exits } = await sweepers.go()
    for (const exit of exits) assert.equal(exit.code, 0, exit.output)
    const total = exits.reduce((sum, exit) => sum + exit.result!.swept, 0)
    assert.equal(total, seeded.length, 'every row settled once, by one of them')
    assert.deepEqual(await rowStatuses(seeded), ['expired'])
    const cancelling = seeded.filter((seed) => seed.policy === 'cancel')
    assert.deepEqual(await runStatuses(cancelling), ['cancelled'])
    assert.deepEqual(await runStatuses(seeded.filter((seed) => seed.policy !== 'cancel')), [
      'waiting',
    ])
  }).timeout(60_000)

  test('a batch runs in READ COMMITTED on the databases that lock rows', async ({ assert }) => {
    // REPEATABLE READ (MySQL's default) would take gap locks the other sweeper's writes deadlock on
    const level = await batchTransaction(ToolCall, async (trx) => {
      if (dbName() === 'pg') {
        const shown = await trx.rawQuery('show transaction_isolation')
        return shown.rows[0].transaction_isolation
      }
      await trx.from(ToolCall.table).select('id').limit(1).forUpdate()
      const [rows] = await trx.rawQuery(
        'select trx_isolation_level as level from information_schema.innodb_trx where trx_mysql_thread_id = connection_id()'
      )
      return String(rows[0].level).toLowerCase()
    })
    assert.equal(level, 'read committed')
  }).skip(dbName() === 'sqlite', 'SQLite has no isolation levels: a batch holds the write lock')

  test('agents.cancel still cancels a run and its pending rows, and leaves a finished one', async ({
    assert,
  }) => {
    const [open, done] = await seedExpiring(2, { expiresAt: DateTime.now().plus({ hours: 1 }) })
    await AgentRun.query().where('id', done.runId).update({ status: 'failed' })
    const events = eventRecorder()
    const agents = new Agents({ agents: [], events })

    const cancelled = await agents.cancel(open.runId)
    assert.equal(cancelled.status, 'cancelled')
    assert.isNotNull(cancelled.finishedAt)
    assert.equal(await statusOf(open.id), 'cancelled')
    const left = await agents.cancel(done.runId)
    assert.equal(left.status, 'failed')
    assert.equal(await statusOf(done.id), 'pending')
    assert.deepEqual(events.names, ['agents:run:cancelled'])
  })
})
