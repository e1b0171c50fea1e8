/*
 * The terminal channel's pure words (src/channels/terminal_answers.ts):
 * how questions and approvals are shown, and how typed answers are read.
 */

import { test } from '@japa/runner'
import {
  answerHint,
  answersReply,
  describeWaiting,
  formatApproval,
  formatQuestion,
  parseAnswer,
  parseDecision,
  parseRunInput,
} from '../../src/channels/terminal_answers.ts'
import type { Question } from '../../src/questions/types.ts'

const region: Question = {
  id: 'region',
  prompt: 'Which region first?',
  header: 'Region',
  options: [
    { value: 'eu', label: 'Europe', description: 'Frankfurt' },
    { value: 'us', label: 'United States', hotkey: 'u' },
    { value: 'ap', label: 'Asia Pacific' },
  ],
  defaults: ['eu'],
}

const checks: Question = {
  id: 'checks',
  prompt: 'Which checks?',
  multiple: true,
  options: [
    { value: 'lint', label: 'Lint' },
    { value: 'tests', label: 'Tests' },
    { value: 'smoke', label: 'Smoke tests' },
  ],
  defaults: ['lint', 'tests'],
}

const window: Question = {
  id: 'window',
  prompt: 'When?',
  allowFreeText: true,
  options: [
    { value: 'now', label: 'Right now' },
    { value: 'tonight', label: 'Tonight' },
  ],
  defaults: ['now'],
}

const replicas: Question = {
  id: 'replicas',
  prompt: 'How many replicas?',
  input: { type: 'integer', min: 1, max: 5 },
  defaults: ['2'],
}

test.group('Terminal answers | showing a question', () => {
  test('numbers the options and marks the pre-picked ones', ({ assert }) => {
    assert.deepEqual(formatQuestion(region, 0, 2), [
      'Question 1 of 2 · Region',
      'Which region first?',
      '  1) Europe (pre-picked) - Frankfurt',
      '  2) United States [u]',
      '  3) Asia Pacific',
      'Type a number; Enter keeps Europe',
    ])
  })

  test('a lone question without a header has no title; detail is indented', ({ assert }) => {
    const lines = formatQuestion(
      { ...window, description: 'Deploys pause traffic', detail: 'Step 1\nStep 2' },
      0,
      1
    )
    assert.deepEqual(lines.slice(0, 4), [
      'When?',
      '    Deploys pause traffic',
      '    Step 1',
      '    Step 2',
    ])
  })

  test('hints say what to type and what Enter keeps', ({ assert }) => {
    assert.equal(
      answerHint(checks),
      'Type numbers separated by commas (e.g. 1,3); Enter keeps Lint, Tests'
    )
    assert.equal(answerHint(window), 'Type a number, or your own words; Enter keeps Right now')
    assert.equal(answerHint(replicas), 'Type a whole number from 1 to 5; Enter keeps 2')
    assert.equal(
      answerHint({
        id: 'due',
        prompt: 'Due?',
        input: { type: 'date', required: true },
        defaults: [],
      }),
      'Type a date (YYYY-MM-DD) (required)'
    )
    assert.equal(
      answerHint({
        id: 'cc',
        prompt: 'Cc?',
        input: { type: 'email' },
        multiple: true,
        defaults: [],
      }),
      'Type an email address, several separated by commas; Enter leaves it unanswered'
    )
  })

  test('Enter keeps the defaults that hold (effectiveDefaults), free text included', ({
    assert,
  }) => {
    assert.equal(
      answerHint({ ...region, defaults: ['mars', 'us', 'ap'] }),
      'Type a number; Enter keeps United States'
    )
    assert.equal(
      answerHint({ ...replicas, defaults: ['9'] }),
      'Type a whole number from 1 to 5; Enter leaves it unanswered'
    )
    assert.equal(
      answerHint({ ...window, defaults: ['after the standup'] }),
      'Type a number, or your own words; Enter keeps after the standup'
    )
  })
})

