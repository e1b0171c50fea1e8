/*
 * What the reply fuzz (tests/http/reply_fuzz.spec.ts) sends: question sets
 * covering every input type, and generated reply bodies, each tagged with
 * what the API must do with it where that is cheap to know (`valid`: 2xx
 * on a pending row; `invalid`: never 2xx; `unknown`: anything below 500).
 * Tags are written against the body the server sees after the app's
 * bodyparser (strings trimmed, empty strings null: `serverView`), so a
 * tagged case never leans on a blank string.
 */

import type { Fuzz } from './fuzz.ts'
import type { QuestionSet } from '../../src/questions/types.ts'

export type Tag = 'valid' | 'invalid' | 'unknown'

/** Which set (or the approval) a pool slot waits on */
export type SlotKind = 'ops' | 'text' | 'mixed' | 'free' | 'deploy'

/** Valid and invalid values of each question, as the server sees them */
type Values = { valid: string[]; invalid: string[]; multiple?: boolean; required?: boolean }

const QUESTION_VALUES: Record<string, Values> = {
  db: { valid: ['pg', 'mysql', 'sqlite'], invalid: ['mongo', 'PG', 'PostgreSQL', 'pg,mysql'] },
  replicas: {
    valid: ['1', '5', '9', '+3', '007'],
    invalid: ['0', '10', '-1', '2.5', 'abc', '1e1', '٣', '99999999999999999999', '0x3'],
  },
  slug: {
    valid: ['api', 'my-service-2', 'a'],
    invalid: ['API', '-x', 'a b', 'x'.repeat(30), 'ü', 'a\u0000b', '(a+)+'],
    required: true,
  },
  contact: { valid: ['a@b.co', 'dev+x@example.org'], invalid: ['nope', 'a@b', '@b.c', 'a @b.c'] },
  docs: {
    valid: ['https://example.com', 'http://x.test/path?q=1'],
    invalid: [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<b>x</b>',
      'file:///etc/passwd',
      'example.com',
      'ftp://x.y',
    ],
  },
  at: {
    valid: ['2026-03-16T10:00', '2026-03-16 10:00:30Z', '2026-03-16T10:00:00.123+02:00'],
    invalid: ['2026-02-30T10:00', '2026-03-16T24:00', '2026-03-16', 'now', '2026-03-16T10:60'],
  },
  features: {
    valid: ['auth', 'billing', 'search', 'a custom feature'],
    invalid: [],
    multiple: true,
  },
  confirm: { valid: ['true', 'false'], invalid: ['on', '1', 'True', 'yes', 'off'] },
  launch: {
    valid: ['2026-01-01', '2026-12-31', '2026-06-15'],
    invalid: ['2025-12-31', '2027-01-01', '2026-02-30', '2026-6-1', '16/03/2026'],
  },
  ratio: {
    valid: ['0', '1', '0.25', '.5', '1e-1'],
    invalid: ['1.5', '-0.1', 'abc', 'NaN', 'Infinity', '0x1'],
  },
  region: { valid: ['eu', 'us', 'antarctica'], invalid: [] },
  note: { valid: ['ship it', 'x'.repeat(5000), '<script>alert(1)</script>'], invalid: [] },
}

/**
 * The sets the pool's ask rows wait on: every input type, multiple and
 * single choice, free text beside options, a required question without a
 * default, a pattern.
 */
