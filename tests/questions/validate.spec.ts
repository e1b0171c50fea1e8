import { test } from '@japa/runner'
import {
  E_BAD_INTENT,
  E_EMPTY_QUESTION_SET,
  InvalidQuestionSetException,
} from '../../src/errors.ts'
import { formatIssuesForModel } from '../../src/questions/ask_tool.ts'
import { questionSetValidator } from '../../src/questions/schema.ts'
import type { Question, QuestionIssue, QuestionSet } from '../../src/questions/types.ts'
import { assertQuestionSet } from '../../src/questions/assert.ts'
import {
  formatIssuePath,
  semanticIssues,
  validateQuestionSet,
} from '../../src/questions/validate.ts'
import { resolveLimits } from '../../src/questions/values.ts'

/**
 * A set that uses every input type, options with hotkeys, a multiple-choice
 * question, free text and a plan review. Valid with maxQuestions >= 13.
 */
function fullSet(): QuestionSet {
  return {
    preamble: 'Before I scaffold the app, a few choices that change the result.',
    questions: [
      {
        id: 'database',
        header: 'Database',
        prompt: 'Which database should the app use?',
        description: 'It decides the driver and the migrations.',
        options: [
          { value: 'pg', label: 'PostgreSQL', description: 'Best for production', hotkey: 'p' },
          { value: 'mysql', label: 'MySQL', hotkey: 'm' },
          { value: 'sqlite', label: 'SQLite', hotkey: 's' },
        ],
        defaults: ['pg'],
      },
      {
        id: 'features',
        prompt: 'Which features should I add?',
        options: [
          { value: 'auth', label: 'Authentication' },
          { value: 'mail', label: 'Mail' },
          { value: 'queue', label: 'Queue' },
        ],
        multiple: true,
        defaults: ['auth', 'mail'],
      },
      {
        id: 'orm',
        prompt: 'Which ORM?',
        options: [
          { value: 'lucid', label: 'Lucid' },
          { value: 'none', label: 'None' },
        ],
        input: { type: 'select' },
        allowFreeText: true,
        defaults: ['prisma'],
      },
      {
        id: 'name',
        prompt: 'Package name?',
        input: {
          type: 'text',
          placeholder: 'my-app',
          min: 2,
          max: 40,
          pattern: '^[a-z][a-z0-9-]*$',
        },
        defaults: ['my-app'],
      },
      {
        id: 'port',
        prompt: 'Which port?',
        input: { type: 'integer', min: 1, max: 65535, required: true },
        defaults: ['3333'],
      },
      {
        id: 'ratio',
        prompt: 'Sampling ratio?',
        input: { type: 'number', min: 0, max: 1 },
        defaults: ['0.25'],
      },
      {
        id: 'seed',
        prompt: 'Seed the database?',
        input: { type: 'boolean' },
        defaults: ['true'],
      },
      {
        id: 'launch',
        prompt: 'Launch day?',
        input: { type: 'date', min: '2026-01-01', max: '2026-12-31' },
        defaults: ['2026-12-02'],
      },
      {
        id: 'window',
        prompt: 'Maintenance window start?',
        input: { type: 'datetime', min: '2026-01-01T00:00:00Z', max: '2026-12-31T23:59:00Z' },
        defaults: ['2026-06-01T02:00:00Z'],
      },
      {
        id: 'contact',
        prompt: 'Who gets the alerts?',
        input: { type: 'email' },
        defaults: ['ops@example.com'],
      },
      {
        id: 'homepage',
        prompt: 'Homepage?',
        input: { type: 'url' },
        defaults: [],
      },
      {
        id: 'notes',
        prompt: 'Anything else I should know?',
        defaults: [],
      },
      {
        id: 'plan',
        prompt: 'Shall I follow this plan?',
        options: [
          { value: 'yes', label: 'Approve plan' },
          { value: 'no', label: 'Revise' },
        ],
        defaults: ['yes'],
        intent: { kind: 'plan-review', approve: 'Approve plan' },
        detail: '1. Add the migration\n2. Backfill\n3. Drop the old column',
      },
    ],
  }
}