test.group('Terminal answers | reading an answer', () => {
  test('an empty line keeps the defaults, sent as the answer the page sends', ({ assert }) => {
    assert.deepEqual(parseAnswer(region, ''), { ok: true, values: ['eu'] })
    assert.deepEqual(parseAnswer(replicas, '   '), { ok: true, values: ['2'] })
    assert.deepEqual(parseAnswer(checks, ''), { ok: true, values: ['lint', 'tests'] })
    // Defaults that do not hold leave the question unanswered
    assert.deepEqual(parseAnswer({ ...replicas, defaults: ['9'] }, ''), { ok: true, values: null })
  })

  test('an empty line is refused for a required question without defaults', ({ assert }) => {
    const due: Question = {
      id: 'due',
      prompt: 'Due?',
      input: { type: 'date', required: true },
      defaults: [],
    }
    assert.deepEqual(parseAnswer(due, ''), { ok: false, message: 'An answer is required' })
  })

  test('a number picks an option; hotkeys, values and labels pick too', ({ assert }) => {
    assert.deepEqual(parseAnswer(region, '2'), { ok: true, values: ['us'] })
    assert.deepEqual(parseAnswer(region, ' 3 '), { ok: true, values: ['ap'] })
    assert.deepEqual(parseAnswer(region, 'U'), { ok: true, values: ['us'] })
    assert.deepEqual(parseAnswer(region, 'eu'), { ok: true, values: ['eu'] })
    assert.deepEqual(parseAnswer(region, 'asia pacific'), { ok: true, values: ['ap'] })
  })

  test('several by commas on a multiple question, once each', ({ assert }) => {
    assert.deepEqual(parseAnswer(checks, '1,3'), { ok: true, values: ['lint', 'smoke'] })
    assert.deepEqual(parseAnswer(checks, '3, 1, 3'), { ok: true, values: ['smoke', 'lint'] })
  })

  test('several picks on a single-choice question are refused', ({ assert }) => {
    assert.deepEqual(parseAnswer(region, '1,2'), { ok: false, message: 'Pick one option only' })
  })

  test('a number that names no option is a typo, even where own words are allowed', ({
    assert,
  }) => {
    assert.deepEqual(parseAnswer(region, '7'), {
      ok: false,
      message: 'There is no option 7: type a number from 1 to 3',
    })
    assert.deepEqual(parseAnswer(window, '1, 4'), {
      ok: false,
      message: 'There is no option 4: type a number from 1 to 2',
    })
  })

  test('words are refused where own words are not allowed', ({ assert }) => {
    assert.deepEqual(parseAnswer(region, 'mars'), {
      ok: false,
      message: '"mars" is not an option: type a number from 1 to 3',
    })
  })

  test('own words, commas and all, where free text is allowed', ({ assert }) => {
    assert.deepEqual(parseAnswer(window, 'after the standup, not before'), {
      ok: true,
      values: ['after the standup, not before'],
    })
    assert.deepEqual(parseAnswer(window, '2'), { ok: true, values: ['tonight'] })
  })

  test('own words pass the typed rules of the question', ({ assert }) => {
    const code: Question = {
      id: 'code',
      prompt: 'Ticket?',
      allowFreeText: true,
      options: [
        { value: 'none', label: 'No ticket' },
        { value: 'new', label: 'Open one' },
      ],
      input: { type: 'text', pattern: '^[A-Z]+-\\d+$' },
      defaults: ['none'],
    }
    assert.deepEqual(parseAnswer(code, 'OPS-12'), { ok: true, values: ['OPS-12'] })
    assert.deepEqual(parseAnswer(code, 'ops twelve'), {
      ok: false,
      message: 'Your answer must match the pattern ^[A-Z]+-\\d+$',
    })
  })

  test('typed values follow the inbox rules', ({ assert }) => {
    assert.deepEqual(parseAnswer(replicas, '3'), { ok: true, values: ['3'] })
    assert.deepEqual(parseAnswer(replicas, 'nine'), {
      ok: false,
      message: 'Your answer must be a whole number',
    })
    assert.deepEqual(parseAnswer(replicas, '9'), {
      ok: false,
      message: 'Your answer: value must be at most 5',
    })
    const due: Question = { id: 'due', prompt: 'Due?', input: { type: 'date' }, defaults: [] }
    assert.deepEqual(parseAnswer(due, '2026-02-30'), {
      ok: false,
      message: 'Your answer must be a date written YYYY-MM-DD',
    })
    const note: Question = { id: 'note', prompt: 'Note?', defaults: [] }
    assert.deepEqual(parseAnswer(note, '  keep, it short  '), {
      ok: true,
      values: ['keep, it short'],
    })
  })

  test('a boolean takes y/n', ({ assert }) => {
    const flag: Question = {
      id: 'flag',
      prompt: 'Flag?',
      input: { type: 'boolean' },
      defaults: ['false'],
    }
    assert.deepEqual(parseAnswer(flag, 'y'), { ok: true, values: ['true'] })
    assert.deepEqual(parseAnswer(flag, 'No'), { ok: true, values: ['false'] })
    assert.deepEqual(parseAnswer(flag, 'maybe'), {
      ok: false,
      message: 'Your answer must be "true" or "false"',
    })
  })

  test('several typed values by commas, each checked', ({ assert }) => {
    const cc: Question = {
      id: 'cc',
      prompt: 'Cc?',
      input: { type: 'email' },
      multiple: true,
      defaults: [],
    }
    assert.deepEqual(parseAnswer(cc, 'a@x.io, b@x.io'), { ok: true, values: ['a@x.io', 'b@x.io'] })
    assert.deepEqual(parseAnswer(cc, 'a@x.io, nobody'), {
      ok: false,
      message: '"nobody" must be an email address',
    })
  })

  test('y/n for approvals', ({ assert }) => {
    assert.isTrue(parseDecision('y'))
    assert.isTrue(parseDecision(' YES '))
    assert.isFalse(parseDecision('n'))
    assert.isFalse(parseDecision('no'))
    assert.isNull(parseDecision(''))
    assert.isNull(parseDecision('sure'))
  })

  test('questions left unanswered are left out of the reply', ({ assert }) => {
    assert.deepEqual(
      answersReply(
        new Map([
          ['region', ['us']],
          ['checks', null],
        ])
      ),
      { answers: { region: ['us'] } }
    )
  })
})