export const FUZZ_SETS: Record<Exclude<SlotKind, 'deploy'>, QuestionSet> = {
  ops: {
    questions: [
      {
        id: 'db',
        prompt: 'Which database?',
        options: [
          { value: 'pg', label: 'PostgreSQL' },
          { value: 'mysql', label: 'MySQL' },
          { value: 'sqlite', label: 'SQLite' },
        ],
        defaults: ['pg'],
      },
      {
        id: 'replicas',
        prompt: 'How many replicas?',
        input: { type: 'integer', min: 1, max: 9 },
        defaults: ['2'],
      },
    ],
  },
  text: {
    questions: [
      {
        id: 'slug',
        prompt: 'The service slug?',
        input: { type: 'text', pattern: '^[a-z][a-z0-9-]{0,20}$', required: true },
        defaults: [],
      },
      { id: 'contact', prompt: 'Who owns it?', input: { type: 'email' }, defaults: ['o@ex.io'] },
      { id: 'docs', prompt: 'Docs URL?', input: { type: 'url' }, defaults: ['https://ex.io'] },
      { id: 'at', prompt: 'When?', input: { type: 'datetime' }, defaults: [] },
    ],
  },
  mixed: {
    questions: [
      {
        id: 'features',
        prompt: 'Which features?',
        options: [
          { value: 'auth', label: 'Sign-in' },
          { value: 'billing', label: 'Billing' },
          { value: 'search', label: 'Search' },
        ],
        multiple: true,
        allowFreeText: true,
        defaults: ['auth'],
      },
      { id: 'confirm', prompt: 'Go ahead?', input: { type: 'boolean' }, defaults: ['true'] },
      {
        id: 'launch',
        prompt: 'Launch day?',
        input: { type: 'date', min: '2026-01-01', max: '2026-12-31' },
        defaults: ['2026-06-01'],
      },
      {
        id: 'ratio',
        prompt: 'Traffic share?',
        input: { type: 'number', min: 0, max: 1 },
        defaults: ['0.5'],
      },
    ],
  },
  free: {
    questions: [
      {
        id: 'region',
        prompt: 'Which region?',
        options: [
          { value: 'eu', label: 'Europe' },
          { value: 'us', label: 'United States' },
        ],
        allowFreeText: true,
        defaults: ['eu'],
      },
      { id: 'note', prompt: 'Anything else?', defaults: [] },
    ],
  },
}

/** The args the pool's approval rows were shown */
export const DEPLOY_ARGS = { branch: 'main', force: false }

/**
 * A reply body and what the API must do with it. A `raw` body is sent as
 * is, with `type`; its `body` is then what the server should make of it.
 */
export type Case = { body: unknown; tag: Tag; form?: boolean; raw?: string; type?: string }

function answersOf(fuzz: Fuzz, set: QuestionSet, spoil: boolean): Record<string, unknown> {
  const answers: Record<string, unknown> = {}
  // A question is spoiled by a value it refuses, or by two values when it takes one
  const spoilable = (id: string) =>
    QUESTION_VALUES[id].invalid.length || !QUESTION_VALUES[id].multiple
  const spoiled = spoil
    ? fuzz.pick(set.questions.filter((question) => spoilable(question.id)))
    : undefined
  for (const question of set.questions) {
    const values = QUESTION_VALUES[question.id]
    if (question !== spoiled && !values.required && fuzz.chance(0.4)) continue
    if (question === spoiled) {
      answers[question.id] = values.invalid.length
        ? fuzz.pick(values.invalid)
        : fuzz.sample(values.valid, 2)
    } else if (values.multiple && fuzz.chance(0.5)) {
      answers[question.id] = fuzz.sample(values.valid, fuzz.int(1, values.valid.length))
    } else {
      const value = fuzz.pick(values.valid)
      answers[question.id] = fuzz.chance(0.5) ? value : [value]
    }
  }
  return answers
}

/** A shape no reply field takes */
function wrongType(fuzz: Fuzz): unknown {
  return fuzz.pick<unknown>(['true', 'false', 'on', 'off', 1, 0, -1, 'yes', '1', [], {}, [true]])
}

/**
 * A reply to a question set.
 */
