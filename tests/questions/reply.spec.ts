/*
 * Replies: shape checks with Vine, fitting a reply to its wait
 * (docs/design.md §6.2, §6.3) and the strict check of human answers behind the inbox's 422.
 */

import { test } from '@japa/runner'
import { InvalidReplyException, ReplyMismatchException } from '../../src/errors.ts'
import {
  checkAnswers,
  isBlankValue,
  isFreeTextValue,
  MAX_REPLY_BYTES,
  normalizeReply,
  parseReply,
  replyFieldPath,
} from '../../src/questions/reply.ts'
import type {
  AnswersReply,
  Question,
  QuestionIssue,
  QuestionSet,
} from '../../src/questions/types.ts'

const db: Question = {
  id: 'db',
  prompt: 'Which database?',
  options: [
    { value: 'pg', label: 'PostgreSQL' },
    { value: 'sqlite', label: 'SQLite' },
  ],
  defaults: ['pg'],
}

const extras: Question = {
  id: 'extras',
  prompt: 'Which extras?',
  multiple: true,
  options: [
    { value: 'auth', label: 'Auth' },
    { value: 'mail', label: 'Mail' },
  ],
  defaults: [],
}

const replicas: Question = {
  id: 'replicas',
  prompt: 'How many replicas?',
  input: { type: 'integer', min: 1, max: 5, required: true },
  defaults: [],
}

const notes: Question = { id: 'notes', prompt: 'Anything else?', defaults: [] }

const set: QuestionSet = { questions: [db, extras, replicas, notes] }

async function issuesOf(input: unknown, limits?: { maxFreeTextLength: number }) {
  try {
    await parseReply(input, limits)
  } catch (error) {
    if (error instanceof InvalidReplyException) return error.errors
    throw error
  }
  throw new Error('parseReply accepted the reply')
}

function paths(issues: QuestionIssue[]) {
  return issues.map((issue) => issue.path)
}

test.group('Reply | parseReply', () => {
  test('answers pass with lists of strings', async ({ assert }) => {
    const reply = await parseReply({ answers: { db: ['pg'], extras: ['auth', 'mail'] } })
    assert.deepEqual(reply, { answers: { db: ['pg'], extras: ['auth', 'mail'] } })
  })

  test('an answer sent as a single string becomes a one-value list', async ({ assert }) => {
    const reply = await parseReply({ answers: { db: 'pg' }, skip: false })
    assert.deepEqual(reply, { answers: { db: ['pg'] }, skip: false })
  })

  test('a skip may leave the answers out', async ({ assert }) => {
    assert.deepEqual(await parseReply({ skip: true }), { answers: {}, skip: true })
  })

  test('answers are required when not skipping and not deciding', async ({ assert }) => {
    assert.deepEqual(paths(await issuesOf({})), ['answers'])
    assert.deepEqual(paths(await issuesOf({ skip: false })), ['answers'])
  })

  test('a reply that is not an object is refused', async ({ assert }) => {
    for (const input of [null, 'yes', 42, ['pg']]) {
      assert.deepEqual(paths(await issuesOf(input)), ['reply'])
    }
  })

  test('a wrong answer shape names its path', async ({ assert }) => {
    const issues = await issuesOf({ answers: { db: 5 } })
    assert.deepEqual(issues, [
      {
        path: 'answers.db',
        message: 'must be a string or a list of strings',
        rule: 'unionOfTypes',
      },
    ])

    const nested = await issuesOf({ answers: { extras: ['auth', 3] } })
    assert.deepEqual(nested, [
      { path: 'answers.extras.1', message: 'must be a string', rule: 'string' },
    ])

    assert.deepEqual(paths(await issuesOf({ answers: 'pg' })), ['answers'])
  })

  test('a decision passes with reason and edited input', async ({ assert }) => {
    assert.deepEqual(await parseReply({ approved: true }), { approved: true })
    const reply = await parseReply({
      approved: true,
      reason: 'Fine',
      editedInput: { branch: 'main' },
    })
    assert.deepEqual(reply, { approved: true, reason: 'Fine', editedInput: { branch: 'main' } })
  })

  test('approved must be a boolean', async ({ assert }) => {
    const issues = await issuesOf({ approved: 'maybe' })
    assert.deepEqual(issues, [
      { path: 'approved', message: 'must be true or false', rule: 'boolean' },
    ])
  })

  test('the reason is bounded by maxFreeTextLength', async ({ assert }) => {
    const issues = await issuesOf({ approved: false, reason: 'too long' }, { maxFreeTextLength: 5 })
    // Vine's rule and what it was given travel with the issue, for a 422 and its translation
    assert.deepEqual(issues, [
      {
        path: 'reason',
        message: 'must be at most 5 characters',
        rule: 'maxLength',
        meta: { max: 5 },
      },
    ])

    assert.deepEqual(paths(await issuesOf({ approved: false, reason: 'x'.repeat(2001) })), [
      'reason',
    ])
    const atLimit = await parseReply({ approved: false, reason: 'x'.repeat(2000) })
    assert.equal((atLimit as { reason: string }).reason.length, 2000)
  })

  test('answers and a decision together are refused', async ({ assert }) => {
    assert.deepEqual(paths(await issuesOf({ approved: true, answers: { db: ['pg'] } })), [
      'approved',
    ])
    assert.deepEqual(paths(await issuesOf({ approved: false, skip: true })), ['approved'])
  })

  test('the exception carries status 422 and code E_INVALID_REPLY', async ({ assert }) => {
    try {
      await parseReply({ approved: 'x' })
      assert.fail('parseReply accepted the reply')
    } catch (error) {
      assert.instanceOf(error, InvalidReplyException)
      assert.equal((error as InvalidReplyException).status, 422)
      assert.equal((error as InvalidReplyException).code, 'E_INVALID_REPLY')
    }
  })
})

