/*
 * Tool-call ids are the model's: nothing it sends as one may wedge a run.
 * Two calls of one step sharing an id get one result (the first call's);
 * a call reusing the id of an earlier step's call is a call of its own;
 * ids only a collation tells apart are different ids; and an id the
 * columns cannot hold as sent (too long, a NUL byte, a lone surrogate) is
 * stored as a digest, on every database.
 */

import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  ask,
  call,
  choice,
  createAgents,
  noteTools,
  rowsOf,
  say,
  scriptedModel,
  toolResults,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'

function setup(steps: ScriptStep[]) {
  const model = scriptedModel(steps)
  const notes: string[] = []
  const reads: string[] = []
  const { note, look } = noteTools(notes, reads)
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

  test('a later step reusing an id (call_0 every step) makes calls of its own', async ({
    assert,
  }) => {
    const { model, agents, notes, reads } = setup([
      [call('call_0', 'note', { text: 'first' })],
      [call('call_0', 'look', { key: 'k' })],
      [call('call_0', 'note', { text: 'second' })],
      [ask('call_0', choice('env', 'Where?', ['Staging', 'Production']))],
      [ask('call_0', choice('size', 'How big?', ['Small', 'Large']))],
      [say('Done.')],
    ])
    const run = await agents.start('noter', { input: 'reuse ids', owner: 'user:1' })
    await agents.idle()
    const [first] = await agents.inbox.pending('user:1')
    await agents.inbox.settle(
      first.id,
      { answers: { env: ['env-b'] } },
      { by: 'user:1', via: 'api' }
    )
    await agents.idle()

    // The second question is asked, not answered with the first one's answer
    await run.refresh()
    assert.equal(run.status, 'waiting')
    const [second] = await agents.inbox.pending('user:1')
    assert.deepEqual(second.request.questions[0].id, 'size')
    await agents.inbox.settle(second.id, { answers: {} }, { by: 'user:1', via: 'api' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(notes, ['first', 'second'])
    assert.deepEqual(reads, ['k'])
    const rows = await rowsOf(run.id)
    const ids = rows.map((row) => row.toolCallId)
    assert.equal(ids[0], 'call_0', 'the first call keeps the id as sent')
    assert.lengthOf(ids, 5)
    assert.lengthOf(new Set(ids), 5)
    // Each step's results are its own: the last one answers the last question
    const last = toolResults(model.doGenerateCalls[5]).at(-1)!
    assert.equal(last.toolCallId, 'call_0')
    assert.include(last.value, 'Small')
  })

  test('ids only a collation tells apart, and ids with a NUL or a lone surrogate, are all calls', async ({
    assert,
  }) => {
    const ids = ['c1', 'C1', 'c1 ', 'é', 'e\u0301', 'c\u00001', '\ud800', '\udfff']
    const { agents, notes } = setup([
      ids.map((id, index) => call(id, 'note', { text: String(index) })),
      [say('Done.')],
    ])
    const run = await agents.start('noter', { input: 'odd ids', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(
      notes,
      ids.map((_, index) => String(index))
    )
    const rows = await rowsOf(run.id)
    const stored = rows.map((row) => row.toolCallId)
    assert.deepEqual(stored.slice(0, 5), ids.slice(0, 5))
    assert.isTrue(stored.slice(5).every((id) => id!.startsWith('sha256:')))
    assert.lengthOf(new Set(stored), ids.length)
  })
})
