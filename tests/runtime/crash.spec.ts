/*
 * Crash safety with real processes (docs/design.md §8.2, §9). Worker processes
 * (tests/fixtures/agent_worker.ts) drive runs of a scripted agent on this
 * test's database and SIGKILL themselves at named points: after a model
 * response is saved, right after an approval commits, during an action,
 * before it, after its result is saved, and around the step whose read tools
 * commit with the model's response in one transaction (inside that
 * transaction, during a read, right after the commit). A new worker then
 * picks the run up (once the dead worker's lease lapses) and the tests
 * check the ground truth: the files the model, the reads and the action
 * append to, across processes, and the rows. The last test starts two
 * workers at once on the same run and shows the lease lets exactly one of
 * them drive each step.
 */

import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { dbName } from '../helpers/database.ts'
import {
  lines,
  runWorker as runCrashWorker,
  startWorker as startCrashWorker,
  useAppWithFiles,
} from '../helpers/crash_workers.ts'
import { createAgents } from '../helpers/runtime.ts'
import { AGENT_NAME, ANSWER, crashAgent } from '../fixtures/crash_agent.ts'
import { SURVEY_AGENT_NAME, surveyAgent } from '../fixtures/survey_agent.ts'
import type { AgentRun } from '../../src/persistence/models/agent_run.ts'
import type { RunExecutor } from '../../src/runtime/executor.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'

const FILES = new URL(`../../tmp/crash-${process.pid}/`, import.meta.url)

type Files = { modelLog: string; actionLog: string; readLog: string }

/**
 * The files of one test: what the model and the action append to.
 */
function filesFor(name: string): Files {
  return {
    modelLog: fileURLToPath(new URL(`${name}-model.log`, FILES)),
    actionLog: fileURLToPath(new URL(`${name}-action.log`, FILES)),
    readLog: fileURLToPath(new URL(`${name}-read.log`, FILES)),
  }
}

/** The model calls of the run started with `input`, across processes, as `<kind> <pid>` */
function modelLines(files: Files, input: string) {
  return lines(files.modelLog)
    .filter((line) => line.startsWith(`${input} `))
    .map((line) => line.slice(input.length + 1))
}

/** The kind of every model call of the run started with `input` */
function modelCalls(files: Files, input: string) {
  return modelLines(files, input).map((line) => line.split(' ')[0])
}

/** Every execution of the action for a run, across processes */
function executions(files: Files, runId: string) {
  return lines(files.actionLog).filter((line) => line.startsWith(`${runId} `))
}

/** Every execution of the surveyor's read for a run, across processes, as `<wall> <pid>` */
function reads(files: Files, runId: string) {
  return lines(files.readLog)
    .filter((line) => line.startsWith(`${runId} `))
    .map((line) => line.slice(runId.length + 1))
}

/** The env a worker needs to append to this test's files */
function logsEnv(files: Files): Record<string, string> {
  return { MODEL_LOG: files.modelLog, ACTION_LOG: files.actionLog, READ_LOG: files.readLog }
}

function startWorker(command: string, runIds: string[], files: Files, env: Record<string, string>) {
  return startCrashWorker(command, runIds, { ...logsEnv(files), ...env })
}

function runWorker(
  command: string,
  runIds: string[],
  files: Files,
  env: Record<string, string> = {}
) {
  return runCrashWorker(command, runIds, { ...logsEnv(files), ...env })
}

/** Schedules nothing: the run stays where the settle left it */
const noExecutor = (): RunExecutor => ({ resume() {}, idle: async () => {} })

/**
 * A runtime in this process around the same scripted agent.
 */
function runtime(files: Files, executor?: () => RunExecutor) {
  return createAgents({ agents: [crashAgent(files), surveyAgent(files)], executor })
}

async function rowsOf(runId: string) {
  return ToolCall.query().where('run_id', runId).orderBy('sequence', 'asc')
}

async function journalKeys(runId: string) {
  const entries = await JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
  return entries.map((entry) => entry.key)
}

/**
 * Runs the script in this process up to the action's approval: asked,
 * answered, the action called and pending.
 */
