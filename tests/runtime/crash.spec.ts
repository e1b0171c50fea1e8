/*
 * Crash safety with real processes (SPEC §4.2, §4.4). Worker processes
 * (tests/fixtures/agent_worker.ts) drive runs of a scripted agent on this
 * test's database and SIGKILL themselves at named points: after a model
 * response is saved, right after an approval commits, during an action,
 * before it, after its result is saved. A new worker then picks the run up
 * (once the dead worker's lease lapses) and the tests check the ground
 * truth: the files the action and the model append to, across processes,
 * and the rows. The last test starts two workers at once on the same run
 * and shows the lease lets exactly one of them drive each step.
 */

import { spawn } from 'node:child_process'
import { mkdir, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { createTestApp, dbName, sqliteFile } from '../helpers/database.ts'
import { createAgents } from '../helpers/runtime.ts'
import { AGENT_NAME, ANSWER, crashAgent } from '../fixtures/crash_agent.ts'
import type { RunExecutor } from '../../src/runtime/executor.ts'
import { RunCheckpoint } from '../../src/persistence/models/run_checkpoint.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const WORKER = fileURLToPath(new URL('../fixtures/agent_worker.ts', import.meta.url))
const FILES = new URL(`../../tmp/crash-${process.pid}/`, import.meta.url)

type Files = { modelLog: string; actionLog: string }

type WorkerExit = {
  pid: number
  code: number | null
  signal: NodeJS.Signals | null
  /** The JSON line the worker printed, if it lived to print it */
  output: Record<string, any> | null
}

/**
 * The files of one test: what the model and the action append to.
 */
function filesFor(name: string): Files {
  return {
    modelLog: fileURLToPath(new URL(`${name}-model.log`, FILES)),
    actionLog: fileURLToPath(new URL(`${name}-action.log`, FILES)),
  }
}

function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/** The kind of every model call so far, across processes */
function modelCalls(files: Files) {
  return lines(files.modelLog).map((line) => line.split(' ')[0])
}

/** Every execution of the action so far, across processes */
function executions(files: Files, runId: string) {
  return lines(files.actionLog).filter((line) => line.startsWith(`${runId} `))
}

/**
 * Starts a worker process on this test's database. `ready` resolves when
 * it printed "ready" (race workers wait for "go" on stdin after it).
 */
function startWorker(command: string, runId: string, files: Files, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import=@poppinss/ts-exec', WORKER, command, runId], {
    cwd: ROOT,
    env: {
      ...process.env,
      DB: dbName(),
      DB_FILE: sqliteFile(),
      MODEL_LOG: files.modelLog,
      ACTION_LOG: files.actionLog,
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let onReady: () => void
  const announced = new Promise<void>((resolve) => (onReady = resolve))
  child.stdout.on('data', (chunk) => {
    stdout += chunk
    if (stdout.includes('ready\n')) onReady()
  })
  child.stderr.on('data', (chunk) => (stderr += chunk))

  const exit = new Promise<WorkerExit>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const last = stdout.split('\n').findLast((line) => line.startsWith('{'))
      if (code !== 0 && signal !== 'SIGKILL') {
        reject(new Error(`worker ${command} exited with ${code}:\n${stderr}`))
      }
      resolve({ pid: child.pid!, code, signal, output: last ? JSON.parse(last) : null })
    })
  })
  const ready = Promise.race([
    announced,
    exit.then(() => {
      throw new Error(`worker ${command} ended before it was ready`)
    }),
  ])
  // Only race workers announce themselves; for the others this rejection is expected
  ready.catch(() => {})
  return { child, ready, exit }
}

/**
 * Runs a worker to its end. Crash workers get a short lease so a restart
 * does not wait long for it to lapse.
 */
function runWorker(command: string, runId: string, files: Files, env: Record<string, string> = {}) {
  const worker = startWorker(command, runId, files, { LEASE_TTL: '1000', ...env })
  worker.child.stdin.end()
  return worker.exit
}