test.group('Reply | strict, since it is stored as sent', () => {
  test('{label} is refused: booleans are JSON booleans')
    .with([
      { reply: { approved: 'on' }, path: 'approved', label: 'approved: "on"' },
      { reply: { approved: '1' }, path: 'approved', label: 'approved: "1"' },
      { reply: { approved: 1 }, path: 'approved', label: 'approved: 1' },
      { reply: { approved: 'true' }, path: 'approved', label: 'approved: "true"' },
      { reply: { skip: 1 }, path: 'skip', label: 'skip: 1' },
      { reply: { skip: 'true' }, path: 'skip', label: 'skip: "true"' },
    ])
    .run(async ({ assert }, { reply, path }) => {
      assert.deepEqual(await issuesOf(reply), [
        { path, message: 'must be true or false', rule: 'boolean' },
      ])
    })

  test('null edited args are refused, not read as the args shown', async ({ assert }) => {
    for (const editedInput of [null, 'main', 3, ['main']]) {
      assert.deepEqual(paths(await issuesOf({ approved: true, editedInput })), ['editedInput'])
    }
    const [issue] = await issuesOf({ approved: true, editedInput: null })
    assert.include(issue.message, 'leave it out to approve them as shown')
  })

  test('fields no reply has are refused by name', async ({ assert }) => {
    const skip = await issuesOf({ skip: true, junk: 'x', note: 'y' })
    assert.deepEqual(paths(skip), ['junk', 'note'])
    assert.include(skip[0].message, 'is not a field of a reply')
    const decision = await issuesOf({ approved: true, answers: undefined, force: true })
    assert.deepEqual(decision, [
      {
        path: 'force',
        rule: 'unknownField',
        message: 'is not a field of a decision: send approved, and reason or editedInput',
      },
    ])
    // Ten names at most, however many were sent
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`k${index}`, 1]))
    assert.lengthOf(await issuesOf({ skip: true, ...many }), 10)
  })

  test('a reply nested too deeply to serialize is refused, not thrown', async ({ assert }) => {
    let deep: unknown = []
    for (let depth = 0; depth < 20_000; depth++) deep = [deep]
    const issues = await issuesOf({ approved: true, editedInput: { items: deep } })
    assert.deepEqual(paths(issues), ['reply'])
    assert.include(issues[0].message, 'nested')
  })

  test('a reply over 64 KB is refused before it is read', async ({ assert }) => {
    const heavy = { answers: { notes: ['x'.repeat(MAX_REPLY_BYTES)] } }
    assert.deepEqual(await issuesOf(heavy), [
      {
        path: 'reply',
        message: 'is 65 KB; a reply may be at most 64 KB',
        rule: 'maxSize',
        meta: { size: 65, max: 64 },
      },
    ])
    const junk = await issuesOf({ skip: true, junk: 'x'.repeat(900 * 1024) })
    assert.deepEqual(paths(junk), ['reply'])
    const within = await parseReply({ answers: { notes: ['x'.repeat(MAX_REPLY_BYTES - 100)] } })
    assert.lengthOf((within as AnswersReply).answers.notes[0], MAX_REPLY_BYTES - 100)
  })
})

test.group('Reply | field paths', () => {
  test('{path} -> {expected}')
    .with([
      { path: 'editedInput.(root)', expected: 'editedInput' },
      { path: 'editedInput.branch', expected: 'editedInput.branch' },
      { path: 'editedInput.items[0]', expected: 'editedInput.items.0' },
      { path: 'editedInput.a[1][2].b', expected: 'editedInput.a.1.2.b' },
      { path: 'answers.amount.0', expected: 'answers.amount.0' },
    ])
    .run(({ assert }, { path, expected }) => {
      assert.equal(replyFieldPath(path), expected)
    })
})

