import { test } from '@japa/runner'
import type { Question, QuestionSet, RowCard, RunGroup } from '../../src/types/main.ts'
import { effectiveDefaults } from '../../src/questions/defaults.ts'
import {
  answersReply,
  answerValues,
  approveReply,
  argsText,
  chooseOther,
  findHotkey,
  initialAnswer,
  initialForm,
  isChanged,
  pickOption,
  rejectReply,
  setTypedValue,
  skipReply,
  toDateInput,
  toDatetimeLocal,
  typeOther,
} from '../../stubs/inertia/agent_inbox/form_state.ts'
import { editReply } from '../../stubs/inertia/agent_inbox/schema_form.ts'
import {
  alertText,
  conflictOf,
  conflictSettlement,
  decisionErrors,
  fieldErrors,
  isConflict,
  lostTo,
  questionErrors,
  readFeedback,
  settlerWords,
} from '../../stubs/inertia/agent_inbox/feedback.ts'
import { listGroups, type SettledNote } from '../../stubs/inertia/agent_inbox/rows.ts'
import { inboxLinks, shortId } from '../../stubs/inertia/agent_inbox/words.ts'

const db: Question = {
  id: 'db',
  prompt: 'Which database?',
  header: 'Database',
  options: [
    { value: 'pg', label: 'PostgreSQL', hotkey: 'p' },
    { value: 'sqlite', label: 'SQLite', hotkey: 's' },
  ],
  defaults: ['pg'],
}

const features: Question = {
  id: 'features',
  prompt: 'Which features?',
  multiple: true,
  allowFreeText: true,
  options: [
    { value: 'auth', label: 'Auth', hotkey: 'A' },
    { value: 'mail', label: 'Mail', hotkey: 'm' },
    { value: 'queue', label: 'Queue' },
  ],
  defaults: ['mail', 'auth', 'webhooks'],
}

const port: Question = {
  id: 'port',
  prompt: 'Port?',
  input: { type: 'integer', min: 1, max: 65535 },
  defaults: ['5432'],
}

const set: QuestionSet = {
  preamble: 'A few choices',
  questions: [
    db,
    features,
    port,
    { id: 'ssl', prompt: 'SSL?', input: { type: 'boolean' }, defaults: ['false'] },
    { id: 'notes', prompt: 'Notes?', defaults: [] },
    { id: 'at', prompt: 'When?', input: { type: 'datetime' }, defaults: ['2026-12-02T10:00'] },
  ],
}

test.group('Page form | defaults', () => {
  test('every question starts on its defaults', ({ assert }) => {
    const form = initialForm(set)
    assert.deepEqual(form.db, { values: ['pg'], other: '', otherChosen: false })
    // Picked options in the order the question offers them, as effectiveDefaults gives them
    assert.deepEqual(form.features, {
      values: ['auth', 'mail'],
      other: 'webhooks',
      otherChosen: true,
    })
    assert.deepEqual(form.port, { values: ['5432'], other: '', otherChosen: false })
    assert.deepEqual(form.ssl, { values: ['false'], other: '', otherChosen: false })
    assert.deepEqual(form.notes, { values: [''], other: '', otherChosen: false })
  })

  test('a single-choice question keeps one default; own words only when no option is picked', ({
    assert,
  }) => {
    const single: Question = { ...db, allowFreeText: true, defaults: ['sqlite', 'pg', 'mongo'] }
    assert.deepEqual(initialAnswer(single), { values: ['sqlite'], other: '', otherChosen: false })
    const own: Question = { ...db, allowFreeText: true, defaults: ['mongo'] }
    assert.deepEqual(initialAnswer(own), { values: [], other: 'mongo', otherChosen: true })
  })

  test('defaults not on offer are not picked when free text is not allowed', ({ assert }) => {
    assert.deepEqual(initialAnswer({ ...db, defaults: ['mongo'] }).values, [])
  })

  test('typed defaults that break their rules are not shown', ({ assert }) => {
    assert.deepEqual(initialAnswer({ ...port, defaults: ['0'] }).values, [''])
    const ownWords: Question = { ...db, allowFreeText: true, input: { type: 'email' } }
    assert.deepEqual(initialAnswer({ ...ownWords, defaults: ['not an email'] }), {
      values: [],
      other: '',
      otherChosen: false,
    })
  })

  test('a boolean without a valid default starts unanswered', ({ assert }) => {
    const question: Question = {
      id: 'b',
      prompt: '?',
      input: { type: 'boolean' },
      defaults: ['yes'],
    }
    assert.deepEqual(initialAnswer(question).values, [])
  })
})