const WIDE = { maxQuestions: 20 }

function question(overrides: Partial<Question> = {}): Question {
  return {
    id: 'db',
    prompt: 'Which database?',
    options: [
      { value: 'pg', label: 'PostgreSQL' },
      { value: 'mysql', label: 'MySQL' },
    ],
    defaults: ['pg'],
    ...overrides,
  }
}

async function accepts(input: unknown, limits?: Parameters<typeof validateQuestionSet>[1]) {
  const result = await validateQuestionSet(input, limits)
  return result.ok
}

async function issuesOf(input: unknown, limits?: Parameters<typeof validateQuestionSet>[1]) {
  const result = await validateQuestionSet(input, limits)
  if (result.ok) throw new Error('expected the set to be refused')
  return result.issues
}

async function issuesOfQuestions(...questions: unknown[]): Promise<QuestionIssue[]> {
  return issuesOf({ questions }, WIDE)
}

function at(issues: QuestionIssue[], path: string): QuestionIssue[] {
  return issues.filter((issue) => issue.path === path)
}

test.group('Validate | formatIssuePath', () => {
  test('{vinePath} -> {expected}')
    .with([
      { vinePath: 'questions.1.defaults.0', expected: 'questions[1].defaults[0]' },
      { vinePath: 'questions.0.options.12.label', expected: 'questions[0].options[12].label' },
      { vinePath: 'questions', expected: 'questions' },
      { vinePath: 'preamble', expected: 'preamble' },
      { vinePath: '', expected: '(root)' },
    ])
    .run(({ assert }, { vinePath, expected }) => {
      assert.equal(formatIssuePath(vinePath), expected)
    })
})

test.group('Validate | accepts', () => {
  test('a full set using every input type passes unchanged', async ({ assert }) => {
    const set = fullSet()
    const types = new Set(set.questions.map((q) => q.input?.type).filter(Boolean))
    assert.equal(types.size, 9, 'the fixture covers every input type')

    const result = await validateQuestionSet(set, WIDE)
    assert.deepEqual(result, { ok: true, value: fullSet() })
  })

  test('the smallest valid set passes with the default limits', async ({ assert }) => {
    const result = await validateQuestionSet({ questions: [question()] })
    assert.isTrue(result.ok)
  })

  test('harmless unknown keys are dropped, not refused', async ({ assert }) => {
    const result = await validateQuestionSet({
      note: 'extra',
      questions: [
        {
          ...question(),
          confidence: 0.9,
          options: [
            { value: 'pg', label: 'PostgreSQL', color: 'blue' },
            { value: 'mysql', label: 'MySQL' },
          ],
        },
      ],
    })
    assert.deepEqual(result, { ok: true, value: { questions: [question()] } })
  })

  test('null optional fields are dropped', async ({ assert }) => {
    const result = await validateQuestionSet({
      preamble: null,
      questions: [
        {
          ...question(),
          header: null,
          input: null,
          intent: null,
          options: [
            { value: 'pg', label: 'PostgreSQL', hotkey: null },
            { value: 'mysql', label: 'MySQL', hotkey: null },
          ],
        },
      ],
    })
    assert.deepEqual(result, { ok: true, value: { questions: [question()] } })
  })
})