export function questionCase(fuzz: Fuzz, kind: Exclude<SlotKind, 'deploy'>): Case {
  const set = FUZZ_SETS[kind]
  const needsAnswer = set.questions.some((question) => QUESTION_VALUES[question.id].required)
  return fuzz.weighted<Case>([
    [10, () => ({ body: { answers: answersOf(fuzz, set, false) }, tag: 'valid' })],
    [2, () => ({ body: { answers: answersOf(fuzz, set, false), skip: false }, tag: 'valid' })],
    [
      3,
      () => {
        // An empty answers object has no form encoding: the server sees no answers at all
        const answers = answersOf(fuzz, set, false)
        return {
          body: { answers },
          tag: Object.keys(answers).length ? 'valid' : 'unknown',
          form: true,
        }
      },
    ],
    [2, () => ({ body: { skip: true }, tag: 'valid' })],
    [1, () => ({ body: { skip: true, answers: { nope: ['x'], db: 'mongo' } }, tag: 'valid' })],
    [2, () => ({ body: { approved: true }, tag: needsAnswer ? 'invalid' : 'valid' })],
    [2, () => ({ body: { approved: false, reason: 'Not now' }, tag: 'valid' })],
    [6, () => ({ body: { answers: answersOf(fuzz, set, true) }, tag: 'invalid' })],
    [
      3,
      () => ({
        body: { answers: { ...answersOf(fuzz, set, false), [fuzz.word()]: ['x'] } },
        tag: 'invalid',
      }),
    ],
    [
      2,
      () => ({
        body: { answers: fuzz.pick<unknown>([[], 'pg', 5, true, [['pg']]]) },
        tag: 'invalid',
      }),
    ],
    [
      3,
      () => ({
        body: {
          answers: { [set.questions[0].id]: fuzz.pick<unknown>([5, {}, [1], [['a']], true]) },
        },
        tag: 'invalid',
      }),
    ],
    [
      3,
      () => ({
        body: { answers: answersOf(fuzz, set, false), skip: wrongType(fuzz) },
        tag: 'invalid',
      }),
    ],
    [2, () => ({ body: { skip: wrongType(fuzz) }, tag: 'invalid' })],
    [2, () => ({ body: { approved: wrongType(fuzz) }, tag: 'invalid' })],
    [2, () => ({ body: { skip: true }, tag: 'invalid', form: true })],
    [1, () => ({ body: { approved: true, answers: {} }, tag: 'invalid' })],
    [2, () => ({ body: { skip: true, [fuzz.word()]: fuzz.junkValue() }, tag: 'invalid' })],
    [
      1,
      () => ({ body: { skip: true, answers: { note: ['y'.repeat(70 * 1024)] } }, tag: 'invalid' }),
    ],
    [
      1,
      () => ({
        body: { answers: { [set.questions[0].id]: ['a', 'b'].concat(Array(40).fill('c')) } },
        tag: set.questions[0].id === 'features' ? 'unknown' : 'invalid',
      }),
    ],
    [4, () => ({ body: fuzz.junkValue(4), tag: 'unknown' })],
    [
      3,
      () => ({
        body: { answers: { [fuzz.pick(set.questions).id]: fuzz.junkString() } },
        tag: 'unknown',
      }),
    ],
    [2, () => ({ body: { answers: answersOf(fuzz, set, false), skip: null }, tag: 'unknown' })],
  ])
}

/**
 * A reply to an approval of deploy `{ branch, force? }`.
 */
export function approvalCase(fuzz: Fuzz): Case {
  return fuzz.weighted<Case>([
    [6, () => ({ body: { approved: fuzz.chance(0.5) }, tag: 'valid' })],
    [3, () => ({ body: { approved: fuzz.chance(0.5), reason: fuzz.word(1, 200) }, tag: 'valid' })],
    [
      4,
      () => ({
        body: { approved: true, editedInput: { branch: fuzz.word(), force: fuzz.chance(0.5) } },
        tag: 'valid',
      }),
    ],
    [2, () => ({ body: { approved: false, reason: 'r'.repeat(2001) }, tag: 'invalid' })],
    [3, () => ({ body: { approved: wrongType(fuzz) }, tag: 'invalid' })],
    [2, () => ({ body: { approved: true }, tag: 'invalid', form: true })],
    [
      4,
      () => ({
        body: {
          approved: true,
          editedInput: fuzz.pick<unknown>([
            null,
            [],
            'main',
            5,
            {},
            { branch: 5 },
            { branch: ['main'] },
            { branch: 'x', force: 'maybe' },
            { force: true },
          ]),
        },
        tag: 'invalid',
      }),
    ],
    [3, () => ({ body: { answers: { db: ['pg'] } }, tag: 'invalid' })],
    [1, () => ({ body: { skip: true }, tag: 'invalid' })],
    [2, () => ({ body: { approved: true, [fuzz.word()]: fuzz.junkValue() }, tag: 'invalid' })],
    [1, () => ({ body: { approved: true, reason: 5 }, tag: 'invalid' })],
    [3, () => ({ body: fuzz.junkValue(4), tag: 'unknown' })],
    [
      2,
      () => ({
        body: {
          approved: true,
          editedInput: { branch: fuzz.junkString(), extra: fuzz.junkValue() },
        },
        tag: 'unknown',
      }),
    ],
    [1, () => ({ body: { approved: false, editedInput: fuzz.junkValue() }, tag: 'unknown' })],
  ])
}