test.group('Reply | normalizeReply', () => {
  test('approve sent to a question set accepts all defaults', ({ assert }) => {
    assert.deepEqual(normalizeReply({ approved: true }, 'question'), { answers: {}, skip: false })
  })

  test('reject sent to a question set skips', ({ assert }) => {
    assert.deepEqual(normalizeReply({ approved: false, reason: 'no' }, 'question'), {
      answers: {},
      skip: true,
    })
  })

  test('answers sent to an approval are a mismatch, not a rejection', ({ assert }) => {
    const replies: AnswersReply[] = [{ answers: { db: ['pg'] } }, { answers: {}, skip: true }]
    for (const reply of replies) {
      try {
        const result = normalizeReply(reply, 'approval')
        assert.fail(`read as ${JSON.stringify(result)}`)
      } catch (error) {
        assert.instanceOf(error, ReplyMismatchException)
        assert.equal((error as ReplyMismatchException).expected, 'decision')
        assert.equal((error as ReplyMismatchException).code, 'E_REPLY_MISMATCH')
      }
    }
  })

  test('a reply matching its wait is returned as is', ({ assert }) => {
    const answers = { answers: { db: ['sqlite'] } }
    const decision = { approved: false, reason: 'Not today' }
    assert.strictEqual(normalizeReply(answers, 'question'), answers)
    assert.strictEqual(normalizeReply(decision, 'approval'), decision)
  })
})

test.group('Reply | checkAnswers', () => {
  test('valid answers yield no issue', ({ assert }) => {
    const reply = { answers: { db: ['sqlite'], extras: ['auth', 'mail'], replicas: ['3'] } }
    assert.deepEqual(checkAnswers(set, reply), [])
  })

  test('an unknown question id is an issue', ({ assert }) => {
    const issues = checkAnswers(set, { answers: { replicas: ['2'], cache: ['redis'] } })
    assert.deepEqual(issues, [
      { path: 'answers.cache', rule: 'unknownQuestion', message: 'is not a question of this set' },
    ])
  })

  test('a value the question does not take names its index and the rule', ({ assert }) => {
    const issues = checkAnswers(set, { answers: { extras: ['auth', 'sms'], replicas: ['9'] } })
    assert.deepEqual(issues, [
      {
        path: 'answers.extras.1',
        rule: 'value',
        message: 'is not one of the options (auth, mail)',
      },
      { path: 'answers.replicas.0', rule: 'value', message: 'value must be at most 5' },
    ])
  })

  test('a single-choice question takes one value only', ({ assert }) => {
    const issues = checkAnswers(set, { answers: { db: ['pg', 'sqlite'], replicas: ['1'] } })
    assert.deepEqual(issues, [
      { path: 'answers.db', rule: 'singleChoice', message: 'takes one value only' },
    ])
    assert.deepEqual(checkAnswers(set, { answers: { db: ['pg', 'pg'], replicas: ['1'] } }), [])
  })

  test('a required typed question needs an answer when it has no default', ({ assert }) => {
    assert.deepEqual(checkAnswers(set, { answers: {} }), [
      { path: 'answers.replicas', rule: 'required', message: 'is required' },
    ])
    const withDefault: QuestionSet = { questions: [{ ...replicas, defaults: ['2'] }] }
    assert.deepEqual(checkAnswers(withDefault, { answers: {} }), [])
    const badDefault: QuestionSet = { questions: [{ ...replicas, defaults: ['0'] }] }
    assert.deepEqual(paths(checkAnswers(badDefault, { answers: {} })), ['answers.replicas'])
  })

  test('blank values count as no answer and keep the indexes of the others', ({ assert }) => {
    const issues = checkAnswers(set, { answers: { extras: ['', 'sms'], replicas: ['  ', '2'] } })
    assert.deepEqual(issues, [
      {
        path: 'answers.extras.1',
        rule: 'value',
        message: 'is not one of the options (auth, mail)',
      },
    ])
    assert.deepEqual(paths(checkAnswers(set, { answers: { replicas: [''] } })), [
      'answers.replicas',
    ])
  })

  test('long free text is not an issue (it is clamped when settled)', ({ assert }) => {
    const reply = { answers: { notes: ['x'.repeat(5000)], replicas: ['1'] } }
    assert.deepEqual(checkAnswers(set, reply, { maxFreeTextLength: 10 }), [])
  })

  test('a skip ignores the answers', ({ assert }) => {
    assert.deepEqual(
      checkAnswers(set, { answers: { db: ['mongo'], cache: ['x'] }, skip: true }),
      []
    )
  })
})

test.group('Reply | value kinds', () => {
  test('free text is a non-option value with allowFreeText, or any text value', ({ assert }) => {
    const open = { ...db, allowFreeText: true }
    assert.isTrue(isFreeTextValue(open, 'cockroach'))
    assert.isFalse(isFreeTextValue(open, 'pg'))
    assert.isTrue(isFreeTextValue(notes, 'hello'))
    assert.isFalse(isFreeTextValue(replicas, '3'))
    assert.isFalse(isFreeTextValue({ ...notes, input: { type: 'email' } }, 'a@b.co'))
  })

  test('blank values are empty or whitespace strings, or not strings', ({ assert }) => {
    assert.isTrue(isBlankValue(''))
    assert.isTrue(isBlankValue(' \n'))
    assert.isTrue(isBlankValue(3))
    assert.isFalse(isBlankValue('0'))
  })
})