test.group('Validate | structural rules', () => {
  test('the input must be an object', async ({ assert }) => {
    for (const input of ['text', 42, [], true]) {
      const issues = await issuesOf(input)
      assert.deepEqual(issues, [
        { path: '(root)', message: 'must be an object such as { "questions": [ … ] }' },
      ])
    }
    assert.deepEqual(await issuesOf(null), [
      { path: '(root)', message: 'is required: send { "questions": [ … ] }' },
    ])
  })

  test('questions is required and must be an array', async ({ assert }) => {
    const missing = await issuesOf({ preamble: 'hi' })
    assert.equal(missing[0].path, 'questions')
    assert.match(missing[0].message, /is required/)

    const notArray = await issuesOf({ questions: 'db?' })
    assert.deepEqual(notArray, [{ path: 'questions', message: 'must be an array of questions' }])
  })

  test('an empty set is refused: ask at least one question, or none at all', async ({ assert }) => {
    const issues = await issuesOf({ questions: [] })
    assert.lengthOf(issues, 1)
    assert.equal(issues[0].path, 'questions')
    assert.match(issues[0].message, /at least one question/)
    assert.match(issues[0].message, /do not call ask at all/)
  })

  test('at most maxQuestions questions per call', async ({ assert }) => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((id) => question({ id }))

    const issues = await issuesOf({ questions: five })
    assert.deepEqual(at(issues, 'questions').length, 1)
    assert.match(issues[0].message, /at most 4 questions/)

    assert.isTrue(await accepts({ questions: five.slice(0, 4) }))
    assert.isTrue(await accepts({ questions: five }, { maxQuestions: 5 }))
    const two = await issuesOf({ questions: five.slice(0, 3) }, { maxQuestions: 2 })
    assert.match(two[0].message, /at most 2 questions/)
  })

  test('options, when present, number minOptions..maxOptions', async ({ assert }) => {
    const one = await issuesOfQuestions(question({ options: [{ value: 'pg', label: 'PG' }] }))
    assert.equal(one[0].path, 'questions[0].options')
    assert.match(one[0].message, /2 to 6 options/)

    const seven = Array.from({ length: 7 }, (_, i) => ({ value: `v${i}`, label: `L${i}` }))
    const many = await issuesOfQuestions(question({ options: seven, defaults: ['v0'] }))
    assert.equal(many[0].path, 'questions[0].options')
    assert.match(many[0].message, /2 to 6 options/)

    assert.isTrue(
      await accepts({
        questions: [question({ options: seven.slice(0, 6), defaults: ['v0'] })],
      })
    )
    assert.isTrue(
      await accepts(
        { questions: [question({ options: seven, defaults: ['v0'] })] },
        { maxOptions: 7 }
      )
    )
    const three = await issuesOf({ questions: [question()] }, { minOptions: 3, maxOptions: 4 })
    assert.match(three[0].message, /3 to 4 options/)
  })

  test('prompt is at most maxPromptLength characters', async ({ assert }) => {
    const issues = await issuesOfQuestions(question({ prompt: 'x'.repeat(401) }))
    assert.deepEqual(at(issues, 'questions[0].prompt').length, 1)
    assert.match(issues[0].message, /at most 400 characters/)

    assert.isTrue(await accepts({ questions: [question({ prompt: 'x'.repeat(400) })] }))
    const short = await issuesOf(
      { questions: [question({ prompt: 'x'.repeat(51) })] },
      { maxPromptLength: 50 }
    )
    assert.match(short[0].message, /at most 50 characters/)
  })

  test('id, prompt, option value and label must not be empty', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      question({
        id: '',
        prompt: '',
        options: [
          { value: '', label: 'PostgreSQL' },
          { value: 'mysql', label: '' },
        ],
      })
    )
    assert.deepEqual(
      issues.map((issue) => issue.path),
      [
        'questions[0].id',
        'questions[0].prompt',
        'questions[0].options[0].value',
        'questions[0].options[1].label',
      ]
    )
    for (const issue of issues) assert.match(issue.message, /must not be empty/)
  })

  test('missing required fields are named with what to write', async ({ assert }) => {
    const issues = await issuesOfQuestions({ options: [{}, { value: 'a', label: 'A' }] })
    const paths = issues.map((issue) => issue.path)
    assert.includeMembers(paths, [
      'questions[0].id',
      'questions[0].prompt',
      'questions[0].defaults',
      'questions[0].options[0].value',
      'questions[0].options[0].label',
    ])
    assert.match(at(issues, 'questions[0].defaults')[0].message, /pre-pick what you would choose/)
  })

  test('wrong types are reported with bracket paths', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      { ...question(), id: 7, multiple: 'true', defaults: ['pg', 3] },
      'not a question'
    )
    assert.deepEqual(issues, [
      { path: 'questions[0].id', message: 'must be a string (text in double quotes)' },
      { path: 'questions[0].multiple', message: 'must be true or false, without quotes' },
      {
        path: 'questions[0].defaults[1]',
        message: 'must be a string: answers travel as strings, so write "42" or "true"',
      },
      { path: 'questions[1]', message: 'must be an object with id, prompt and defaults' },
    ])
  })

  test('defaults must be an array', async ({ assert }) => {
    const issues = await issuesOfQuestions(question({ defaults: 'pg' as unknown as string[] }))
    assert.deepEqual(issues, [
      { path: 'questions[0].defaults', message: 'must be an array of strings, such as ["pg"]' },
    ])
  })

  test('input.type must be one of the input types', async ({ assert }) => {
    const issues = await issuesOfQuestions({ ...question(), input: { type: 'color' } })
    assert.equal(issues[0].path, 'questions[0].input.type')
    assert.equal(
      issues[0].message,
      'must be one of select, text, number, integer, boolean, date, datetime, email, url'
    )
    const missing = await issuesOfQuestions({ ...question(), input: { placeholder: 'x' } })
    assert.equal(missing[0].path, 'questions[0].input.type')
    assert.match(missing[0].message, /is required: one of select/)
  })

  test('input.min and input.max must be numbers or strings', async ({ assert }) => {
    const issues = await issuesOfQuestions({
      ...question({ options: undefined, defaults: [] }),
      input: { type: 'integer', min: true, max: Number.POSITIVE_INFINITY },
    })
    assert.deepEqual(
      issues.map((issue) => issue.path),
      ['questions[0].input.min', 'questions[0].input.max'],
      'true is no bound, and neither is Infinity'
    )
    assert.match(issues[0].message, /must be a number/)
  })

  test('a hotkey is a single character', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      question({
        options: [
          { value: 'pg', label: 'PostgreSQL', hotkey: 'pg' },
          { value: 'mysql', label: 'MySQL', hotkey: 'm' },
        ],
      })
    )
    assert.deepEqual(issues, [
      {
        path: 'questions[0].options[0].hotkey',
        message: 'must be a single character, or left out',
      },
    ])
  })

  test('the only intent kind is plan-review', async ({ assert }) => {
    const issues = await issuesOfQuestions({
      ...question({ detail: 'the plan' }),
      intent: { kind: 'approval', approve: 'PostgreSQL' },
    })
    assert.deepEqual(issues, [
      {
        path: 'questions[0].intent.kind',
        message: 'must be "plan-review", the only intent there is',
      },
    ])
  })

  test('the semantic rules wait until the shapes hold', async ({ assert }) => {
    const issues = await issuesOfQuestions(question(), question({ prompt: '' }))
    assert.deepEqual(
      issues.map((issue) => issue.path),
      ['questions[1].prompt'],
      'the duplicate id is not reported before the shape is fixed'
    )
  })
})

