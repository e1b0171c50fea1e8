/*
 * Runs heal themselves: a drive that fails on a passing database error is
 * tried again with backoff and reported to the app's logger, one that
 * fails otherwise is reported at once and noted on the run (`last_error`,
 * shown by the inbox's API until the run moves on), and a web process
 * picks up stranded runs on an interval, with no restart.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName, warnLogger } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { ask, DB_QUESTION, rowsOf, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { InlineExecutor } from '../../src/runtime/executor.ts'
import type { RunDriver } from '../../src/runtime/run_driver.ts'
import { errorText, isTransient } from '../../src/runtime/transient.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { viewDigest } from '../../src/governance/view.ts'

function recorder() {
  const lines: { level: string; bindings: any; message: string }[] = []
  return {
    lines,
    warn: (bindings: object, message: string) =>
      void lines.push({ level: 'warn', bindings, message }),
    error: (bindings: object, message: string) =>
      void lines.push({ level: 'error', bindings, message }),
  }
}

/** A driver whose drive throws the given errors in turn, then completes */
function failingDriver(errors: Error[]) {
  let calls = 0
  const driver = {
    async drive() {
      const error = errors[calls++]
      if (error) throw error
      return 'completed' as const
    },
  }
  return { driver: driver as unknown as RunDriver, calls: () => calls }
}

const coded = (code: string, message = code) => Object.assign(new Error(message), { code })

test.group('Runtime | drive errors', () => {
  test('passing database errors are recognized; others are not', ({ assert }) => {
    for (const error of [
      coded('SQLITE_BUSY', 'database is locked'),
      coded('ECONNRESET'),
      coded('40P01', 'deadlock detected'),
      coded('40001', 'could not serialize access'),
      coded('08006', 'connection failure'),
      coded('ER_LOCK_DEADLOCK'),
      coded('PROTOCOL_CONNECTION_LOST'),
      new Error('Connection terminated unexpectedly'),
      new Error('Knex: Timeout acquiring a connection. The pool is probably full.'),
    ]) {
      assert.isTrue(isTransient(error), error.message)
    }
    for (const error of [
      new Error('boom'),
      coded('23505', 'duplicate key value'),
      coded('ER_DUP_ENTRY'),
      coded('SQLITE_CONSTRAINT_UNIQUE'),
      null,
      'text',
    ]) {
      assert.isFalse(isTransient(error), String(error))
    }
  })

  test('a drive failing on a passing error is retried with backoff, and warned about', async ({
    assert,
  }) => {
    const logger = recorder()
    const { driver, calls } = failingDriver([coded('SQLITE_BUSY'), coded('ECONNRESET')])
    const executor = new InlineExecutor(driver, { logger, backoff: 5 })
    executor.resume('run-1')
    await executor.idle()
    assert.equal(calls(), 3)
    assert.deepEqual(
      logger.lines.map((line) => [line.level, line.bindings.runId, line.bindings.attempt]),
      [
        ['warn', 'run-1', 1],
        ['warn', 'run-1', 2],
      ]
    )
  })

  test('a drive that keeps failing, or fails otherwise, is logged as an error', async ({
    assert,
  }) => {
    const logger = recorder()
    const busy = failingDriver(Array.from({ length: 10 }, () => coded('SQLITE_BUSY')))
    const executor = new InlineExecutor(busy.driver, { logger, backoff: 1, attempts: 3 })
    executor.resume('run-busy')
    await executor.idle()
    assert.equal(busy.calls(), 3)

    const broken = failingDriver([new Error('a bug')])
    const other = new InlineExecutor(broken.driver, { logger, backoff: 1 })
    other.resume('run-bug')
    await other.idle()
    assert.equal(broken.calls(), 1)

    const errors = logger.lines.filter((line) => line.level === 'error')
    assert.deepEqual(
      errors.map((line) => [
        line.bindings.runId,
        line.bindings.attempts,
        line.bindings.err.message,
      ]),
      [
        ['run-busy', 3, 'SQLITE_BUSY'],
        ['run-bug', 1, 'a bug'],
      ]
    )
  })
})

