/*
 * Settling (docs/design.md §6): every rule has a test that
 * fails when the rule breaks.
 */

import { test } from '@japa/runner'
import { ReplyMismatchException } from '../../src/errors.ts'
import { describeOutcome } from '../../src/questions/model_text.ts'
import {
  EXPIRED_REASON,
  settleDecision,
  settleExpired,
  settleQuestionSet,
  settleReply,
  TRUNCATION_MARK,
  type SettleContext,
} from '../../src/questions/settle.ts'
import type {
  DecisionOutcome,
  Question,
  QuestionOutcome,
  QuestionSet,
} from '../../src/questions/types.ts'

const db: Question = {
  id: 'db',
  prompt: 'Which database?',
  options: [
    { value: 'pg', label: 'PostgreSQL' },
    { value: 'sqlite', label: 'SQLite' },
    { value: 'mysql', label: 'MySQL' },
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
    { value: 'queue', label: 'Queue' },
  ],
  defaults: ['auth', 'mail'],
}

const replicas: Question = {
  id: 'replicas',
  prompt: 'How many replicas?',
  input: { type: 'integer', min: 1, max: 5 },
  defaults: ['2'],
}

const notes: Question = { id: 'notes', prompt: 'Anything else?', defaults: [] }

const set: QuestionSet = { questions: [db, extras, replicas, notes] }

const ctx: SettleContext = { answeredBy: 'user:1', answeredVia: 'web' }

function question(outcome: QuestionOutcome, id: string) {
  const found = outcome.questions.find((item) => item.id === id)
  if (!found) throw new Error(`no question ${id}`)
  return found
}

function settle(answers: Record<string, string[]>, skip?: boolean) {
  return settleQuestionSet(set, { answers, skip }, ctx)
}

function asAnswers(outcome: unknown) {
  return outcome as QuestionOutcome
}

function asDecision(outcome: unknown) {
  return outcome as DecisionOutcome
}