test.group('Terminal answers | approvals, rows and input', () => {
  test('an approval shows the tool, its summary and the args', ({ assert }) => {
    assert.deepEqual(
      formatApproval('deploy', { args: { branch: 'main' }, summary: 'Deploy main' }),
      ['Approve the call to "deploy"?', '  Deploy main', '  args: {', '    "branch": "main"', '  }']
    )
    assert.deepEqual(formatApproval('ping', {}), ['Approve the call to "ping"?', '  args: null'])
  })

  test('a waiting row in one line', ({ assert }) => {
    assert.equal(
      describeWaiting({ kind: 'action', toolName: 'deploy', request: { summary: 'Deploy main' } }),
      'approve deploy: Deploy main'
    )
    assert.equal(
      describeWaiting({
        kind: 'ask',
        toolName: 'ask',
        request: { questions: [region, checks] },
      }),
      'answer: Which region first? (+1 more)'
    )
    assert.equal(
      describeWaiting({ kind: 'intake', toolName: 'intake', request: { questions: [window] } }),
      'intake: When?'
    )
    assert.match(
      describeWaiting({ kind: 'action', toolName: 'x', request: { summary: 'a'.repeat(100) } }),
      /^approve x: a{69}…$/
    )
  })

  test('run input is JSON when it looks like JSON, else the text', ({ assert }) => {
    assert.deepEqual(parseRunInput('{"service":"api"}'), { service: 'api' })
    assert.deepEqual(parseRunInput(' [1, 2] '), [1, 2])
    assert.equal(parseRunInput('{not json'), '{not json')
    assert.equal(parseRunInput('restart the api'), 'restart the api')
    assert.equal(parseRunInput('42'), '42')
    assert.isNull(parseRunInput(undefined))
  })
})