test.group('Validate | uniqueness', () => {
  test('question ids are unique', async ({ assert }) => {
    const issues = await issuesOfQuestions(question(), question({ id: 'other' }), question())
    assert.deepEqual(issues, [
      {
        path: 'questions[2].id',
        message: '"db" is already the id of questions[0]; give each question its own id',
      },
    ])
  })

  test('option values are unique within a question', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      question({
        options: [
          { value: 'pg', label: 'PostgreSQL' },
          { value: 'pg', label: 'Postgres 17' },
        ],
      })
    )
    assert.deepEqual(issues, [
      {
        path: 'questions[0].options[1].value',
        message: '"pg" is already the value of options[0]; give each option its own value',
      },
    ])
    assert.isTrue(
      await accepts({ questions: [question(), question({ id: 'db2' })] }),
      'the same values in two questions are fine'
    )
  })

  test('hotkeys are unique within a question, ignoring case', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      question({
        options: [
          { value: 'pg', label: 'PostgreSQL', hotkey: 'p' },
          { value: 'mysql', label: 'MySQL', hotkey: 'P' },
          { value: 'sqlite', label: 'SQLite' },
        ],
      })
    )
    assert.deepEqual(issues, [
      {
        path: 'questions[0].options[1].hotkey',
        message: '"P" is already the hotkey of options[0]; pick another key or leave hotkey out',
      },
    ])
  })
})