async function untilApproval(files: Files, input: string) {
  const agents = runtime(files)
  const run = await agents.start(AGENT_NAME, { input, owner: 'user:1' })
  await agents.idle()
  const [askRow] = await rowsOf(run.id)
  await agents.inbox.settle(askRow.id, ANSWER, { by: 'user:1', via: 'api' })
  await agents.idle()
  const [, actionRow] = await rowsOf(run.id)
  await Promise.all([run.refresh(), askRow.refresh()])
  if (run.status !== 'waiting' || actionRow?.status !== 'pending') {
    throw new Error(`The run should wait for approval; it is ${run.status}`)
  }
  return { input, run, askRow, actionRow }
}

const COMPLETE_KEYS = [
  'input',
  'step:1:response',
  'step:1:tool:ask-color',
  'step:2:response',
  'step:2:tool:paint-shed',
  'step:3:response',
]

/**
 * Where a worker dies around an approved action, what the rows say then,
 * and what a restart must make of it.
 */
const ACTION_POINTS = [
  {
    // The settle committed; the worker died before its resume drove anything
    crashAt: 'after-settle',
    executionAtKill: null,
    ranAtKill: 0,
    execution: 'succeeded',
    ran: 1,
    told: 'Paint result (text): The person approved the call to "paint".\npainted blue',
  },
  {
    crashAt: 'before-execute',
    executionAtKill: 'running',
    ranAtKill: 0,
    execution: 'interrupted',
    ran: 0,
    told: 'Paint result (error-text): The person approved the call to "paint".\nThe "paint" call was interrupted by a process restart while it ran. It may or may not have taken effect, and it was not run again.',
  },
  {
    crashAt: 'during-execute',
    executionAtKill: 'running',
    ranAtKill: 1,
    execution: 'interrupted',
    ran: 1,
    told: 'Paint result (error-text): The person approved the call to "paint".\nThe "paint" call was interrupted by a process restart while it ran.',
  },
  {
    crashAt: 'after-result',
    executionAtKill: 'succeeded',
    ranAtKill: 1,
    execution: 'succeeded',
    ran: 1,
    told: 'Paint result (text): The person approved the call to "paint".\npainted blue',
  },
] as const

const SURVEY_KEYS = [
  'input',
  'step:1:response',
  'step:1:tool:measure-north',
  'step:1:tool:measure-south',
  'step:2:response',
  'step:2:tool:varnish-shed',
  'step:3:response',
]

/**
 * Where a worker dies around the surveyor's first step, whose two reads
 * commit with the model's response in one transaction: what is written
 * then, and what a restart must make of it. `readsAtKill` and `reads` are
 * the walls measured, in order, across processes.
 */
const BATCH_POINTS = [
  {
    // After the first read, before the second: the step's checkpoint (and the input with it) not written
    name: 'mid-batch',
    crashAt: 'during-read',
    keysAtKill: 0,
    readsAtKill: ['north'],
    rowsAtKill: 0,
    ranAtKill: 0,
    model: ['measure', 'measure', 'varnish', 'final'],
    reads: ['north', 'north', 'south'],
  },
  {
    // Inside the step's checkpoint (the first: the input goes with it): all of it rolls back
    name: 'in-batch-commit',
    crashAt: 'before-commit:1',
    keysAtKill: 0,
    readsAtKill: ['north', 'south'],
    rowsAtKill: 0,
    ranAtKill: 0,
    model: ['measure', 'measure', 'varnish', 'final'],
    reads: ['north', 'south', 'north', 'south'],
  },
  {
    // The step committed, the next model call not made: the reads' rows hold their results
    name: 'after-batch',
    crashAt: 'after-response-saved',
    keysAtKill: 4,
    readsAtKill: ['north', 'south'],
    rowsAtKill: 2,
    ranAtKill: 0,
    model: ['measure', 'varnish', 'final'],
    reads: ['north', 'south'],
  },
  {
    // Inside the next step's checkpoint (the response calling the action): it rolls back
    name: 'in-next-commit',
    crashAt: 'before-commit:2',
    keysAtKill: 4,
    readsAtKill: ['north', 'south'],
    rowsAtKill: 2,
    ranAtKill: 0,
    model: ['measure', 'varnish', 'varnish', 'final'],
    reads: ['north', 'south'],
  },
  {
    // The action ran and its row holds the result; its tool-result checkpoint rolls back
    name: 'in-result-commit',
    crashAt: 'before-commit:3',
    keysAtKill: 5,
    readsAtKill: ['north', 'south'],
    rowsAtKill: 3,
    ranAtKill: 1,
    model: ['measure', 'varnish', 'final'],
    reads: ['north', 'south'],
  },
] as const

