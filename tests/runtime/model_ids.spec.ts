/*
 * Tool-call ids are the model's: nothing it sends as one may wedge a run.
 * Two calls of one step sharing an id get one result (the first call's),
 * and an id longer than the columns that hold it is stored as a digest,
 * on every database.
 */

import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  ask,
  call,
  createAgents,
  rowsOf,
  say,
  scriptedModel,
  toolResults,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'

function setup(steps: ScriptStep[]) {
  const model = scriptedModel(steps)
  const notes: string[] = []
  const reads: string[] = []
  const note = defineTool({
    name: 'note',
    description: 'Write a note down',
    kind: 'action',
    needsApproval: false,
    input: vine.object({ text: vine.string() }),
    handle: async ({ text }) => {
      notes.push(text)
      return 'noted'
    },
  })
  const look = defineTool({
    name: 'look',
    description: 'Look something up',
    kind: 'read',
    input: vine.object({ key: vine.string() }),
    handle: async ({ key }) => {
      reads.push(key)
      return `value of ${key}`
    },
  })
  const agents = createAgents({
    agents: [
      defineAgent({ name: 'noter', model, instructions: 'Take notes.', tools: [note, look] }),
    ],
  })
  return { model, agents, notes, reads }
}

async function journalKeys(runId: string) {
  const entries = await JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
  return entries.map((entry) => entry.key)
}

test.group(`Runtime | the model's tool-call ids | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('two actions of one step sharing an id: the first runs once, the run goes on', async ({
    assert,
  }) => {
    const { model, agents, notes } = setup([
      [call('same', 'note', { text: 'first' }), call('same', 'note', { text: 'second' })],
      [say('Both noted.')],
    ])
    const run = await agents.start('noter', { input: 'note twice', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(notes, ['first'])
    const keys = await journalKeys(run.id)
    assert.lengthOf(new Set(keys), keys.length, 'no journal key twice')
    assert.lengthOf(await rowsOf(run.id), 1)
    assert.lengthOf(model.doGenerateCalls, 2)
  })

  test('two reads of one step sharing an id, and two malformed asks sharing one, wedge nothing', async ({
    assert,
  }) => {
    const { agents, reads } = setup([
      [call('r', 'look', { key: 'a' }), call('r', 'look', { key: 'b' })],
      [ask('q', { questions: [] }), ask('q', { questions: [] })],
      [say('Done.')],
    ])
    const run = await agents.start('noter', { input: 'look and ask', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(reads, ['a'])
    const keys = await journalKeys(run.id)
    assert.lengthOf(new Set(keys), keys.length)
  })

  test('ids longer than any column are stored as digests; the model still reads its own ids', async ({
    assert,
  }) => {
    const readId = `read_${'x'.repeat(195)}`
    const noteId = `note_${'y'.repeat(295)}`
    const { model, agents, notes, reads } = setup([
      [call(readId, 'look', { key: 'k' })],
      [call(noteId, 'note', { text: 'long' })],
      [say('Done.')],
    ])
    const run = await agents.start('noter', { input: 'long ids', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(reads, ['k'])
    assert.deepEqual(notes, ['long'])
    const rows = await rowsOf(run.id)
    assert.isTrue(rows.every((row) => row.toolCallId!.startsWith('sha256:')))
    const sent = toolResults(model.doGenerateCalls[2]).map((result) => result.toolCallId)
    assert.deepEqual(sent, [readId, noteId])
  })
})
