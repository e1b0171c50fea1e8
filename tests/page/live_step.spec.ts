/*
 * A run page's live step, shared by the React and Vue pages
 * (stubs/inertia/agent_inbox/live_step.ts): the deltas of a streaming
 * step add up to its text and its tool calls' input; a step called again
 * after a crash (another stream) replaces what the dead call showed; its
 * commit marks it saved; messages of other runs, other streams and other
 * kinds change nothing.
 */

import { test } from '@japa/runner'
import {
  liveStepTitle,
  nextLiveStep,
  type LiveStep,
} from '../../stubs/inertia/agent_inbox/live_step.ts'

const RUN = 'run-1'

function delta(stream: string, text: string, toolInputs: unknown[] = [], step = 1) {
  return { type: 'step:delta', runId: RUN, step, stream, text, toolInputs }
}

function play(messages: unknown[], from: LiveStep | null = null) {
  return messages.reduce<LiveStep | null>((step, message) => nextLiveStep(step, message, RUN), from)
}

test.group('Page | live step', () => {
  test('deltas add up to the text and each tool call’s input; the commit marks it saved', ({
    assert,
  }) => {
    const step = play([
      delta('s1', 'Let me '),
      delta('s1', 'ask.', [{ toolCallId: 'c1', toolName: 'ask', delta: '{"quest' }]),
      delta('s1', '', [
        { toolCallId: 'c1', toolName: 'ask', delta: 'ions":[]}' },
        { toolCallId: 'c2', toolName: 'look', delta: '{}' },
      ]),
    ])
    assert.deepEqual(step, {
      step: 1,
      stream: 's1',
      text: 'Let me ask.',
      toolCalls: [
        { toolCallId: 'c1', toolName: 'ask', input: '{"questions":[]}' },
        { toolCallId: 'c2', toolName: 'look', input: '{}' },
      ],
      committed: false,
    })
    assert.equal(liveStepTitle(step!), 'Step 1, the model is answering…')

    const saved = play([{ type: 'step:committed', runId: RUN, step: 1, stream: 's1' }], step)
    assert.deepEqual(saved, { ...step!, committed: true })
    assert.equal(liveStepTitle(saved!), 'Step 1, saved')
    // Pure: what was shown before is left as it was
    assert.isFalse(step!.committed)
  })

  test('a step called again streams afresh; other runs, streams and messages change nothing', ({
    assert,
  }) => {
    const dead = play([
      delta('s1', 'Half an ans', [{ toolCallId: 'c1', toolName: 'ask', delta: '{' }]),
    ])
    const again = play([delta('s2', 'A whole answer.')], dead)
    assert.deepEqual(again, {
      step: 1,
      stream: 's2',
      text: 'A whole answer.',
      toolCalls: [],
      committed: false,
    })

    for (const message of [
      { ...delta('s2', 'x'), runId: 'run-2' },
      { type: 'step:committed', runId: RUN, step: 1, stream: 's1' },
      { type: 'run:status', runId: RUN, status: 'running' },
      null,
      'step:delta',
    ]) {
      assert.strictEqual(nextLiveStep(again, message, RUN), again, JSON.stringify(message))
    }
    assert.isNull(
      nextLiveStep(null, { type: 'step:committed', runId: RUN, step: 1, stream: 's2' }, RUN)
    )

    // The next step starts afresh after the last one was saved
    const next = play([delta('s3', 'Step two.', [], 2)], { ...again!, committed: true })
    assert.deepInclude(next, { step: 2, stream: 's3', text: 'Step two.', committed: false })
  })
})