test.group('Page form | replies', () => {
  test('Confirm untouched sends exactly the defaults every channel takes', ({ assert }) => {
    const odd: Question[] = [
      ...set.questions,
      { ...db, id: 'tz', allowFreeText: true, defaults: ['Europe/Lisbon'] },
      { ...features, id: 'two', defaults: ['queue', 'cron', 'mail', 'webhooks'] },
      { ...db, id: 'gone', defaults: ['mongo'] },
      { ...port, id: 'ports', multiple: true, defaults: ['80', 'x', '443', '80'] },
    ]
    const reply = answersReply({ questions: odd }, initialForm({ questions: odd }))
    for (const question of odd) {
      assert.deepEqual(reply.answers[question.id], effectiveDefaults(question), question.id)
    }
  })

  test('Confirm untouched sends the defaults', ({ assert }) => {
    assert.deepEqual(answersReply(set, initialForm(set)), {
      answers: {
        db: ['pg'],
        features: ['auth', 'mail', 'webhooks'],
        port: ['5432'],
        ssl: ['false'],
        notes: [],
        at: ['2026-12-02T10:00'],
      },
    })
  })

  test('Confirm sends changes and keeps the rest', ({ assert }) => {
    let form = initialForm(set)
    form = { ...form, db: pickOption(db, form.db, 'sqlite') }
    form = { ...form, features: pickOption(features, form.features, 'mail') }
    form = { ...form, features: chooseOther(features, form.features, false) }
    form = { ...form, port: setTypedValue(form.port, 0, '6543') }
    form = { ...form, notes: setTypedValue(form.notes, 0, 'Keep it small') }
    const reply = answersReply(set, form)
    assert.deepEqual(reply.answers.db, ['sqlite'])
    assert.deepEqual(reply.answers.features, ['auth'])
    assert.deepEqual(reply.answers.port, ['6543'])
    assert.deepEqual(reply.answers.notes, ['Keep it small'])
    assert.deepEqual(reply.answers.ssl, ['false'])
  })

  test('own words replace the pick on a single-choice question', ({ assert }) => {
    const question: Question = { ...db, allowFreeText: true }
    let state = initialAnswer(question)
    state = typeOther(question, state, 'MariaDB')
    assert.deepEqual(answerValues(question, state), ['MariaDB'])
    state = pickOption(question, state, 'pg')
    assert.deepEqual(answerValues(question, state), ['pg'])
    state = chooseOther(question, state, true)
    assert.deepEqual(answerValues(question, state), ['MariaDB'])
    assert.deepEqual(answerValues(question, typeOther(question, state, '  ')), [])
  })

  test('a multiple typed question sends its non-blank values once', ({ assert }) => {
    const emails: Question = {
      id: 'cc',
      prompt: 'Copy whom?',
      multiple: true,
      input: { type: 'email' },
      defaults: ['a@example.com'],
    }
    let state = initialAnswer(emails)
    state = setTypedValue(state, 1, 'b@example.com')
    state = setTypedValue(state, 2, ' ')
    state = setTypedValue(state, 3, 'a@example.com')
    assert.deepEqual(answerValues(emails, state), ['a@example.com', 'b@example.com'])
  })

  test('isChanged tells a touched question from an untouched one', ({ assert }) => {
    const form = initialForm(set)
    assert.isFalse(isChanged(db, form.db))
    assert.isTrue(isChanged(db, pickOption(db, form.db, 'sqlite')))
    assert.isFalse(isChanged(db, pickOption(db, form.db, 'pg')))
  })

  test('Skip, Approve and Reject send their fixed shapes', ({ assert }) => {
    assert.deepEqual(skipReply(), { answers: {}, skip: true })
    assert.deepEqual(approveReply(), { approved: true })
    assert.deepEqual(rejectReply('  Not on Friday '), { approved: false, reason: 'Not on Friday' })
    assert.deepEqual(rejectReply('   '), { approved: false })
  })

  test('Approve with changes parses the JSON, or says why it cannot', ({ assert }) => {
    assert.deepEqual(editReply('{ "branch": "main", "force": false }'), {
      reply: { approved: true, editedInput: { branch: 'main', force: false } },
    })
    const bad = editReply('{ "branch": ')
    assert.property(bad, 'error')
    assert.match((bad as { error: string }).error, /^Not valid JSON: /)
    assert.property(editReply('  '), 'error')
    // Not an object: the server would refuse it, so it is not sent
    for (const text of ['null', '"main"', '[1]', '3']) {
      assert.match((editReply(text) as { error: string }).error, /as a JSON object/)
    }
  })

  test('args are shown as pretty JSON', ({ assert }) => {
    assert.equal(argsText({ a: 1 }), '{\n  "a": 1\n}')
    assert.equal(argsText(undefined), '{}')
    assert.equal(argsText(null), 'null')
  })
})

