/*
 * Answer memory (docs/design.md §4.5): the same words get the earlier answer, other
 * words get asked again.
 */

import { test } from '@japa/runner'
import { canonicalJson, questionSetFingerprint, recallOutcome } from '../../src/questions/memory.ts'
import { settleQuestionSet } from '../../src/questions/settle.ts'
import type { QuestionSet } from '../../src/questions/types.ts'

const set: QuestionSet = {
  preamble: 'Before I scaffold the app:',
  questions: [
    {
      id: 'db',
      header: 'Database',
      prompt: 'Which database?',
      options: [
        { value: 'pg', label: 'PostgreSQL', description: 'Best for production' },
        { value: 'sqlite', label: 'SQLite', hotkey: 's' },
      ],
      defaults: ['pg'],
    },
    {
      id: 'replicas',
      prompt: 'How many replicas?',
      input: { type: 'integer', min: 1, max: 5 },
      defaults: ['2'],
    },
  ],
}

/**
 * The same set written with every object's keys in reverse order.
 */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, item]) => [key, reversedKeys(item)])
    )
  }
  return value
}

function variant(change: (copy: QuestionSet) => void): QuestionSet {
  const copy = structuredClone(set)
  change(copy)
  return copy
}

const earlier = settleQuestionSet(
  set,
  { answers: { db: ['sqlite'] } },
  { answeredBy: 'user:1', answeredVia: 'terminal' }
)

test.group('Memory | fingerprint', () => {
  test('is a sha256 hex digest, stable across calls', ({ assert }) => {
    const fingerprint = questionSetFingerprint(set)
    assert.match(fingerprint, /^[0-9a-f]{64}$/)
    assert.equal(questionSetFingerprint(structuredClone(set)), fingerprint)
  })

  test('does not depend on key order', ({ assert }) => {
    const reordered = reversedKeys(set) as QuestionSet
    assert.notEqual(JSON.stringify(reordered), JSON.stringify(set))
    assert.equal(questionSetFingerprint(reordered), questionSetFingerprint(set))
  })

  test('changes with any word of the set', ({ assert }) => {
    const base = questionSetFingerprint(set)
    const changes: Array<[string, (copy: QuestionSet) => void]> = [
      ['preamble', (copy) => (copy.preamble = 'Before I start:')],
      ['prompt', (copy) => (copy.questions[0].prompt = 'Which database engine?')],
      ['header', (copy) => (copy.questions[0].header = 'Storage')],
      ['description', (copy) => (copy.questions[0].description = 'Pick one')],
      ['option label', (copy) => (copy.questions[0].options![1].label = 'SQLite 3')],
      ['option value', (copy) => (copy.questions[0].options![1].value = 'sqlite3')],
      ['option description', (copy) => (copy.questions[0].options![0].description = 'Fast')],
      ['option order', (copy) => copy.questions[0].options!.reverse()],
      ['input rule', (copy) => (copy.questions[1].input!.max = 9)],
      ['multiple', (copy) => (copy.questions[0].multiple = true)],
      ['allowFreeText', (copy) => (copy.questions[0].allowFreeText = true)],
      ['detail', (copy) => (copy.questions[0].detail = 'The plan')],
      [
        'intent',
        (copy) => (copy.questions[0].intent = { kind: 'plan-review', approve: 'PostgreSQL' }),
      ],
      ['id', (copy) => (copy.questions[1].id = 'count')],
      ['question order', (copy) => copy.questions.reverse()],
    ]
    for (const [what, change] of changes) {
      assert.notEqual(questionSetFingerprint(variant(change)), base, what)
    }
  })

  test('ignores defaults, hotkeys, explicit false flags and spacing', ({ assert }) => {
    const base = questionSetFingerprint(set)
    assert.equal(
      questionSetFingerprint(variant((copy) => (copy.questions[0].defaults = ['sqlite']))),
      base
    )
    assert.equal(
      questionSetFingerprint(variant((copy) => (copy.questions[0].options![1].hotkey = 'q'))),
      base
    )
    assert.equal(
      questionSetFingerprint(
        variant((copy) => {
          copy.questions[0].multiple = false
          copy.questions[0].allowFreeText = false
        })
      ),
      base
    )
    assert.equal(
      questionSetFingerprint(
        variant((copy) => (copy.questions[0].prompt = '  Which\n database? '))
      ),
      base
    )
  })

  test('canonical JSON sorts keys at every depth and leaves out undefined', ({ assert }) => {
    assert.equal(
      canonicalJson({ b: 1, a: [{ d: 2, c: 3 }], e: undefined }),
      '{"a":[{"c":3,"d":2}],"b":1}'
    )
    assert.equal(canonicalJson(undefined), 'null')
  })
})

test.group('Memory | recall', () => {
  test('the same words get the earlier outcome, as it was settled', ({ assert }) => {
    const remembered = [{ fingerprint: questionSetFingerprint(set), outcome: earlier }]
    const recalled = recallOutcome(reversedKeys(set) as QuestionSet, remembered)
    assert.deepEqual(recalled, earlier)
    assert.equal(recalled!.answeredVia, 'terminal')
    assert.equal(recalled!.text, earlier.text)
    assert.notStrictEqual(recalled, earlier)
  })

  test('a retry with a different pre-pick still gets the earlier answer', ({ assert }) => {
    const remembered = [{ fingerprint: questionSetFingerprint(set), outcome: earlier }]
    const retry = variant((copy) => (copy.questions[0].defaults = ['sqlite']))
    assert.deepEqual(recallOutcome(retry, remembered)?.answers.db, ['sqlite'])
  })

  test('different words miss', ({ assert }) => {
    const remembered = [{ fingerprint: questionSetFingerprint(set), outcome: earlier }]
    const other = variant((copy) => (copy.questions[0].prompt = 'Which cache?'))
    assert.isNull(recallOutcome(other, remembered))
    assert.isNull(recallOutcome(set, []))
  })

  test('the latest matching outcome wins', ({ assert }) => {
    const later = settleQuestionSet(
      set,
      { answers: {}, skip: true },
      { answeredBy: 'user:2', answeredVia: 'web' }
    )
    const fingerprint = questionSetFingerprint(set)
    const remembered = [
      { fingerprint, outcome: earlier },
      { fingerprint: 'f'.repeat(64), outcome: later },
      { fingerprint, outcome: later },
    ]
    assert.equal(recallOutcome(set, remembered)?.answeredBy, 'user:2')
  })
})