test.group('Settle | question sets', () => {
  test('unanswered questions take their defaults and are listed as defaulted', ({ assert }) => {
    const outcome = settle({ db: ['sqlite'] })
    assert.deepEqual(outcome.answers, {
      db: ['sqlite'],
      extras: ['auth', 'mail'],
      replicas: ['2'],
      notes: [],
    })
    assert.deepEqual(outcome.defaulted, ['extras', 'replicas', 'notes'])
    assert.equal(question(outcome, 'db').source, 'answered')
    assert.equal(question(outcome, 'extras').source, 'defaulted')
    assert.isFalse(outcome.skipped)
    assert.isFalse(outcome.expired)
  })

  test('an empty answer list takes the defaults', ({ assert }) => {
    const outcome = settle({ db: [], extras: ['', '  '] })
    assert.deepEqual(outcome.answers.db, ['pg'])
    assert.deepEqual(outcome.answers.extras, ['auth', 'mail'])
    assert.includeMembers(outcome.defaulted, ['db', 'extras'])
    assert.deepEqual(question(outcome, 'extras').dropped, [])
  })

  test('values not on offer are dropped, never guessed', ({ assert }) => {
    const outcome = settle({ db: ['Pg'], extras: ['auth', 'sms'] })
    assert.deepEqual(outcome.answers.db, ['pg'], 'db fell back to its default, not to a guess')
    assert.equal(question(outcome, 'db').source, 'defaulted')
    assert.deepEqual(question(outcome, 'db').dropped, ['Pg'])
    assert.deepEqual(outcome.answers.extras, ['auth'])
    assert.deepEqual(question(outcome, 'extras').dropped, ['sms'])
    assert.equal(question(outcome, 'extras').source, 'answered')
  })

  test('values failing a typed rule are dropped', ({ assert }) => {
    const outcome = settle({ replicas: ['9'] })
    assert.deepEqual(outcome.answers.replicas, ['2'])
    assert.deepEqual(question(outcome, 'replicas').dropped, ['9'])
    assert.deepEqual(settle({ replicas: ['4'] }).answers.replicas, ['4'])
  })

  test('a single-choice question keeps its first valid value', ({ assert }) => {
    const outcome = settle({ db: ['mongo', 'sqlite', 'mysql'] })
    assert.deepEqual(outcome.answers.db, ['sqlite'])
    assert.deepEqual(question(outcome, 'db').dropped, ['mongo', 'mysql'])
  })

  test('a multiple-choice question keeps every valid value once', ({ assert }) => {
    const outcome = settle({ extras: ['queue', 'auth', 'queue'] })
    assert.deepEqual(outcome.answers.extras, ['queue', 'auth'])
  })

  test('defaults go through the same rules', ({ assert }) => {
    const bad: QuestionSet = {
      questions: [
        { ...db, defaults: ['mongo', 'sqlite', 'mysql'] },
        { ...extras, id: 'open', allowFreeText: true, defaults: ['sms', 'mail', 'push'] },
        { ...replicas, defaults: ['0'] },
      ],
    }
    const outcome = settleQuestionSet(bad, { answers: {} }, ctx)
    assert.deepEqual(outcome.answers, { db: ['sqlite'], open: ['mail', 'sms'], replicas: [] })
    assert.deepEqual(question(outcome, 'db').dropped, ['mongo', 'mysql'])
    assert.deepEqual(question(outcome, 'open').dropped, ['push'])
    assert.deepEqual(question(outcome, 'replicas').dropped, ['0'])
  })

  test('a free-text default holds where free text is allowed', ({ assert }) => {
    const tz: QuestionSet = {
      questions: [{ ...db, id: 'tz', allowFreeText: true, defaults: ['Europe/Lisbon'] }],
    }
    for (const outcome of [
      settleQuestionSet(tz, { answers: {} }, ctx),
      settleQuestionSet(tz, { answers: {}, skip: true }, ctx),
      settleExpired({ kind: 'question', set: tz }, 'defaults', ctx),
    ]) {
      assert.deepEqual(outcome.kind === 'answers' && outcome.answers, { tz: ['Europe/Lisbon'] })
    }
  })

  test('skip proceeds on all defaults, marked skipped, ignoring answers', ({ assert }) => {
    const outcome = settle({ db: ['sqlite'], notes: ['hi'] }, true)
    assert.deepEqual(outcome.answers, {
      db: ['pg'],
      extras: ['auth', 'mail'],
      replicas: ['2'],
      notes: [],
    })
    assert.isTrue(outcome.skipped)
    assert.isFalse(outcome.expired)
    assert.deepEqual(outcome.defaulted, ['db', 'extras', 'replicas', 'notes'])
    assert.deepEqual(question(outcome, 'db').dropped, [])
  })

  test('an expired context takes all defaults, marked expired', ({ assert }) => {
    const outcome = settleQuestionSet(
      set,
      { answers: { db: ['sqlite'] } },
      { ...ctx, expired: true }
    )
    assert.deepEqual(outcome.answers.db, ['pg'])
    assert.isTrue(outcome.expired)
    assert.isFalse(outcome.skipped)
  })

  test('free text is clamped with a visible mark', ({ assert }) => {
    const open: QuestionSet = { questions: [{ ...db, allowFreeText: true }, notes] }
    const long = 'a'.repeat(30)
    const outcome = settleQuestionSet(
      open,
      { answers: { db: [long], notes: ['short'] } },
      { ...ctx, limits: { maxFreeTextLength: 10 } }
    )
    const clamped = `${'a'.repeat(10)}${TRUNCATION_MARK}`
    assert.deepEqual(outcome.answers.db, [clamped])
    assert.equal(question(outcome, 'db').freeText, clamped)
    assert.isTrue(question(outcome, 'db').truncated)
    assert.include(TRUNCATION_MARK, '[truncated]')

    assert.deepEqual(outcome.answers.notes, ['short'])
    assert.equal(question(outcome, 'notes').freeText, 'short')
    assert.isUndefined(question(outcome, 'notes').truncated)
  })

  test('the default clamp limit is 2000 characters', ({ assert }) => {
    const outcome = settle({ notes: ['x'.repeat(2500)] })
    assert.equal(outcome.answers.notes[0], `${'x'.repeat(2000)}${TRUNCATION_MARK}`)
    assert.equal(settle({ notes: ['x'.repeat(2000)] }).answers.notes[0], 'x'.repeat(2000))
  })

  test('clamping never splits a surrogate pair', ({ assert }) => {
    const outcome = settleQuestionSet(
      { questions: [notes] },
      { answers: { notes: ['abc😀def'] } },
      { ...ctx, limits: { maxFreeTextLength: 4 } }
    )
    assert.equal(outcome.answers.notes[0], `abc${TRUNCATION_MARK}`)
  })

  test('a picked option is not free text', ({ assert }) => {
    const open: QuestionSet = { questions: [{ ...extras, allowFreeText: true }] }
    const outcome = settleQuestionSet(open, { answers: { extras: ['auth', 'sms', 'push'] } }, ctx)
    assert.deepEqual(outcome.answers.extras, ['auth', 'sms', 'push'])
    assert.equal(question(outcome, 'extras').freeText, 'sms\npush')
    const picked = settleQuestionSet(open, { answers: { extras: ['auth'] } }, ctx)
    assert.isUndefined(question(picked, 'extras').freeText)
  })

  test('who and through what are recorded; the text is describeOutcome', ({ assert }) => {
    const outcome = settleQuestionSet(
      set,
      { answers: {} },
      { answeredBy: null, answeredVia: 'terminal' }
    )
    assert.isNull(outcome.answeredBy)
    assert.equal(outcome.answeredVia, 'terminal')
    const { text, ...rest } = outcome
    assert.equal(text, describeOutcome(set, rest))
    assert.equal(outcome.kind, 'answers')
  })

  test('settling is deterministic', ({ assert }) => {
    const reply = { answers: { db: ['mysql', 'pg'], extras: ['mail', 'x'], notes: ['hey'] } }
    assert.deepEqual(settleQuestionSet(set, reply, ctx), settleQuestionSet(set, reply, ctx))
  })

  test('a lone string or stray answers never throw', ({ assert }) => {
    const loose = { answers: { db: 'sqlite', cache: ['redis'] } } as unknown as {
      answers: Record<string, string[]>
    }
    const outcome = settleQuestionSet(set, loose, ctx)
    assert.deepEqual(outcome.answers.db, ['sqlite'])
    assert.notProperty(outcome.answers, 'cache')
  })
})