test.group('Validate | defaults of option questions', () => {
  test('an option question must pre-pick', async ({ assert }) => {
    const issues = await issuesOfQuestions(question({ defaults: [] }))
    assert.deepEqual(issues, [
      {
        path: 'questions[0].defaults',
        message:
          "must pre-pick what you would choose: name one of this question's option values (pg, mysql)",
      },
    ])
  })

  test('defaults must name option values, with the path and the fix', async ({ assert }) => {
    const issues = await issuesOfQuestions(question({ id: 'a' }), question({ defaults: ['mongo'] }))
    assert.lengthOf(issues, 1)
    assert.equal(issues[0].path, 'questions[1].defaults')
    assert.include(
      formatIssuesForModel(issues),
      "questions[1].defaults: must name values of this question's options (pg, mysql)"
    )
    assert.include(issues[0].message, '"mongo" is not one of them')
  })

  test('a label used as a default gets a hint to use its value', async ({ assert }) => {
    const issues = await issuesOfQuestions(question({ defaults: ['PostgreSQL'] }))
    assert.include(issues[0].message, '"PostgreSQL" is a label, use its value "pg"')
  })

  test('a single-choice question names one default at most', async ({ assert }) => {
    const issues = await issuesOfQuestions(question({ defaults: ['pg', 'mysql'] }))
    assert.deepEqual(issues, [
      {
        path: 'questions[0].defaults',
        message:
          'names 2 defaults but this question takes one answer: keep the one you would choose, or set "multiple": true',
      },
    ])
    assert.isTrue(
      await accepts({
        questions: [question({ defaults: ['pg', 'mysql'], multiple: true })],
      })
    )
    const explicit = await issuesOfQuestions(
      question({ defaults: ['pg', 'mysql'], multiple: false })
    )
    assert.lengthOf(explicit, 1)
  })

  test('with free text, a default off the options must pass the typed rules', async ({
    assert,
  }) => {
    const typed = { allowFreeText: true, input: { type: 'integer' as const, min: 1 } }
    assert.isTrue(await accepts({ questions: [question({ ...typed, defaults: ['5'] })] }))
    assert.isTrue(
      await accepts({
        questions: [question({ allowFreeText: true, defaults: ['mongo'] })],
      })
    )

    const issues = await issuesOfQuestions(question({ ...typed, defaults: ['0'] }))
    assert.deepEqual(issues, [
      {
        path: 'questions[0].defaults',
        message:
          'default "0" is neither one of this question\'s option values (pg, mysql) nor acceptable free text (value must be at least 1); fix it',
      },
    ])
  })
})

