/*
 * Runs heal themselves: a drive that fails on a passing database error is
 * tried again with backoff and reported to the app's logger, one that
 * fails otherwise is reported at once, and a web process picks up stranded
 * runs on an interval, with no restart.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { ask, DB_QUESTION, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { InlineExecutor } from '../../src/runtime/executor.ts'
import type { RunDriver } from '../../src/runtime/run_driver.ts'
import { isTransient } from '../../src/runtime/transient.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'

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
})