test.group('Page form | keyboard and inputs', () => {
  test('hotkeys find their option, case-insensitively, preferring the focused question', ({
    assert,
  }) => {
    const other: Question = {
      id: 'other',
      prompt: '?',
      options: [
        { value: 'x', label: 'X', hotkey: 'm' },
        { value: 'y', label: 'Y' },
      ],
      defaults: ['x'],
    }
    assert.deepEqual(findHotkey([db, features], 'P'), { questionId: 'db', value: 'pg' })
    assert.deepEqual(findHotkey([db, features], 'a'), { questionId: 'features', value: 'auth' })
    assert.deepEqual(findHotkey([features, other], 'm'), { questionId: 'features', value: 'mail' })
    assert.deepEqual(findHotkey([features, other], 'm', 'other'), {
      questionId: 'other',
      value: 'x',
    })
    assert.isNull(findHotkey([db], 'z'))
    assert.isNull(findHotkey([db], 'Enter'))
  })

  test('a hotkey selects on single choice and toggles on multiple choice', ({ assert }) => {
    const form = initialForm(set)
    assert.deepEqual(pickOption(db, form.db, 'sqlite').values, ['sqlite'])
    const off = pickOption(features, form.features, 'auth')
    assert.deepEqual(off.values, ['mail'])
    assert.deepEqual(pickOption(features, off, 'auth').values, ['mail', 'auth'])
  })

  test('datetime values are shown as datetime-local wants them', ({ assert }) => {
    assert.equal(toDatetimeLocal('2026-12-02T10:00'), '2026-12-02T10:00')
    assert.equal(toDatetimeLocal('2026-12-02 10:00:30'), '2026-12-02T10:00')
    const at = new Date('2026-12-02T10:00:00Z')
    const local = `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(
      at.getDate()
    ).padStart(2, '0')}T${String(at.getHours()).padStart(2, '0')}:${String(
      at.getMinutes()
    ).padStart(2, '0')}`
    assert.equal(toDatetimeLocal('2026-12-02T10:00:00Z'), local)
    assert.equal(toDatetimeLocal('tomorrow'), '')
    assert.equal(toDateInput('2026-12-02'), '2026-12-02')
    assert.equal(toDateInput('02/12/2026'), '')
  })
})