test.group('Validate | typed questions', () => {
  test('a typed question may pre-pick nothing', async ({ assert }) => {
    const result = await validateQuestionSet({
      questions: [{ id: 'port', prompt: 'Port?', input: { type: 'integer' }, defaults: [] }],
    })
    assert.isTrue(result.ok)
  })

  test('what a typed question pre-picks must pass its rules: {type}')
    .with([
      { input: { type: 'integer' as const }, bad: 'abc', good: '42' },
      { input: { type: 'integer' as const, min: 1, max: 10 }, bad: '11', good: '10' },
      { input: { type: 'number' as const }, bad: 'many', good: '1.5' },
      { input: { type: 'boolean' as const }, bad: 'yes', good: 'false' },
      { input: { type: 'date' as const }, bad: '2026-02-30', good: '2026-02-28' },
      { input: { type: 'datetime' as const }, bad: '2026-02-01', good: '2026-02-01T10:00' },
      { input: { type: 'email' as const }, bad: 'nobody', good: 'a@b.io' },
      { input: { type: 'url' as const }, bad: 'example', good: 'https://example.com' },
      { input: { type: 'text' as const, max: 3 }, bad: 'abcd', good: 'abc' },
      { input: { type: 'text' as const, pattern: '^v\\d+$' }, bad: 'x1', good: 'v1' },
    ])
    .run(async ({ assert }, { input, bad, good }) => {
      const make = (value: string) => ({
        questions: [{ id: 'q', prompt: 'Value?', input, defaults: [value] }],
      })
      assert.isTrue(await accepts(make(good)))
      const issues = await issuesOf(make(bad))
      assert.lengthOf(issues, 1)
      assert.equal(issues[0].path, 'questions[0].defaults')
      assert.match(
        issues[0].message,
        new RegExp(`^default "${bad}" .+; fix it or leave defaults empty$`)
      )
    })

  test('a free-text question (neither options nor input) is allowed', async ({ assert }) => {
    const result = await validateQuestionSet({
      questions: [{ id: 'notes', prompt: 'Anything else?', defaults: ['Nothing'] }],
    })
    assert.isTrue(result.ok)
    const issues = await issuesOfQuestions({
      id: 'notes',
      prompt: 'Anything else?',
      defaults: [' '],
    })
    assert.deepEqual(issues, [
      {
        path: 'questions[0].defaults',
        message: 'default " " must not be empty; fix it or leave defaults empty',
      },
    ])
  })

  test('a "select" input needs options', async ({ assert }) => {
    const issues = await issuesOfQuestions({
      id: 'q',
      prompt: 'Pick',
      input: { type: 'select' },
      defaults: [],
    })
    assert.equal(issues[0].path, 'questions[0].input.type')
    assert.match(issues[0].message, /"select" needs options/)
  })

  test('pattern must compile as a unicode RegExp', async ({ assert }) => {
    const issues = await issuesOfQuestions({
      id: 'q',
      prompt: 'Name?',
      input: { type: 'text', pattern: '([a-z]' },
      defaults: ['abc'],
    })
    assert.lengthOf(issues, 1, 'defaults are not checked against a broken pattern')
    assert.equal(issues[0].path, 'questions[0].input.pattern')
    assert.match(issues[0].message, /not a valid regular expression/)

    const unicodeOnly = await issuesOfQuestions({
      id: 'q',
      prompt: 'Name?',
      input: { type: 'text', pattern: '\\-' },
      defaults: [],
    })
    assert.equal(unicodeOnly[0].path, 'questions[0].input.pattern', 'compiled with the u flag')
  })

  test('min must not exceed max', async ({ assert }) => {
    const cases = [
      { type: 'integer' as const, min: 10, max: 1 },
      { type: 'text' as const, min: 5, max: 2 },
      { type: 'date' as const, min: '2026-12-31', max: '2026-01-01' },
      { type: 'datetime' as const, min: '2026-01-02T00:00:00Z', max: '2026-01-01T23:00:00Z' },
    ]
    for (const input of cases) {
      const issues = await issuesOfQuestions({ id: 'q', prompt: 'Value?', input, defaults: [] })
      assert.deepEqual(
        issues.map((issue) => issue.path),
        ['questions[0].input.min'],
        input.type
      )
      assert.match(issues[0].message, /must not be greater than max/)
    }
    const equal = await validateQuestionSet({
      questions: [
        { id: 'q', prompt: 'Value?', input: { type: 'integer', min: 3, max: 3 }, defaults: [] },
      ],
    })
    assert.isTrue(equal.ok)
  })

  test('date and datetime bounds must be valid date strings', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      {
        id: 'a',
        prompt: 'When?',
        input: { type: 'date', min: '2026-02-30', max: 20260101 },
        defaults: [],
      },
      { id: 'b', prompt: 'When?', input: { type: 'datetime', min: 'tomorrow' }, defaults: [] }
    )
    assert.deepEqual(issues, [
      {
        path: 'questions[0].input.min',
        message: 'must be a date written YYYY-MM-DD for a date input; "2026-02-30" is not',
      },
      {
        path: 'questions[0].input.max',
        message: 'must be a date written YYYY-MM-DD for a date input; 20260101 is not',
      },
      {
        path: 'questions[1].input.min',
        message:
          'must be a date and time written YYYY-MM-DDTHH:mm for a datetime input; "tomorrow" is not',
      },
    ])
  })

  test('number and length bounds must be numbers', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      { id: 'a', prompt: 'How many?', input: { type: 'integer', min: '1' }, defaults: [] },
      { id: 'b', prompt: 'Name?', input: { type: 'text', max: '2026-01-01' }, defaults: [] }
    )
    assert.deepEqual(issues, [
      {
        path: 'questions[0].input.min',
        message: 'must be a number (the least value) for an integer input, such as 1, not "1"',
      },
      {
        path: 'questions[1].input.max',
        message:
          'must be a number (the greatest length) for a text input, such as 1, not "2026-01-01"',
      },
    ])
  })

  test('bounds on boolean and select inputs are harmless and left alone', async ({ assert }) => {
    const result = await validateQuestionSet({
      questions: [
        {
          id: 'a',
          prompt: 'Seed?',
          input: { type: 'boolean', min: 'x', max: 1 },
          defaults: ['true'],
        },
        { ...question({ id: 'b' }), input: { type: 'select', min: 9, max: 1 } },
      ],
    })
    assert.isTrue(result.ok)
  })
})