/** Schedules nothing: the run stays where the settle left it */
const noExecutor = (): RunExecutor => ({ resume() {}, idle: async () => {} })

/**
 * A runtime in this process around the same scripted agent.
 */
function runtime(files: Files, executor?: () => RunExecutor) {
  return createAgents({ agents: [crashAgent(files)], executor })
}

function startRun(files: Files) {
  return runtime(files, noExecutor).start(AGENT_NAME, { input: 'Paint the shed', owner: 'user:1' })
}

async function rowsOf(runId: string) {
  return ToolCall.query().where('run_id', runId).orderBy('sequence', 'asc')
}

async function journalKeys(runId: string) {
  const entries = await RunCheckpoint.query().where('run_id', runId).orderBy('sequence', 'asc')
  return entries.map((entry) => entry.key)
}

/**
 * Runs the script in this process up to the action's approval: asked,
 * answered, the action called and pending.
 */
async function untilApproval(files: Files) {
  const agents = runtime(files)
  const run = await agents.start(AGENT_NAME, { input: 'Paint the shed', owner: 'user:1' })
  await agents.idle()
  const [askRow] = await rowsOf(run.id)
  await agents.inbox.settle(askRow.id, ANSWER, { by: 'user:1', via: 'api' })
  await agents.idle()
  const [, actionRow] = await rowsOf(run.id)
  await Promise.all([run.refresh(), askRow.refresh()])
  if (run.status !== 'waiting' || actionRow?.status !== 'pending') {
    throw new Error(`The run should wait for approval; it is ${run.status}`)
  }
  return { run, askRow, actionRow }
}

const COMPLETE_KEYS = [
  'input',
  'step:1:response',
  'step:1:tool:ask-color',
  'step:2:response',
  'step:2:tool:paint-shed',
  'step:3:response',
]