/**
 * A body sent as raw text, for any row: broken JSON, the wrong content
 * type, nothing, megabytes, a prototype key, deep nesting. (A decision
 * sent to a question set approves its defaults, whatever edit it carries:
 * docs/design.md §6.2.)
 */
export function rawCase(fuzz: Fuzz, approval: boolean): Case {
  const json = 'application/json'
  const depth = fuzz.pick([100, 1000, 3000])
  const nested = `${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}`
  return fuzz.pick<Case>([
    { body: null, tag: 'invalid', raw: '{"approved": tru', type: json },
    { body: null, tag: 'invalid', raw: '{"answers": {"db": ["pg"]}', type: json },
    { body: null, tag: 'invalid', raw: '[]', type: json },
    { body: null, tag: 'invalid', raw: 'null', type: json },
    { body: null, tag: 'invalid', raw: '"pg"', type: json },
    { body: null, tag: 'invalid', raw: '', type: json },
    { body: null, tag: 'invalid', raw: '{"approved": true}', type: 'text/plain' },
    { body: null, tag: 'invalid', raw: '{"skip": true}', type: 'application/xml' },
    { body: null, tag: 'invalid', raw: '{"__proto__": {"approved": true}}', type: json },
    // The bodyparser drops a constructor.prototype (and a __proto__) and hands over the rest
    {
      body: { skip: true },
      tag: 'unknown',
      raw: '{"skip": true, "constructor": {"prototype": {"approved": true}}}',
      type: json,
    },
    {
      body: null,
      tag: 'invalid',
      raw: `{"skip": true, "pad": "${'z'.repeat(1_100_000)}"}`,
      type: json,
    },
    { body: null, tag: 'invalid', raw: `${'['.repeat(5000)}${']'.repeat(5000)}`, type: json },
    {
      body: null,
      tag: 'invalid',
      raw: 'approved=true&answers',
      type: 'application/x-www-form-urlencoded',
    },
    { body: null, tag: 'invalid', raw: '\u0000\u0000', type: json },
    { body: null, tag: 'invalid', raw: `{"answers": {"db": ${nested}}}`, type: json },
    {
      body: { approved: true, editedInput: JSON.parse(nested) },
      tag: approval ? 'invalid' : 'unknown',
      raw: `{"approved": true, "editedInput": ${nested}}`,
      type: json,
    },
  ])
}

/**
 * Row ids that are no row: not UUIDs, NUL bytes, broken percent-encoding,
 * megabytes of path.
 */
export function badRowId(fuzz: Fuzz, realId: string): string {
  return fuzz.pick([
    '%00',
    `${realId}%00`,
    `${realId.slice(0, -1)}%00`,
    realId.toUpperCase(),
    `${realId}x`,
    'x'.repeat(5000),
    'not-a-row',
    '%ZZ',
    '%E0%A4%A',
    '%F0%9F%99%82',
    '..%2F..%2Fetc',
    '00000000-0000-0000-0000-000000000000',
    encodeURIComponent(fuzz.junkString(20).toWellFormed()) || 'empty',
  ])
}

/**
 * A body as the app's bodyparser hands it over: JSON's own round trip,
 * strings trimmed, empty strings null.
 */
export function serverView(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => {
    if (key === '' || typeof value !== 'string') return value
    const trimmed = value.trim()
    return trimmed === '' ? null : trimmed
  })
}

/**
 * A body as application/x-www-form-urlencoded, in the bracket notation the
 * bodyparser's qs reads (`answers[db][0]=pg`).
 */
export function formEncode(body: unknown): string {
  const pairs: string[] = []
  const walk = (value: unknown, key: string) => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${key}[${index}]`))
    else if (value !== null && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) walk(item, key ? `${key}[${name}]` : name)
    } else pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value ?? ''))}`)
  }
  walk(body, '')
  return pairs.join('&')
}