test.group('Validate | plan-review intent', () => {
  const plan = (overrides: Partial<Question> = {}) =>
    question({
      id: 'plan',
      options: [
        { value: 'yes', label: 'Approve plan' },
        { value: 'no', label: 'Revise' },
      ],
      defaults: ['yes'],
      intent: { kind: 'plan-review', approve: 'Approve plan' },
      detail: '1. Migrate\n2. Backfill',
      ...overrides,
    })

  test('accepted when approve is an option label and detail holds the plan', async ({ assert }) => {
    assert.isTrue(await accepts({ questions: [plan()] }))
  })

  test('refused when approve names a value, not a label', async ({ assert }) => {
    const issues = await issuesOfQuestions(
      plan({ intent: { kind: 'plan-review', approve: 'yes' } })
    )
    assert.lengthOf(issues, 1)
    assert.equal(issues[0].path, 'questions[0].intent')
    assert.include(issues[0].message, "LABEL of one of this question's options")
    assert.include(issues[0].message, 'detail')
    assert.include(issues[0].message, '"yes" is not one of the labels "Approve plan", "Revise"')
  })

  test('refused when detail is missing or blank', async ({ assert }) => {
    for (const detail of [undefined, '', '   ']) {
      const issues = await issuesOfQuestions(plan({ detail }))
      assert.lengthOf(issues, 1)
      assert.equal(issues[0].path, 'questions[0].intent')
      assert.include(issues[0].message, 'detail is missing or empty')
      assert.include(issues[0].message, 'intent.approve equal to the LABEL')
    }
  })

  test('refused when the question has no options', async ({ assert }) => {
    const issues = await issuesOfQuestions({
      id: 'plan',
      prompt: 'OK?',
      defaults: [],
      detail: 'the plan',
      intent: { kind: 'plan-review', approve: 'Approve' },
    })
    assert.equal(issues[0].path, 'questions[0].intent')
    assert.include(issues[0].message, 'this question has no options')
  })
})