test.group('Settle | decisions', () => {
  test('an approval is approved, with who and through what', ({ assert }) => {
    const outcome = settleDecision({ approved: true }, { ...ctx, toolName: 'deploy' })
    assert.isTrue(outcome.approved)
    assert.isFalse(outcome.expired)
    assert.equal(outcome.answeredBy, 'user:1')
    assert.include(outcome.text, 'approved')
    assert.notProperty(outcome, 'editedInput')
  })

  test("a rejection's reason reaches the model", ({ assert }) => {
    const outcome = settleDecision({ approved: false, reason: 'Not on Friday' }, ctx)
    assert.isFalse(outcome.approved)
    assert.equal(outcome.reason, 'Not on Friday')
    assert.include(outcome.text, 'Not on Friday')
  })

  test('a blank reason is left out; a long one is clamped', ({ assert }) => {
    assert.notProperty(settleDecision({ approved: false, reason: '  ' }, ctx), 'reason')
    const outcome = settleDecision(
      { approved: false, reason: 'abcdefgh' },
      { ...ctx, limits: { maxFreeTextLength: 3 } }
    )
    assert.equal(outcome.reason, `abc${TRUNCATION_MARK}`)
  })

  test('edited args are kept on an approval and reported as changed', ({ assert }) => {
    const outcome = settleDecision({ approved: true, editedInput: { branch: 'dev' } }, ctx)
    assert.deepEqual(outcome.editedInput, { branch: 'dev' })
    assert.include(outcome.text, 'edited the arguments')

    const same = settleDecision(
      { approved: true, editedInput: { branch: 'dev' } },
      { ...ctx, argsChanged: false }
    )
    assert.notInclude(same.text, 'edited the arguments')
  })

  test('edited args of a rejection are not kept', ({ assert }) => {
    const outcome = settleDecision({ approved: false, editedInput: { branch: 'dev' } }, ctx)
    assert.notProperty(outcome, 'editedInput')
    assert.notInclude(outcome.text, 'edited the arguments')
  })

  test('an expired decision is never approved', ({ assert }) => {
    const outcome = settleDecision(
      { approved: true, editedInput: { a: 1 } },
      { answeredBy: null, answeredVia: 'expiry', expired: true }
    )
    assert.isFalse(outcome.approved)
    assert.isTrue(outcome.expired)
    assert.equal(outcome.reason, EXPIRED_REASON)
    assert.notProperty(outcome, 'editedInput')
  })
})