test.group('Page form | errors and flash', () => {
  test('field errors go to their question, indexed ones naming the value', ({ assert }) => {
    const dotted: Question = { ...db, id: 'db.main' }
    const withDots: QuestionSet = { questions: [db, dotted, features] }
    const split = questionErrors(withDots, {
      'answers.db': ['takes one value only'],
      'answers.db.main.0': ['is not one of the options (pg, sqlite)'],
      'answers.features.1': ['must not be empty'],
      'answers.nope': ['is not a question of this set'],
      'answers': ['send either answers or a decision'],
    })
    assert.deepEqual(split.byQuestion, {
      'db': ['Takes one value only'],
      'db.main': ['Is not one of the options (pg, sqlite)'],
      'features': ['Value 2: Must not be empty'],
    })
    assert.deepEqual(split.rest, [
      'answers.nope: is not a question of this set',
      'answers: send either answers or a decision',
    ])
  })

  test('approval errors split into reason, edited args and the rest', ({ assert }) => {
    assert.deepEqual(
      decisionErrors({
        'reason': ['must be at most 2000 characters'],
        'editedInput.branch': ['must be a string'],
        'editedInput': ['is not valid'],
        'approved': ['must be true or false'],
      }),
      {
        reason: ['Must be at most 2000 characters'],
        editedInput: ['branch: must be a string', 'Is not valid'],
        rest: ['approved: must be true or false'],
      }
    )
  })

  /** A 409 as the server flashes it: the body with its status, who settled the row in `meta` */
  const conflict = (by: string, via: string) => ({
    status: 409,
    errors: [
      {
        message: 'Already settled',
        code: 'E_ALREADY_SETTLED',
        meta: { settledBy: by, settledVia: via, settledAt: '2026-01-02T03:04:05.000Z' },
      },
    ],
  })

  test('the feedback prop is read as the server sent it, or not at all', ({ assert }) => {
    const settled = { by: '1', via: 'web', at: '2026-01-02T03:04:05.000Z' }
    assert.deepEqual(readFeedback({ rowId: 'r1', settled }), { rowId: 'r1', settled })
    assert.deepEqual(readFeedback({ rowId: 'r1', error: conflict('bob', 'web') }), {
      rowId: 'r1',
      error: conflict('bob', 'web'),
    })
    assert.deepEqual(conflictSettlement(conflict('bob', 'web')), {
      by: 'bob',
      via: 'web',
      at: '2026-01-02T03:04:05.000Z',
    })
    // Nothing said, nothing claimed
    assert.isNull(readFeedback(null))
    assert.isNull(readFeedback({ rowId: 'r1' }))
    assert.isNull(readFeedback({ rowId: 'r1', error: { status: 409 } }))
    assert.isNull(readFeedback({ rowId: 'r1', error: { status: 409, errors: [{ code: 'E_X' }] } }))
    // The shape before { errors } is not read as one
    assert.isNull(readFeedback({ rowId: 'r1', error: { status: 409, message: 'x', code: 'E_X' } }))
    assert.deepEqual(readFeedback({ rowId: 'r1', error: { errors: [{ message: 'x' }] } })?.error, {
      status: 0,
      errors: [{ message: 'x', code: 'E_UNKNOWN' }],
    })
    const invalid = readFeedback({
      rowId: 'r2',
      error: {
        status: 422,
        errors: [
          { field: 'answers.db.0', message: 'bad', code: 'E_INVALID_REPLY', rule: 'value' },
          { field: 3 },
          'x',
        ],
      },
    })
    assert.deepEqual(invalid!.error!.errors, [
      { field: 'answers.db.0', message: 'bad', code: 'E_INVALID_REPLY', rule: 'value' },
    ])
    assert.deepEqual(fieldErrors(invalid!.error!), { 'answers.db.0': ['bad'] })
  })

  const formatTime = (iso: string) => `<${iso}>`

  test('a conflict says who settled the row, how and when, from the server', ({ assert }) => {
    const context = { person: '1', card: null, formatTime }
    assert.equal(
      alertText(conflict('bob', 'terminal'), context),
      'Settled by bob, via terminal, at <2026-01-02T03:04:05.000Z>.'
    )
    assert.equal(
      alertText(conflict('1', 'web'), context),
      'Settled by you, in another tab, at <2026-01-02T03:04:05.000Z>.'
    )
    assert.equal(
      alertText(conflict('1', 'api'), context),
      'Settled by you, via api, at <2026-01-02T03:04:05.000Z>.'
    )
    assert.equal(
      settlerWords({ by: null, via: 'expiry', at: null }, '1', formatTime),
      'someone, via expiry'
    )
    assert.equal(
      alertText(
        { status: 410, errors: [{ code: 'E_EXPIRED', message: 'This row expired' }] },
        context
      ),
      'This row expired'
    )
  })

  test('a reply no word came back about: a decision the row contradicts lost, and says so', ({
    assert,
  }) => {
    // Another tab of the session took the redirect's flash; the row, read after, tells
    assert.isTrue(lostTo({ approved: false, reason: 'Not today' }, 'approved'))
    assert.isTrue(lostTo({ approved: true }, 'rejected'))
    assert.isTrue(lostTo({ approved: true }, 'expired'))
    assert.isFalse(lostTo({ approved: true }, 'approved'))
    assert.isFalse(lostTo({ approved: false }, 'rejected'))
    // Answers settle alike whoever sent them; a row of unknown status claims nothing
    assert.isFalse(lostTo({ answers: {} }, 'answered'))
    assert.isFalse(lostTo({ approved: false }, undefined))
    const lost = conflictOf({ by: '1', via: 'web', at: '2026-01-02T03:04:05.000Z' })
    assert.isTrue(isConflict(lost))
    assert.equal(
      alertText(lost, { person: '1', card: null, formatTime }),
      'Settled by you, in another tab, at <2026-01-02T03:04:05.000Z>.'
    )
  })

  test('a refused reply names the question by its prompt, not its field path', ({ assert }) => {
    const amount: Question = {
      id: 'amount',
      prompt: 'How much to refund?',
      input: { type: 'integer', max: 500 },
      defaults: ['50'],
    }
    const card = { id: 'r1', questionSet: { questions: [db, amount] } } as RowCard
    const code = 'E_INVALID_REPLY'
    const refused = {
      status: 422,
      errors: [{ field: 'answers.amount.0', message: 'must be at most 500', code, rule: 'value' }],
    }
    const text = alertText(refused, { person: '1', card, formatTime })
    assert.equal(text, 'Check “How much to refund?”: Must be at most 500')
    assert.notInclude(text, 'answers.')

    const approval = { id: 'r2', action: { summary: 'Deploy', args: {} } } as RowCard
    assert.equal(
      alertText(
        {
          ...refused,
          errors: [
            { field: 'reason', message: 'must be at most 2000 characters', code },
            { field: 'editedInput.branch', message: 'must be a string', code },
          ],
        },
        { person: '1', card: approval, formatTime }
      ),
      'Check the reason: Must be at most 2000 characters; the edited arguments: branch: must be a string'
    )
    // No field errors: the message as the server wrote it
    const whole = { status: 403, errors: [{ code: 'E_FORBIDDEN', message: 'You may not' }] }
    assert.equal(alertText(whole, { person: '1', card, formatTime }), 'You may not')
    // Field errors on fields the card does not show: named by field
    assert.equal(
      alertText(
        { status: 422, errors: [{ field: 'digest', message: 'must be a string', code }] },
        { person: '1', card, formatTime }
      ),
      'Check digest: must be a string'
    )
  })
})