test.group('Validate | assertQuestionSet and the validator', () => {
  test('returns the validated set', async ({ assert }) => {
    const set = await assertQuestionSet({ questions: [question()], extra: true })
    assert.deepEqual(set, { questions: [question()] })
  })

  test('throws InvalidQuestionSetException carrying the issues', async ({ assert }) => {
    try {
      await assertQuestionSet({ questions: [question({ defaults: ['mongo'] })] })
      assert.fail('expected a throw')
    } catch (error) {
      assert.instanceOf(error, InvalidQuestionSetException)
      const issues = (error as InvalidQuestionSetException).issues
      assert.equal(issues[0].path, 'questions[0].defaults')
      assert.equal((error as InvalidQuestionSetException).code, 'E_INVALID_QUESTION_SET')
      assert.include((error as Error).message, 'questions[0].defaults: must name values')
    }
  })

  test('throws E_EMPTY_QUESTION_SET for a set with no question', async ({ assert }) => {
    for (const input of [{ questions: [] }, { preamble: 'Nothing to ask', questions: [] }]) {
      try {
        await assertQuestionSet(input)
        assert.fail('expected a throw')
      } catch (error) {
        assert.instanceOf(error, E_EMPTY_QUESTION_SET)
        assert.equal(
          (error as InstanceType<typeof E_EMPTY_QUESTION_SET>).code,
          'E_EMPTY_QUESTION_SET'
        )
        assert.equal((error as InstanceType<typeof E_EMPTY_QUESTION_SET>).status, 400)
      }
    }
    // A missing or malformed questions field is a shape problem, not an empty set
    await assert.rejects(() => assertQuestionSet({}), InvalidQuestionSetException)
    await assert.rejects(() => assertQuestionSet(null), InvalidQuestionSetException)
  })

  test('throws E_BAD_INTENT when a plan review is the only problem', async ({ assert }) => {
    const review = question({
      options: [
        { value: 'yes', label: 'Approve plan' },
        { value: 'no', label: 'Revise' },
      ],
      defaults: ['yes'],
      intent: { kind: 'plan-review', approve: 'yes' },
    })
    try {
      await assertQuestionSet({ questions: [question({ id: 'other' }), review] })
      assert.fail('expected a throw')
    } catch (error) {
      assert.instanceOf(error, E_BAD_INTENT)
      const badIntent = error as InstanceType<typeof E_BAD_INTENT>
      assert.equal(badIntent.code, 'E_BAD_INTENT')
      assert.equal(badIntent.status, 400)
      assert.include(badIntent.message, 'questions[1].intent: a plan review needs')
      assert.include(badIntent.message, '"yes" is not one of the labels "Approve plan", "Revise"')
      assert.include(badIntent.message, 'detail is missing or empty')
    }
  })

  test('a bad intent among other problems throws InvalidQuestionSetException with all of them', async ({
    assert,
  }) => {
    const review = question({
      defaults: ['mongo'],
      detail: 'the plan',
      intent: { kind: 'plan-review', approve: 'Approve' },
    })
    try {
      await assertQuestionSet({ questions: [review] })
      assert.fail('expected a throw')
    } catch (error) {
      assert.instanceOf(error, InvalidQuestionSetException)
      const paths = (error as InvalidQuestionSetException).issues.map((issue) => issue.path)
      assert.sameMembers(paths, ['questions[0].defaults', 'questions[0].intent'])
    }
  })

  test('the model-facing validation still returns the issues instead of throwing', async ({
    assert,
  }) => {
    assert.deepEqual(await issuesOf({ questions: [] }), [
      {
        path: 'questions',
        message:
          'must hold at least one question: ask at least one question, or do not call ask at all',
      },
    ])
    const issues = await issuesOfQuestions(
      question({ detail: 'the plan', intent: { kind: 'plan-review', approve: 'Approve' } })
    )
    assert.equal(issues[0].path, 'questions[0].intent')
  })

  test('assertQuestionSet honours the limits', async ({ assert }) => {
    const three = ['a', 'b', 'c'].map((id) => question({ id }))
    await assert.rejects(() => assertQuestionSet({ questions: three }, { maxQuestions: 2 }))
    const set = await assertQuestionSet({ questions: three })
    assert.lengthOf(set.questions, 3)
  })

  test('the validator is compiled once per distinct limits', ({ assert }) => {
    const a = questionSetValidator(resolveLimits())
    assert.strictEqual(questionSetValidator(resolveLimits()), a)
    assert.notStrictEqual(questionSetValidator(resolveLimits({ maxQuestions: 9 })), a)
  })

  test('semanticIssues finds nothing in a sound set', ({ assert }) => {
    assert.deepEqual(semanticIssues(fullSet()), [])
  })
})