test.group(`Runtime crash safety | ${dbName()}`, (group) => {
  useAppWithFiles(group, FILES)

  test('killed after a model response is saved, a restart acts on it without calling the model again', async ({
    assert,
  }) => {
    const files = filesFor('response')
    const input = 'response'
    const run = await runtime(files, noExecutor).start(AGENT_NAME, { input, owner: 'user:1' })

    // Killed once the model's question is saved, before its row exists
    let exit = await runWorker('drive', [run.id], files, { CRASH_AT: 'after-response-saved' })
    assert.equal(exit.signal, 'SIGKILL')
    await run.refresh()
    assert.equal(run.status, 'running')
    assert.include(run.leaseOwner, `:${exit.pid}:`, 'the dead worker still holds the lease')
    assert.deepEqual(await journalKeys(run.id), ['input', 'step:1:response'])
    assert.lengthOf(await rowsOf(run.id), 0)

    // A new process waits for the lease to lapse, then asks: no new model call
    exit = await runWorker('drive', [run.id], files)
    assert.equal(exit.output?.status, 'waiting')
    assert.deepEqual(modelCalls(files, input), ['ask'], 'the saved response was acted on')
    const [askRow] = await rowsOf(run.id)
    assert.equal(askRow.kind, 'ask')
    assert.equal(askRow.status, 'pending')

    // Answered, then killed once the response calling the action is saved
    exit = await runWorker('settle', [run.id], files, { CRASH_AT: 'after-response-saved' })
    assert.equal(exit.signal, 'SIGKILL')
    await askRow.refresh()
    assert.equal(askRow.status, 'answered')
    assert.deepEqual((askRow.outcome as QuestionOutcome).answers, { color: ['blue'] })
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS.slice(0, 4))
    assert.lengthOf(await rowsOf(run.id), 1)

    exit = await runWorker('drive', [run.id], files)
    assert.equal(exit.output?.status, 'waiting')
    assert.deepEqual(modelCalls(files, input), ['ask', 'paint'])
    const [, actionRow] = await rowsOf(run.id)
    assert.equal(actionRow.status, 'pending')
    assert.deepEqual(actionRow.request.args, { color: 'blue' }, 'the answer reached the model')

    const agents = runtime(files)
    await agents.inbox.settle(actionRow.id, { approved: true }, { by: 'user:1', via: 'api' })
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.lengthOf(executions(files, run.id), 1)
    assert.match(executions(files, run.id)[0], / blue /)
    assert.deepEqual(modelCalls(files, input), ['ask', 'paint', 'final'])
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS)
    const text = (run.result as { text: string }).text
    assert.include(text, (askRow.outcome as QuestionOutcome).text)
    assert.include(text, 'painted blue')
  }).timeout(90_000)

  test('killed around an approved action, one restarted process recovers every run: no action runs twice, none is lost', async ({
    assert,
  }) => {
    const files = filesFor('action')
    const cases = []
    for (const point of ACTION_POINTS) cases.push(await untilApproval(files, point.crashAt))

    // One worker per point approves the action and dies there
    const kills = await Promise.all(
      cases.map(({ run }, index) =>
        runWorker('settle', [run.id], files, { CRASH_AT: ACTION_POINTS[index].crashAt })
      )
    )
    for (const [index, { run, actionRow }] of cases.entries()) {
      const point = ACTION_POINTS[index]
      assert.equal(kills[index].signal, 'SIGKILL', point.crashAt)
      await Promise.all([run.refresh(), actionRow.refresh()])
      assert.equal(actionRow.status, 'approved', point.crashAt)
      assert.equal(actionRow.execution, point.executionAtKill, point.crashAt)
      assert.lengthOf(executions(files, run.id), point.ranAtKill, point.crashAt)
      // A settled run nobody resumed waits with nothing pending; the others hold a dead lease
      assert.equal(run.status, point.crashAt === 'after-settle' ? 'waiting' : 'running')
    }

    // A restart: recover() takes each run once its dead worker's lease lapsed
    const exit = await runWorker(
      'recover',
      cases.map(({ run }) => run.id),
      files
    )
    assert.deepEqual(exit.output, {
      pid: exit.pid,
      recovered: ACTION_POINTS.length,
      statuses: ACTION_POINTS.map(() => 'completed'),
    })

    for (const [index, { input, run, askRow, actionRow }] of cases.entries()) {
      const point = ACTION_POINTS[index]
      await Promise.all([run.refresh(), actionRow.refresh(), askRow.refresh()])
      assert.equal(actionRow.execution, point.execution, point.crashAt)
      assert.lengthOf(executions(files, run.id), point.ran, `${point.crashAt}: ran at most once`)
      for (const line of executions(files, run.id)) assert.match(line, / blue /)
      assert.deepEqual(modelCalls(files, input), ['ask', 'paint', 'final'], point.crashAt)
      assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS, point.crashAt)
      // The model read the answer and what became of the action
      const text = (run.result as { text: string }).text
      assert.include(text, `Answer read: ${(askRow.outcome as QuestionOutcome).text}`)
      assert.include(text, point.told, point.crashAt)
    }
  }).timeout(90_000)

  test('killed around a step whose reads commit with its response: the step is whole or absent, the action runs once', async ({
    assert,
  }) => {
    const files = filesFor('batch')
    const starter = runtime(files, noExecutor)
    const runs: AgentRun[] = []
    for (const point of BATCH_POINTS) {
      runs.push(await starter.start(SURVEY_AGENT_NAME, { input: point.name, owner: 'user:1' }))
    }

    // One worker per point drives its run and dies there
    const kills = await Promise.all(
      runs.map((run, index) =>
        runWorker('drive', [run.id], files, { CRASH_AT: BATCH_POINTS[index].crashAt })
      )
    )
    for (const [index, run] of runs.entries()) {
      const point = BATCH_POINTS[index]
      assert.equal(kills[index].signal, 'SIGKILL', point.name)
      await run.refresh()
      assert.equal(run.status, 'running', point.name)
      assert.include(run.leaseOwner, `:${kills[index].pid}:`, point.name)
      const keys = await journalKeys(run.id)
      assert.deepEqual(keys, SURVEY_KEYS.slice(0, point.keysAtKill), point.name)
      assert.equal(run.journalLength, keys.length, `${point.name}: the fence rolled back too`)
      assert.deepEqual(
        reads(files, run.id).map((line) => line.split(' ')[0]),
        [...point.readsAtKill],
        point.name
      )
      const rows = await rowsOf(run.id)
      assert.lengthOf(rows, point.rowsAtKill, point.name)
      if (point.rowsAtKill > 0) {
        // The reads' rows came with the response, executed, with their results
        assert.deepEqual(
          rows.slice(0, 2).map((row) => [row.toolCallId, row.status, row.execution, row.result]),
          [
            ['measure-north', 'auto', 'succeeded', { value: '6 m2 north' }],
            ['measure-south', 'auto', 'succeeded', { value: '4 m2 south' }],
          ],
          point.name
        )
      }
      if (point.ranAtKill > 0) {
        assert.deepEqual(rows[2].result, { value: 'varnished 10 m2' }, point.name)
      }
      assert.lengthOf(executions(files, run.id), point.ranAtKill, point.name)
    }

    // A restart: recover() takes each run once its dead worker's lease lapsed
    const exit = await runWorker(
      'recover',
      runs.map((run) => run.id),
      files
    )
    assert.deepEqual(exit.output, {
      pid: exit.pid,
      recovered: BATCH_POINTS.length,
      statuses: BATCH_POINTS.map(() => 'completed'),
    })
    for (const [index, run] of runs.entries()) {
      const point = BATCH_POINTS[index]
      await run.refresh()
      assert.equal(run.status, 'completed', point.name)
      assert.isNull(run.leaseOwner, point.name)
      assert.deepEqual(modelCalls(files, point.name), [...point.model], point.name)
      assert.deepEqual(
        reads(files, run.id).map((line) => line.split(' ')[0]),
        [...point.reads],
        `${point.name}: reads run again only when their step was not committed`
      )
      assert.deepEqual(
        executions(files, run.id).map((line) => line.split(' ')[1]),
        ['10'],
        `${point.name}: the action ran once, on both measures`
      )

      const journal = await JournalRow.query().where('run_id', run.id).orderBy('sequence', 'asc')
      assert.deepEqual(
        journal.map((entry) => entry.key),
        SURVEY_KEYS,
        point.name
      )
      assert.deepEqual(
        journal.map((entry) => entry.sequence),
        SURVEY_KEYS.map((_key, at) => at + 1),
        `${point.name}: journal sequences contiguous`
      )
      assert.equal(run.journalLength, SURVEY_KEYS.length, point.name)
      const rows = await rowsOf(run.id)
      assert.deepEqual(
        rows.map((row) => [row.sequence, row.toolCallId, row.kind, row.execution]),
        [
          [1, 'measure-north', 'read', 'succeeded'],
          [2, 'measure-south', 'read', 'succeeded'],
          [3, 'varnish-shed', 'action', 'succeeded'],
        ],
        point.name
      )
      const text = (run.result as { text: string }).text
      assert.include(text, 'Measured: 6 m2 north, 4 m2 south', point.name)
      assert.include(text, 'Varnish (text): varnished 10 m2', point.name)
    }
  }).timeout(90_000)

  test('two processes racing to resume the same run: exactly one drives each step', async ({
    assert,
  }) => {
    const files = filesFor('race')
    const input = 'race'
    const settler = runtime(files, noExecutor)
    const run = await settler.start(AGENT_NAME, { input, owner: 'user:1' })
    const env = { LEASE_TTL: '10000', RACE_LOG: fileURLToPath(new URL('race.log', FILES)) }
    const racers = [0, 1].map(() => startWorker('race', [run.id], files, env))
    for (const racer of racers) assert.deepEqual(await racer.next(), { ready: true })

    /**
     * Lets both racers go at once; returns the pid of the one that drove
     * (its drive returned `status`), after checking the other got 'busy'.
     */
    const race = async (round: number, status: string) => {
      for (const racer of racers) racer.child.stdin.write(`go ${round}\n`)
      const results = await Promise.all(racers.map((racer) => racer.next()))
      assert.deepEqual(
        results.map((result) => result.round),
        [String(round), String(round)]
      )
      assert.sameMembers(
        results.map((result) => result.status),
        ['busy', status],
        `round ${round}`
      )
      return results.find((result) => result.status === status)!.pid as number
    }

    // A queued run: one racer asks the question, the other is refused
    let winner = await race(1, 'waiting')
    assert.deepEqual(modelLines(files, input), [`ask ${winner}`])
    const [askRow] = await rowsOf(run.id)
    await settler.inbox.settle(askRow.id, ANSWER, { by: 'user:1', via: 'api' })

    // Its answer settled: one racer makes the next model call
    winner = await race(2, 'waiting')
    assert.deepEqual(modelLines(files, input).slice(1), [`paint ${winner}`])
    const [, actionRow] = await rowsOf(run.id)
    await settler.inbox.settle(actionRow.id, { approved: true }, { by: 'user:1', via: 'api' })

    // Its action approved: one racer runs it, once, and finishes
    winner = await race(3, 'completed')
    for (const racer of racers) racer.child.stdin.end()
    await Promise.all(racers.map((racer) => racer.exit))

    assert.deepEqual(modelLines(files, input).slice(2), [`final ${winner}`])
    assert.deepEqual(executions(files, run.id), [`${run.id} blue ${winner}`])
    assert.lengthOf(await rowsOf(run.id), 2)
    const journal = await JournalRow.query().where('run_id', run.id).orderBy('sequence', 'asc')
    assert.deepEqual(
      journal.map((entry) => entry.key),
      COMPLETE_KEYS
    )
    assert.deepEqual(
      journal.map((entry) => entry.sequence),
      [1, 2, 3, 4, 5, 6]
    )
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.isNull(run.leaseOwner)
  }).timeout(90_000)
})