test.group('Page form | urls and groups', () => {
  test('replies, rows, runs and the history go next to the inbox URL', ({ assert }) => {
    const replyUrl = (inbox: string, id: string) => inboxLinks(inbox).reply(id)
    assert.equal(replyUrl('/inbox', 'a1'), '/inbox/rows/a1/reply')
    assert.equal(replyUrl('/inbox/?tab=all#x', 'a1'), '/inbox/rows/a1/reply')
    assert.equal(
      replyUrl('http://localhost:3333/team/inbox', 'a b'),
      '/team/inbox/rows/a%20b/reply'
    )
    assert.equal(replyUrl('/', 'a1'), '/rows/a1/reply')
    assert.equal(inboxLinks('/inbox?tab=all').row('a1'), '/inbox/rows/a1')
    assert.equal(inboxLinks('/inbox/').run('r1'), '/inbox/runs/r1')
    assert.equal(inboxLinks('/inbox').history, '/inbox/history')
    assert.equal(inboxLinks('/').inbox, '/')
    assert.equal(shortId('0123456789abcdef'), '01234567')
    assert.equal(shortId('r1'), 'r1')
  })

  const run = (id: string): RunGroup['run'] => ({
    id,
    agent: 'support',
    status: 'waiting',
    ownerId: 'u1',
    createdAt: null,
    finishedAt: null,
    errorCode: null,
  })
  const card = (id: string, runId: string, createdAt: string): RowCard => ({
    id,
    runId,
    digest: `digest-${id}`,
    kind: 'action',
    status: 'pending',
    toolName: 'deploy',
    toolCallId: null,
    createdAt,
    expiresAt: null,
    onExpiry: 'defaults' as RowCard['onExpiry'],
    action: { summary: 'Deploy', args: {} },
  })
  const note = (item: RowCard, runId: string): SettledNote => ({
    card: item,
    run: run(runId),
    by: 'u1',
    via: 'web',
    at: null,
  })

  test('settled rows keep their place among the pending ones', ({ assert }) => {
    const a1 = card('a1', 'A', '2026-01-01T00:00:01Z')
    const a2 = card('a2', 'A', '2026-01-01T00:00:02Z')
    const a3 = card('a3', 'A', '2026-01-01T00:00:03Z')
    const b1 = card('b1', 'B', '2026-01-01T00:00:00Z')
    const c1 = card('c1', 'C', '2026-01-01T00:00:05Z')
    const groups: RunGroup[] = [
      { run: run('A'), rows: [a1, a3] },
      { run: run('C'), rows: [c1] },
    ]
    const listed = listGroups(groups, [note(a2, 'A'), note(b1, 'B'), note(c1, 'C')])
    assert.deepEqual(
      listed.map((group) => [group.run?.id, group.rows.map((row) => [row.card.id, !!row.settled])]),
      [
        ['B', [['b1', true]]],
        [
          'A',
          [
            ['a1', false],
            ['a2', true],
            ['a3', false],
          ],
        ],
        ['C', [['c1', false]]],
      ]
    )
  })

  test('no pending rows and no notes list nothing', ({ assert }) => {
    assert.deepEqual(listGroups([], []), [])
  })
})