test.group(`Runtime | periodic recovery | ${dbName()}`, (group) => {
  let agents: Awaited<ReturnType<typeof boot>>['agents']
  const model = scriptedModel(
    Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0 ? [ask('c1', DB_QUESTION)] : [say('recovered')]
    )
  )

  async function boot() {
    const testApp = await createTestApp({
      environment: 'web',
      agents: defineConfig({
        agents: [defineAgent({ name: 'asker', model, instructions: 'Ask.' })],
        recoverInterval: 150,
        sweepInterval: 0,
      }),
    })
    return { testApp, agents: await testApp.app.container.make('agents.runtime') }
  }

  group.setup(async () => {
    const booted = await boot()
    agents = booted.agents
    return () => booted.testApp.terminate()
  })

  async function until(check: () => Promise<boolean>, ms = 5000) {
    const end = Date.now() + ms
    while (Date.now() < end) {
      if (await check()) return true
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return false
  }

  test('a run whose row was settled but whose resume was lost finishes, no restart', async ({
    assert,
  }) => {
    const run = await agents.start('asker', { input: 'go', owner: 'user:1' })
    await agents.idle()
    const [row] = await ToolCall.query().where('run_id', run.id).where('status', 'pending')
    // Settled by an inbox that resumes nothing: the process that settled died before resuming
    const outcome = await new Inbox().settle(row.id, { skip: true }, { by: 'user:1', via: 'api' })
    assert.equal(outcome.status, 'answered')

    const finished = await until(async () => {
      await run.refresh()
      return run.status === 'completed'
    })
    assert.isTrue(finished, `the run stayed ${run.status}`)
  })

  test('a run left running by a dead driver is picked up once its lease lapses', async ({
    assert,
  }) => {
    const run = await agents.start('asker', { input: 'go', owner: 'user:1' })
    await agents.idle()
    await ToolCall.query().where('run_id', run.id).delete()
    // A driver of another process took it and died mid-drive
    await AgentRun.query()
      .where('id', run.id)
      .update({
        status: 'running',
        lease_owner: 'dead-host:1:deadbeef',
        ...preparedColumns(run, { leaseExpiresAt: DateTime.now().minus({ seconds: 1 }) }),
      })
    const moved = await until(async () => {
      await run.refresh()
      return run.status !== 'running'
    })
    assert.isTrue(moved, 'the stranded run was driven again')
    assert.notEqual(run.leaseOwner, 'dead-host:1:deadbeef')
  })

  test('a run this process still leases but no longer drives is picked up before the lease lapses', async ({
    assert,
  }) => {
    const run = await agents.start('asker', { input: 'go', owner: 'user:1' })
    await agents.idle()
    await ToolCall.query().where('run_id', run.id).delete()
    // A drive of this process failed past its retries, and its release was lost with the connection
    await AgentRun.query()
      .where('id', run.id)
      .update({
        status: 'running',
        lease_owner: agents.driver.owner,
        ...preparedColumns(run, { leaseExpiresAt: DateTime.now().plus({ minutes: 5 }) }),
      })
    const moved = await until(async () => {
      await run.refresh()
      return run.status !== 'running'
    })
    assert.isTrue(moved, 'the run was driven again within its lease')
    assert.isNull(run.leaseOwner)
  })
})

test.group(`Runtime | a drive error on the run | ${dbName()}`, (group) => {
  let failing = false
  /** What the app's logger wrote, as JSON lines */
  const logged: string[] = []
  let httpApp: Awaited<ReturnType<typeof createHttpApp>>

  group.setup(async () => {
    httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'flaky',
            model: scriptedModel([[ask('c1', DB_QUESTION)], [say('done')]]),
            instructions: () => {
              if (failing) throw new Error('the instructions are not there')
              return 'Ask.'
            },
          }),
        ],
        recoverOnStart: false,
        recoverInterval: 0,
        sweepInterval: 0,
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
      config: warnLogger('heal', { write: (line: string) => void logged.push(line) }),
    })
    return () => httpApp.terminate()
  })

  test('errors are noted as one line: the code where the message does not say it, clamped', ({
    assert,
  }) => {
    assert.equal(errorText(coded('ECONNRESET', 'read ECONNRESET')), 'read ECONNRESET')
    assert.equal(
      errorText(coded('57P01', 'terminating connection')),
      '57P01: terminating connection'
    )
    assert.equal(errorText('text'), 'text')
    assert.lengthOf(errorText(new Error('x'.repeat(5000))), 1000)
  })

  test('a drive that fails is logged and noted on the run, shown by the API until the run moves on', async ({
    assert,
    client,
  }) => {
    const agents = await httpApp.app.container.make('agents.runtime')
    const run = await agents.start('flaky', { input: 'go', owner: 'user:1' })
    await agents.idle()
    const [row] = await rowsOf(run.id)
    const headers = { 'x-person': 'user:1', 'accept': 'application/json' }

    failing = true
    const reply = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(headers)
      .json({ answers: { db: ['mysql'] }, digest: viewDigest(row) })
    reply.assertStatus(200)
    await agents.idle()

    const errors = logged.map((line) => JSON.parse(line)).filter((line) => line.level >= 50)
    assert.deepEqual(
      errors.map((line) => [line.runId, line.err.message]),
      [[run.id, 'the instructions are not there']]
    )
    await run.refresh()
    assert.equal(run.status, 'running')
    // Kept, so this process (not another) tries again
    assert.equal(run.leaseOwner, agents.driver.owner)
    assert.equal(run.lastError, 'the instructions are not there')
    const shown = await client.get(`/inbox/rows/${row.id}`).headers(headers)
    shown.assertStatus(200)
    assert.equal(shown.body().run.lastError, 'the instructions are not there')
    assert.equal(shown.body().run.lastErrorAt, run.lastErrorAt!.toISO())

    // The periodic recovery resumes it; its next checkpoint clears the note
    failing = false
    assert.equal(await agents.recover(), 1)
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.isNull(run.lastError)
    assert.isNull(run.lastErrorAt)
    const after = await client.get(`/inbox/rows/${row.id}`).headers(headers)
    assert.isNull(after.body().run.lastError)
  })
})
