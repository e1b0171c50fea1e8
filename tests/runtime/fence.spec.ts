/*
 * The lease's fence (docs/design.md §8.2, §9): a driver that lost its lease
 * while a tool ran (another process took the run after this one stalled
 * past its lease) writes nothing more. Its checkpoint is refused, so the
 * model's response it got is not journaled a second time; its late action
 * result does not overwrite the `interrupted` the next driver wrote; and its
 * drive returns 'busy', or the run's final status when the other driver
 * finished it. Two runtimes in this process play the two drivers, with
 * distinct lease owners; the stall is a lease set to have lapsed.
 */

import { test } from '@japa/runner'
import { DateTime, Settings } from 'luxon'
import vine from '@vinejs/vine'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  ask,
  call,
  createAgents,
  DB_QUESTION,
  rowsOf,
  say,
  scriptedModel,
  toolResultOf,
} from '../helpers/runtime.ts'
import type { ScriptStep } from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool, type ToolDefinition } from '../../src/runtime/define_tool.ts'
import type { RunExecutor } from '../../src/runtime/executor.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { Lease } from '../../src/runtime/lease.ts'

/** Schedules nothing: each test drives the runs itself */
const noExecutor = (): RunExecutor => ({ resume() {}, idle: async () => {} })

/**
 * Two runtimes around one agent (one model script, one set of tools), as
 * two processes would have: `first` and `second` own distinct leases.
 */
function twoDrivers(steps: ScriptStep[], tools: ToolDefinition[]) {
  const model = scriptedModel(steps)
  const agent = defineAgent({ name: 'fenced', model, instructions: 'Work.', tools })
  const runtime = (owner: string) => createAgents({ agents: [agent], owner, executor: noExecutor })
  return { model, first: runtime('driver-first'), second: runtime('driver-second') }
}

/**
 * What a stall does to the lease: it lapses (the heartbeat did not run), so
 * another driver may take it.
 */
async function lapseLease(runId: string) {
  await AgentRun.query()
    .where('id', runId)
    .update(
      preparedColumns(new AgentRun(), { leaseExpiresAt: DateTime.now().minus({ minutes: 1 }) })
    )
}

/** A promise and its resolve, to hand control between the two drivers */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

/**
 * The run's journal keys, after checking its sequences run 1..n with no
 * key twice.
 */
async function journalOf(assert: any, runId: string) {
  const entries = await JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
  const keys = entries.map((entry) => entry.key)
  assert.deepEqual(
    entries.map((entry) => entry.sequence),
    keys.map((_key, at) => at + 1),
    'journal sequences are contiguous'
  )
  assert.equal(new Set(keys).size, keys.length, 'no journal key twice')
  return keys
}

/**
 * A read tool that counts its executions and runs `first` inside the first.
 */
function probeTool(first: (runId: string) => Promise<void>) {
  let runs = 0
  const tool = defineTool({
    name: 'probe',
    description: 'Probe the service',
    kind: 'read',
    input: vine.object({}),
    handle: async (_input, context) => {
      if (++runs === 1) await first(context.runId)
      return 'probed'
    },
  })
  return { tool, runs: () => runs }
}