test.group(`Runtime crash safety | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    await rm(FILES, { recursive: true, force: true })
    await mkdir(FILES, { recursive: true })
    return async () => {
      await testApp.terminate()
      await rm(FILES, { recursive: true, force: true })
    }
  })

  test('killed after a model response is saved, a restart acts on it without calling the model again', async ({
    assert,
  }) => {
    const files = filesFor('response')
    const run = await startRun(files)

    // Killed once the model's question is saved, before its row exists
    let exit = await runWorker('drive', run.id, files, { CRASH_AT: 'after-response-saved' })
    assert.equal(exit.signal, 'SIGKILL')
    await run.refresh()
    assert.equal(run.status, 'running')
    assert.include(run.leaseOwner, `:${exit.pid}:`, 'the dead worker still holds the lease')
    assert.deepEqual(await journalKeys(run.id), ['input', 'step:1:response'])
    assert.lengthOf(await rowsOf(run.id), 0)

    exit = await runWorker('drive', run.id, files)
    assert.equal(exit.output?.status, 'waiting')
    assert.deepEqual(modelCalls(files), ['ask'], 'the saved response was used, not asked for again')
    const [askRow] = await rowsOf(run.id)
    assert.equal(askRow.kind, 'ask')
    assert.equal(askRow.status, 'pending')

    // Answered, then killed once the response calling the action is saved
    exit = await runWorker('settle', run.id, files, { CRASH_AT: 'after-response-saved' })
    assert.equal(exit.signal, 'SIGKILL')
    await askRow.refresh()
    assert.equal(askRow.status, 'answered')
    assert.deepEqual((askRow.outcome as QuestionOutcome).answers, { color: ['blue'] })
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS.slice(0, 4))
    assert.lengthOf(await rowsOf(run.id), 1)

    exit = await runWorker('drive', run.id, files)
    assert.equal(exit.output?.status, 'waiting')
    assert.deepEqual(modelCalls(files), ['ask', 'paint'])
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
    assert.deepEqual(modelCalls(files), ['ask', 'paint', 'final'])
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS)
    const text = (run.result as { text: string }).text
    assert.include(text, (askRow.outcome as QuestionOutcome).text)
    assert.include(text, 'Paint result (text): The person approved the call to "paint".')
  }).timeout(40_000)

  test('killed right after an approval commits, recover() runs the action once', async ({
    assert,
  }) => {
    const files = filesFor('approval')
    const { run, askRow, actionRow } = await untilApproval(files)

    // The worker's executor dies when the settle hands it the run to resume
    let exit = await runWorker('settle', run.id, files, { CRASH_AT: 'after-settle' })
    assert.equal(exit.signal, 'SIGKILL')
    await Promise.all([run.refresh(), actionRow.refresh()])
    assert.equal(actionRow.status, 'approved')
    assert.isNull(actionRow.execution)
    assert.equal(run.status, 'waiting')
    assert.lengthOf(executions(files, run.id), 0)

    exit = await runWorker('recover', run.id, files)
    assert.deepEqual(exit.output, { pid: exit.pid, recovered: 1, attempts: 1, status: 'completed' })
    assert.lengthOf(executions(files, run.id), 1)
    assert.match(executions(files, run.id)[0], / blue /)
    await Promise.all([run.refresh(), actionRow.refresh(), askRow.refresh()])
    assert.equal(actionRow.execution, 'succeeded')
    assert.deepEqual(modelCalls(files), ['ask', 'paint', 'final'])
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS)
    const text = (run.result as { text: string }).text
    assert.include(text, (askRow.outcome as QuestionOutcome).text)
    assert.include(text, 'painted blue')
  }).timeout(30_000)

  test('killed during an action, the call is marked interrupted, not run again, and the model is told', async ({
    assert,
  }) => {
    const files = filesFor('during')
    const { run, askRow, actionRow } = await untilApproval(files)

    let exit = await runWorker('settle', run.id, files, { CRASH_AT: 'during-execute' })
    assert.equal(exit.signal, 'SIGKILL')
    assert.lengthOf(executions(files, run.id), 1, 'the action ran before the kill')
    await Promise.all([run.refresh(), actionRow.refresh()])
    assert.equal(actionRow.execution, 'running')
    assert.equal(run.status, 'running')

    exit = await runWorker('drive', run.id, files)
    assert.equal(exit.output?.status, 'completed')
    assert.lengthOf(executions(files, run.id), 1, 'not run again')
    await Promise.all([run.refresh(), actionRow.refresh(), askRow.refresh()])
    assert.equal(actionRow.status, 'approved')
    assert.equal(actionRow.execution, 'interrupted')
    assert.deepEqual(modelCalls(files), ['ask', 'paint', 'final'])
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS)
    const text = (run.result as { text: string }).text
    assert.include(text, 'Paint result (error-text)')
    assert.include(text, 'was interrupted by a process restart while it ran')
    assert.include(text, (askRow.outcome as QuestionOutcome).text)
  }).timeout(30_000)

  test('killed after claiming an action but before running it, the call is interrupted and never run', async ({
    assert,
  }) => {
    const files = filesFor('before')
    const { run, actionRow } = await untilApproval(files)

    let exit = await runWorker('settle', run.id, files, { CRASH_AT: 'before-execute' })
    assert.equal(exit.signal, 'SIGKILL')
    await actionRow.refresh()
    assert.equal(actionRow.execution, 'running')

    // recover() skips the run until the dead worker's lease lapses
    exit = await runWorker('recover', run.id, files)
    assert.equal(exit.output?.recovered, 1)
    assert.equal(exit.output?.status, 'completed')
    await Promise.all([run.refresh(), actionRow.refresh()])
    assert.equal(actionRow.execution, 'interrupted')
    assert.lengthOf(executions(files, run.id), 0)
    assert.deepEqual(modelCalls(files), ['ask', 'paint', 'final'])
    assert.include((run.result as { text: string }).text, 'was not run again')
  }).timeout(30_000)

  test('killed after the action result is saved, a restart does not run the action again', async ({
    assert,
  }) => {
    const files = filesFor('result')
    const { run, askRow, actionRow } = await untilApproval(files)

    let exit = await runWorker('settle', run.id, files, { CRASH_AT: 'after-result-saved' })
    assert.equal(exit.signal, 'SIGKILL')
    await actionRow.refresh()
    assert.equal(actionRow.execution, 'succeeded')
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS.slice(0, 5))
    assert.deepEqual(modelCalls(files), ['ask', 'paint'])

    exit = await runWorker('drive', run.id, files)
    assert.equal(exit.output?.status, 'completed')
    assert.lengthOf(executions(files, run.id), 1)
    await Promise.all([run.refresh(), askRow.refresh()])
    assert.deepEqual(modelCalls(files), ['ask', 'paint', 'final'])
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS)
    const text = (run.result as { text: string }).text
    assert.include(text, 'painted blue')
    assert.include(text, (askRow.outcome as QuestionOutcome).text)
  }).timeout(30_000)

  test('two processes racing to resume the same run: exactly one drives each step', async ({
    assert,
  }) => {
    const files = filesFor('race')
    const run = await startRun(files)
    const settler = runtime(files, noExecutor)

    /**
     * Starts two workers, lets them both go at once, and returns what
     * each one's `drive` returned.
     */
    const race = async (round: number) => {
      const env = {
        LEASE_TTL: '10000',
        RACE_LOG: fileURLToPath(new URL(`race-${round}.log`, FILES)),
      }
      const racers = [
        startWorker('race', run.id, files, env),
        startWorker('race', run.id, files, env),
      ]
      await Promise.all(racers.map((racer) => racer.ready))
      for (const racer of racers) racer.child.stdin.end('go\n')
      const exits = await Promise.all(racers.map((racer) => racer.exit))
      return exits.map((exit) => exit.output as { pid: number; status: string })
    }

    /** The one that drove: the other must have been refused */
    const winnerOf = (results: { pid: number; status: string }[], status: string) => {
      assert.sameMembers(
        results.map((result) => result.status),
        ['busy', status]
      )
      return results.find((result) => result.status === status)!.pid
    }

    // A queued run: one racer asks the question, the other is refused
    let winner = winnerOf(await race(1), 'waiting')
    assert.deepEqual(lines(files.modelLog), [`ask ${winner}`])
    const [askRow] = await rowsOf(run.id)
    await settler.inbox.settle(askRow.id, ANSWER, { by: 'user:1', via: 'api' })

    // A run whose answer is settled: one racer calls the model for the next step
    winner = winnerOf(await race(2), 'waiting')
    assert.deepEqual(modelCalls(files), ['ask', 'paint'])
    assert.equal(lines(files.modelLog)[1], `paint ${winner}`)
    const [, actionRow] = await rowsOf(run.id)
    await settler.inbox.settle(actionRow.id, { approved: true }, { by: 'user:1', via: 'api' })

    // A run whose action is approved: one racer runs it, once
    winner = winnerOf(await race(3), 'completed')
    assert.deepEqual(lines(files.modelLog).slice(2), [`final ${winner}`])
    assert.deepEqual(
      executions(files, run.id).map((line) => line.split(' ').slice(1)),
      [['blue', String(winner)]]
    )
    assert.lengthOf(await rowsOf(run.id), 2)
    assert.deepEqual(await journalKeys(run.id), COMPLETE_KEYS)
    const journal = await RunCheckpoint.query().where('run_id', run.id).orderBy('sequence', 'asc')
    assert.deepEqual(
      journal.map((entry) => entry.sequence),
      [1, 2, 3, 4, 5, 6]
    )
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.isNull(run.leaseOwner)
  }).timeout(40_000)
})
