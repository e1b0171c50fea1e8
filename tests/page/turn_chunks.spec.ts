/*
 * The chat transport's pure part (src/chat/client.ts): a turn's live
 * messages as AI SDK UI message chunks. A step's text is one text part per
 * stream (a step called again after a crash streams under another), ended
 * by its commit or by the turn's end; the turn ends on a wait, a
 * completion, a failure (an error chunk first) or a cancel, once; other
 * runs' messages change nothing; a waiting head whose rows are all settled
 * is followed as running.
 */

import { test } from '@japa/runner'
import { headStatus, TurnChunks } from '../../src/chat/client.ts'

const delta = (runId: string, stream: string, text: string) => ({
  type: 'step:delta',
  runId,
  step: 1,
  stream,
  text,
  toolInputs: [],
})

test.group('Page | chat turn chunks', () => {
  test('deltas of a stream make one text part, ended by its commit; the run completing ends the turn', ({
    assert,
  }) => {
    const turn = new TurnChunks('r1')
    assert.deepEqual(turn.start(), [{ type: 'start', messageId: 'r1:assistant' }])
    assert.deepEqual(turn.read(delta('r1', 's1', 'Hel')), [
      { type: 'text-start', id: 's1' },
      { type: 'text-delta', id: 's1', delta: 'Hel' },
    ])
    assert.deepEqual(turn.read(delta('r1', 's1', 'lo')), [
      { type: 'text-delta', id: 's1', delta: 'lo' },
    ])
    // Another run's messages, and a message of no kind, change nothing
    assert.deepEqual(turn.read(delta('r2', 's1', 'x')), [])
    assert.deepEqual(turn.read({ type: 'row:created', runId: 'r1', rowId: 'w' }), [])
    assert.deepEqual(turn.read(null), [])
    assert.deepEqual(turn.read({ type: 'step:committed', runId: 'r1', step: 1, stream: 's1' }), [
      { type: 'text-end', id: 's1' },
    ])
    assert.deepEqual(turn.read({ type: 'run:status', runId: 'r1', status: 'running' }), [])
    assert.isFalse(turn.ended)
    assert.deepEqual(turn.read({ type: 'run:status', runId: 'r1', status: 'completed' }), [
      { type: 'finish' },
    ])
    assert.isTrue(turn.ended)
    // Once ended, nothing more
    assert.deepEqual(turn.read(delta('r1', 's2', 'late')), [])
    assert.deepEqual(turn.status('failed'), [])
  })

  test('a step called again streams a part of its own; a failure ends with an error, an open part closed first', ({
    assert,
  }) => {
    const turn = new TurnChunks('r1')
    turn.read(delta('r1', 'dead', 'Half'))
    assert.deepEqual(turn.read(delta('r1', 'again', 'Whole')), [
      { type: 'text-end', id: 'dead' },
      { type: 'text-start', id: 'again' },
      { type: 'text-delta', id: 'again', delta: 'Whole' },
    ])
    assert.deepEqual(turn.status('failed', 'The provider refused'), [
      { type: 'text-end', id: 'again' },
      { type: 'error', errorText: 'The provider refused' },
      { type: 'finish' },
    ])
  })

  test('a wait ends the turn; a waiting head with nothing pending is followed as running', ({
    assert,
  }) => {
    const turn = new TurnChunks('r1')
    assert.deepEqual(turn.read({ type: 'run:status', runId: 'r1', status: 'waiting' }), [
      { type: 'finish' },
    ])
    const head = { runId: 'r1', status: 'waiting' as const }
    assert.equal(headStatus({ head, rows: [{ runId: 'r1', status: 'pending' }] }), 'waiting')
    assert.equal(headStatus({ head, rows: [{ runId: 'r1', status: 'answered' }] }), 'running')
    // A pending row of an earlier turn is not this turn's wait
    assert.equal(headStatus({ head, rows: [{ runId: 'r0', status: 'pending' }] }), 'running')
    assert.equal(headStatus({ head: { runId: 'r1', status: 'completed' }, rows: [] }), 'completed')
    assert.isNull(headStatus({ head: null, rows: [] }))
  })
})