test.group(`Runtime lease fence | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('a driver whose lease was taken while its reads ran commits nothing of the step and gets busy', async ({
    assert,
  }) => {
    const probe = probeTool(async (runId) => {
      // Another driver took the run while this read ran
      await AgentRun.query()
        .where('id', runId)
        .update(
          preparedColumns(new AgentRun(), {
            leaseOwner: 'driver-elsewhere',
            leaseExpiresAt: DateTime.now().plus({ minutes: 1 }),
          })
        )
    })
    const { model, first, second } = twoDrivers(
      [
        [call('p1', 'probe', {}), call('p2', 'probe', {})],
        [call('p1', 'probe', {}), call('p2', 'probe', {})],
        [say('All probed.')],
      ],
      [probe.tool]
    )
    const run = await first.start('fenced', { input: 'probe', owner: 'user:1' })

    assert.equal(await first.driver.drive(run.id), 'busy')
    await run.refresh()
    assert.equal(run.status, 'running')
    assert.equal(run.leaseOwner, 'driver-elsewhere', 'the refused driver released nothing')
    // The input goes with the first step's checkpoint: nothing was journaled
    assert.deepEqual(await journalOf(assert, run.id), [], 'the step was not journaled')
    assert.equal(run.journalLength, 0)
    assert.lengthOf(await rowsOf(run.id), 0, 'nor were its reads recorded')
    assert.equal(probe.runs(), 2)
    assert.lengthOf(model.doGenerateCalls, 1)

    // The other driver's lease lapses in turn: the next one asks the model for that step again
    await lapseLease(run.id)
    assert.equal(await second.driver.drive(run.id), 'completed')
    assert.lengthOf(model.doGenerateCalls, 3)
    assert.equal(probe.runs(), 4, 'its reads ran again: reads have no effect')
    assert.deepEqual(await journalOf(assert, run.id), [
      'input',
      'step:1:response',
      'step:1:tool:p1',
      'step:1:tool:p2',
      'step:2:response',
    ])
    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.sequence, row.toolCallId, row.execution]),
      [
        [1, 'p1', 'succeeded'],
        [2, 'p2', 'succeeded'],
      ]
    )
  })

  /*
   * The audit of reads that ran before a refused checkpoint is written for
   * a run cancelled under its driver, never over another driver's journal:
   * that write too requires this driver to own the lease.
   */
  test('a driver that stalled while another finished the run writes nothing of its step', async ({
    assert,
  }) => {
    let secondStatus: string | undefined
    const drivers: { second?: Agents } = {}
    const probe = probeTool(async (runId) => {
      // Stalled past its lease: another driver takes the run and finishes it
      await lapseLease(runId)
      secondStatus = await drivers.second!.driver.drive(runId)
    })
    const { model, first, second } = twoDrivers(
      [[call('p1', 'probe', {})], [call('p1', 'probe', {})], [say('Probed.')]],
      [probe.tool]
    )
    drivers.second = second
    const run = await first.start('fenced', { input: 'probe', owner: 'user:1' })

    assert.equal(await first.driver.drive(run.id), 'completed', "the run's final status")
    assert.equal(secondStatus, 'completed')
    assert.equal(probe.runs(), 2)
    assert.lengthOf(model.doGenerateCalls, 3)
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual((run.result as { text: string }).text, 'Probed.')
    assert.deepEqual(await journalOf(assert, run.id), [
      'input',
      'step:1:response',
      'step:1:tool:p1',
      'step:2:response',
    ])
    assert.equal(run.journalLength, 4)
    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.sequence, row.toolCallId, row.execution]),
      [[1, 'p1', 'succeeded']]
    )
  })

  test('an action result written after another driver marked the call interrupted leaves it interrupted', async ({
    assert,
  }) => {
    const stalled = gate()
    const interrupted = gate()
    const firstDone = gate()
    let launches = 0
    const launch = defineTool({
      name: 'launch',
      description: 'Launch the rocket',
      kind: 'action',
      needsApproval: false,
      input: vine.object({}),
      // Stalls past its lease, and finishes only once the next driver marked the call interrupted
      handle: async (_input, context) => {
        launches++
        await lapseLease(context.runId)
        stalled.open()
        await interrupted.opened
        return 'launched'
      },
    })
    const { model, first, second } = twoDrivers(
      [
        [call('l1', 'launch', {})],
        // The second driver's call: by now it wrote `interrupted` and its result
        async (options) => {
          interrupted.open()
          await firstDone.opened
          return [say(`Told: ${toolResultOf(options, 'l1').value}`)]
        },
      ],
      [launch]
    )
    const run = await first.start('fenced', { input: 'launch', owner: 'user:1' })

    const firstDrive = first.driver.drive(run.id)
    await stalled.opened
    const secondDrive = second.driver.drive(run.id)
    const firstStatus = await firstDrive
    const [row] = await rowsOf(run.id)
    await run.refresh()
    firstDone.open()

    // The late result did not land, and the stalled driver stopped at its next checkpoint
    assert.equal(firstStatus, 'busy')
    assert.equal(row.execution, 'interrupted')
    assert.isNull(row.result)
    assert.equal(run.leaseOwner, 'driver-second', 'the stalled driver released nothing')
    // The second driver's result of the call goes with its next response (docs/design.md §8.2)
    assert.deepEqual(await journalOf(assert, run.id), ['input', 'step:1:response'])

    assert.equal(await secondDrive, 'completed')
    await Promise.all([run.refresh(), row.refresh()])
    assert.equal(row.execution, 'interrupted')
    assert.isNull(row.result)
    assert.equal(launches, 1)
    assert.lengthOf(model.doGenerateCalls, 2)
    assert.include((run.result as { text: string }).text, 'Told: The "launch" call was interrupted')
    assert.deepEqual(await journalOf(assert, run.id), [
      'input',
      'step:1:response',
      'step:1:tool:l1',
      'step:2:response',
    ])
    assert.isNull(run.leaseOwner)
  })

  /*
   * MySQL returns nothing from an update, so a driver there reads the run
   * first and takes the lease while it reads the journal (RunMemory.take):
   * the lease must be refused on a run another driver moved on meanwhile,
   * or the driver would ask the model again for a step already journaled.
   */
  test('a lease asked for on a run as it was read is refused once another driver journaled more', async ({
    assert,
  }) => {
    const { first, second } = twoDrivers([[ask('q1', DB_QUESTION)], [say('Done.')]], [])
    const run = await first.start('fenced', { input: 'ask', owner: 'user:1' })
    const read = await AgentRun.findOrFail(run.id)
    assert.equal(await second.driver.drive(run.id), 'waiting')

    const lease = new Lease({ owner: 'driver-third' })
    assert.isFalse(await lease.acquire(run.id, read), 'the run was journaled since it was read')
    await run.refresh()
    assert.isNull(run.leaseOwner, 'the refused lease wrote nothing')
    assert.isAbove(run.journalLength, read.journalLength)

    // Read as it is now, it still waits on its row: nothing to drive
    const current = await AgentRun.findOrFail(run.id)
    assert.isFalse(await lease.acquire(run.id, current), 'the run waits on a pending row')
    // Its row settled (a settle whose resume has not come yet), the lease is taken
    await ToolCall.query().where('run_id', run.id).update({ status: 'answered' })
    const taken = await lease.acquire(run.id, current)
    assert.isNotFalse(taken)
    const held = taken ? taken.run : null
    assert.equal(held?.leaseOwner, 'driver-third')
    assert.equal(held?.status, 'running')
    assert.equal(held?.journalLength, current.journalLength)
    await run.refresh()
    assert.equal(run.leaseOwner, 'driver-third')
    assert.equal(run.status, 'running')
  })

  /*
   * The lease's two columns are indexed, so a checkpoint moves them only
   * once a third of the lease has passed since the driver wrote it, as the
   * heartbeat would (Lease.extension). The probe marks `updated_at` after
   * the take; a checkpoint that extended the lease would overwrite the mark.
   * Luxon's clock is moved on, rather than waited for.
   */
  test('a checkpoint extends the lease once a third of it has passed, not at every step', async ({
    assert,
  }) => {
    const ttl = 3_000
    const marked = DateTime.fromISO('2001-02-03T04:05:06Z')
    const seen: { updatedAt: DateTime; leaseExpiresAt: DateTime | null }[] = []
    const probe = defineTool({
      name: 'probe',
      description: 'Probe the run row',
      kind: 'read',
      input: vine.object({}),
      handle: async (_input, context) => {
        const row = await AgentRun.findOrFail(context.runId)
        seen.push({ updatedAt: row.updatedAt, leaseExpiresAt: row.leaseExpiresAt })
        if (seen.length === 1) {
          await AgentRun.query()
            .where('id', context.runId)
            .update(preparedColumns(new AgentRun(), { updatedAt: marked }))
        }
        // More than a third of the lease passes before the second step's checkpoint
        if (seen.length === 2) Settings.now = () => Date.now() + ttl / 3 + 200
        return 'probed'
      },
    })
    const agent = defineAgent({
      name: 'leased',
      model: scriptedModel([
        [call('p1', 'probe', {})],
        [call('p2', 'probe', {})],
        [call('p3', 'probe', {})],
        [say('Done.')],
      ]),
      instructions: 'Probe.',
      tools: [probe],
    })
    const agents = createAgents({
      agents: [agent],
      owner: 'driver-leased',
      executor: noExecutor,
      leaseTtl: ttl,
    })
    const run = await agents.start('leased', { input: 'probe', owner: null })
    const clock = Settings.now
    try {
      assert.equal(await agents.driver.drive(run.id), 'completed')
    } finally {
      Settings.now = clock
    }

    assert.lengthOf(seen, 3)
    assert.equal(
      seen[1].updatedAt.toMillis(),
      marked.toMillis(),
      'the first checkpoint left the lease as taken'
    )
    const extended = seen[2]
    assert.isAbove(extended.updatedAt.toMillis(), marked.toMillis(), 'the second extended it')
    // Written together, from the same now: a second apart at most where the column keeps seconds
    assert.closeTo(extended.leaseExpiresAt!.diff(extended.updatedAt).toMillis(), ttl, 1_000)
    assert.isAbove(extended.leaseExpiresAt!.toMillis(), seen[0].leaseExpiresAt!.toMillis())
  })
})
