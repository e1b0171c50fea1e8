/*
 * Streaming steps (docs/design.md §8.6): an agent with `stream: true` calls
 * `streamText`, and its run writes the same journal and rows as with
 * `generateText`, one checkpoint per step when the stream ends, the step's
 * watchers told of its deltas and then of its commit. A worker SIGKILLed
 * mid-stream left nothing of that step: the next one calls the model again
 * for it, and the run completes with one committed step per step and its
 * action run once.
 */

import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { dbName } from '../helpers/database.ts'
import { lines, runWorker, useAppWithFiles } from '../helpers/crash_workers.ts'
import {
  ask,
  call,
  createAgents,
  DB_QUESTION,
  deployTools,
  noteTools,
  rowsOf,
  say,
  scriptedModel,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { AGENT_NAME, ANSWER, crashAgent } from '../fixtures/crash_agent.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import type { RunExecutor } from '../../src/runtime/executor.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import type { AgentEvents } from '../../src/events.ts'

const FILES = new URL(`../../tmp/streaming-${process.pid}/`, import.meta.url)

/** Reads, a question, an approved action, a final answer: each kind of step */
const SCRIPT: ScriptStep[] = [
  [say('Looking first.'), call('r1', 'look', { key: 'a' }), call('r2', 'look', { key: 'b' })],
  [say('One question.'), ask('q1', DB_QUESTION)],
  [call('d1', 'deploy', { branch: 'main' })],
  ({ results }) => [say(`Done: ${results.map((result) => result.value).join('; ')}`)],
]

/** The journal and rows of a run, without what differs between any two runs (ids, times) */
async function recordOf(runId: string) {
  const journal = await JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
  const rows = await rowsOf(runId)
  return {
    journal: journal.map(({ sequence, key, kind, payload }) => ({ sequence, key, kind, payload })),
    rows: rows.map((row) => ({
      sequence: row.sequence,
      toolCallId: row.toolCallId,
      toolName: row.toolName,
      kind: row.kind,
      status: row.status,
      execution: row.execution,
      request: row.request,
      result: row.result,
      answers: (row.outcome as { answers?: unknown } | null)?.answers ?? null,
    })),
  }
}

/** Plays SCRIPT through to its end, streamed or not; what the run wrote and was told */
async function playScript(stream: boolean) {
  const model = scriptedModel(SCRIPT, { stream: { chunkSize: 3 } })
  const { deploy } = deployTools()
  const { look } = noteTools([])
  const told: Array<{ name: string; data: any }> = []
  const events = {
    emit: <Name extends keyof AgentEvents>(name: Name, data: AgentEvents[Name]) => {
      if (name.startsWith('agents:step:')) told.push({ name, data })
    },
  }
  const agents = createAgents({
    agents: [
      defineAgent({ name: 'player', model, instructions: 'Play.', tools: [deploy, look], stream }),
    ],
    events,
  })
  const run = await agents.start('player', { input: 'Play it', owner: 'user:1' })
  await agents.idle()
  for (const reply of [{ answers: { db: ['mysql'] } }, { approved: true }]) {
    const rows = await rowsOf(run.id)
    const pending = rows.find((row) => row.status === 'pending')!
    await agents.inbox.settle(pending.id, reply, { by: 'user:1', via: 'api' })
    await agents.idle()
  }
  await run.refresh()
  const calls = { generated: model.doGenerateCalls.length, streamed: model.doStreamCalls.length }
  return { run, calls, told, ...(await recordOf(run.id)) }
}

test.group(`Runtime streaming steps | ${dbName()}`, (group) => {
  useAppWithFiles(group, FILES)

  test('a streamed run writes the journal and rows a generated one does; watchers get deltas, then each commit', async ({
    assert,
  }) => {
    const generated = await playScript(false)
    const streamed = await playScript(true)
    assert.equal(generated.run.status, 'completed', generated.run.error ?? '')
    assert.equal(streamed.run.status, 'completed', streamed.run.error ?? '')
    assert.deepEqual(generated.calls, { generated: 4, streamed: 0 })
    assert.deepEqual(streamed.calls, { generated: 0, streamed: 4 })

    assert.deepEqual(streamed.journal, generated.journal)
    assert.deepEqual(streamed.rows, generated.rows)
    assert.deepEqual(streamed.run.result, generated.run.result)
    assert.include((streamed.run.result as { text: string }).text, 'deployed')

    // Nobody is told of a generated step; each streamed one is told, then committed once
    assert.lengthOf(generated.told, 0)
    const commits = streamed.told.filter(({ name }) => name === 'agents:step:committed')
    assert.deepEqual(
      commits.map(({ data }) => data.step),
      [1, 2, 3, 4]
    )
    for (const commit of commits) {
      const before = streamed.told.slice(0, streamed.told.indexOf(commit))
      const deltas = before.filter(
        ({ name, data }) => name === 'agents:step:delta' && data.stream === commit.data.stream
      )
      assert.isAbove(deltas.length, 0, `step ${commit.data.step} streamed`)
      const payload = streamed.journal.find(
        ({ key }) => key === `step:${commit.data.step}:response`
      )!.payload as { text: string }
      assert.equal(deltas.map(({ data }) => data.text).join(''), payload.text)
    }
  })

  test('a worker killed mid-stream: the step is called again, one commit per step, the action runs once', async ({
    assert,
  }) => {
    const files = {
      modelLog: fileURLToPath(new URL('model.log', FILES)),
      actionLog: fileURLToPath(new URL('action.log', FILES)),
    }
    const env = { MODEL_LOG: files.modelLog, ACTION_LOG: files.actionLog, STREAM: '1' }
    const kinds = () => lines(files.modelLog).map((line) => line.split(' ')[1])
    const keys = async (runId: string) => {
      const entries = await JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
      return entries.map((entry) => entry.key)
    }
    const noExecutor = (): RunExecutor => ({ resume() {}, idle: async () => {} })
    const painter = crashAgent({ ...files, stream: {} })
    const run = await createAgents({ agents: [painter], executor: noExecutor }).start(AGENT_NAME, {
      input: 'streamed',
      owner: 'user:1',
    })

    // Killed while the first step streams: nothing of it was written
    let exit = await runWorker('drive', [run.id], { ...env, CRASH_AT: 'mid-stream' })
    assert.equal(exit.signal, 'SIGKILL')
    assert.deepEqual(await keys(run.id), [])
    assert.deepEqual(kinds(), ['ask'])

    // Another worker calls the model for that step again, and the run waits for its answer
    exit = await runWorker('drive', [run.id], env)
    assert.equal(exit.output?.status, 'waiting')
    assert.deepEqual(kinds(), ['ask', 'ask'])

    // Answered here; the action's step streams here too, and waits for its approval
    const agents = createAgents({ agents: [painter] })
    const [askRow] = await rowsOf(run.id)
    await agents.inbox.settle(askRow.id, ANSWER, { by: 'user:1', via: 'api' })
    await agents.idle()

    // Approved by a worker: the action runs, then the worker dies in the final step's stream
    exit = await runWorker('settle', [run.id], { ...env, CRASH_AT: 'mid-stream' })
    assert.equal(exit.signal, 'SIGKILL')
    assert.lengthOf(lines(files.actionLog), 1)

    exit = await runWorker('recover', [run.id], env)
    assert.deepEqual(exit.output?.statuses, ['completed'])
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(kinds(), ['ask', 'ask', 'paint', 'final', 'final'])
    assert.lengthOf(lines(files.actionLog), 1, 'the action ran once')
    assert.deepEqual(await keys(run.id), [
      'input',
      'step:1:response',
      'step:1:tool:ask-color',
      'step:2:response',
      'step:2:tool:paint-shed',
      'step:3:response',
    ])
    assert.include((run.result as { text: string }).text, 'painted blue')
  }).timeout(60_000)

  test('a chat turn killed mid-stream completes on another worker, sent the earlier turn; nothing runs twice', async ({
    assert,
  }) => {
    const files = {
      modelLog: fileURLToPath(new URL('chat-model.log', FILES)),
      actionLog: fileURLToPath(new URL('chat-action.log', FILES)),
    }
    const env = { MODEL_LOG: files.modelLog, ACTION_LOG: files.actionLog, STREAM: '1' }
    const kinds = () => lines(files.modelLog).map((line) => line.split(' ')[1])
    const painter = crashAgent({ ...files, stream: {} })
    const chatId = randomUUID()

    // The first turn, here to its end: asked, answered, painted once, answered in text
    const agents = createAgents({ agents: [painter] })
    const first = await agents.converse(chatId, {
      agent: AGENT_NAME,
      owner: 'user:1',
      text: 'chat',
    })
    await agents.idle()
    for (const reply of [ANSWER, { approved: true }]) {
      const rows = await rowsOf(first.id)
      const pending = rows.find((row) => row.status === 'pending')!
      await agents.inbox.settle(pending.id, reply, { by: 'user:1', via: 'api' })
      await agents.idle()
    }
    await first.refresh()
    assert.equal(first.status, 'completed')
    assert.deepEqual(kinds(), ['ask', 'paint', 'final'])

    // The second turn, queued here and killed in a worker while its one step streams
    const idle = createAgents({
      agents: [painter],
      executor: (): RunExecutor => ({ resume() {}, idle: async () => {} }),
    })
    const second = await idle.converse(chatId, { agent: AGENT_NAME, owner: 'user:1', text: 'more' })
    let exit = await runWorker('drive', [second.id], { ...env, CRASH_AT: 'mid-stream' })
    assert.equal(exit.signal, 'SIGKILL')
    const keys = async () => {
      const entries = await JournalRow.query().where('run_id', second.id).orderBy('sequence', 'asc')
      return entries.map((entry) => entry.key)
    }
    assert.deepEqual(await keys(), [])

    // Another worker: sent the first turn (its answer and its paint result), the model answers at once
    exit = await runWorker('recover', [second.id], env)
    assert.deepEqual(exit.output?.statuses, ['completed'])
    await second.refresh()
    assert.equal(second.status, 'completed')
    assert.deepEqual(kinds(), ['ask', 'paint', 'final', 'final', 'final'])
    assert.deepEqual(await keys(), ['input', 'step:1:response'])
    assert.include((second.result as { text: string }).text, 'painted blue')
    assert.lengthOf(lines(files.actionLog), 1, 'the action ran once, in the first turn')
  }).timeout(60_000)
})