test.group('Settle | settleReply', () => {
  test('approve sent to a question set accepts all defaults', ({ assert }) => {
    const outcome = asAnswers(settleReply({ kind: 'question', set }, { approved: true }, ctx))
    assert.equal(outcome.kind, 'answers')
    assert.deepEqual(outcome.answers.db, ['pg'])
    assert.deepEqual(outcome.answers.extras, ['auth', 'mail'])
    assert.isFalse(outcome.skipped)
    assert.lengthOf(outcome.defaulted, 4)
  })

  test('reject sent to a question set skips', ({ assert }) => {
    const outcome = asAnswers(
      settleReply({ kind: 'question', set }, { approved: false, reason: 'whatever' }, ctx)
    )
    assert.isTrue(outcome.skipped)
    assert.deepEqual(outcome.answers.db, ['pg'])
  })

  test('answers settle a question set', ({ assert }) => {
    const outcome = asAnswers(
      settleReply({ kind: 'question', set }, { answers: { db: ['mysql'] } }, ctx)
    )
    assert.deepEqual(outcome.answers.db, ['mysql'])
  })

  test('answers sent to an approval are refused, not read as a rejection', ({ assert }) => {
    assert.throws(
      () => settleReply({ kind: 'approval', toolName: 'deploy' }, { answers: {}, skip: true }, ctx),
      ReplyMismatchException
    )
  })

  test('an approval wait reports edited args only when they differ', ({ assert }) => {
    const wait = { kind: 'approval' as const, toolName: 'deploy', args: { a: 1, b: 2 } }
    const same = asDecision(settleReply(wait, { approved: true, editedInput: { b: 2, a: 1 } }, ctx))
    assert.notInclude(same.text, 'edited the arguments')
    const changed = asDecision(
      settleReply(wait, { approved: true, editedInput: { a: 3, b: 2 } }, ctx)
    )
    assert.include(changed.text, 'edited the arguments')
    assert.deepEqual(changed.editedInput, { a: 3, b: 2 })

    const noArgs = asDecision(
      settleReply({ kind: 'approval' }, { approved: true, editedInput: { a: 1 } }, ctx)
    )
    assert.include(noArgs.text, 'edited the arguments')
    const plain = asDecision(settleReply(wait, { approved: true }, ctx))
    assert.notInclude(plain.text, 'edited the arguments')
    assert.include(plain.text, '"deploy"')
  })
})

test.group('Settle | expiry rules', () => {
  const expiry = { answeredBy: null, answeredVia: 'expiry' } as const

  test('question set, defaults: all defaults, expired, not skipped', ({ assert }) => {
    const outcome = asAnswers(settleExpired({ kind: 'question', set }, 'defaults', expiry))
    assert.deepEqual(outcome.answers, {
      db: ['pg'],
      extras: ['auth', 'mail'],
      replicas: ['2'],
      notes: [],
    })
    assert.isTrue(outcome.expired)
    assert.isFalse(outcome.skipped)
    assert.equal(outcome.answeredVia, 'expiry')
    assert.include(outcome.text, 'Nobody answered')
  })

  for (const policy of ['reject', 'cancel'] as const) {
    test(`question set, ${policy}: defaults resolved, expired and skipped`, ({ assert }) => {
      const outcome = asAnswers(settleExpired({ kind: 'question', set }, policy, expiry))
      assert.isTrue(outcome.expired)
      assert.isTrue(outcome.skipped)
      assert.deepEqual(outcome.answers.db, ['pg'])
      assert.include(outcome.text, 'Nobody answered')
      assert.include(outcome.text, 'assumptions')
    })
  }

  for (const policy of ['defaults', 'reject', 'cancel'] as const) {
    test(`approval, ${policy}: never approved`, ({ assert }) => {
      const outcome = asDecision(
        settleExpired({ kind: 'approval', toolName: 'deploy' }, policy, expiry)
      )
      assert.equal(outcome.kind, 'decision')
      assert.isFalse(outcome.approved)
      assert.isTrue(outcome.expired)
      assert.equal(outcome.reason, 'Nobody approved in time')
      assert.include(outcome.text, 'Nobody approved')
      assert.include(outcome.text, 'not run')
    })
  }
})
