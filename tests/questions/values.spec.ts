import { test } from '@japa/runner'
import {
  checkTypedValue,
  checkValue,
  inputTypeOf,
  resolveLimits,
} from '../../src/questions/values.ts'

test.group('Values | typed rules', () => {
  test('integer {value} -> {expected}')
    .with([
      { value: '3', expected: null },
      { value: '+7', expected: null },
      { value: '3.5', expected: 'must be a whole number' },
      { value: 'three', expected: 'must be a whole number' },
      { value: '0', expected: 'value must be at least 1' },
      { value: '11', expected: 'value must be at most 10' },
    ])
    .run(({ assert }, { value, expected }) => {
      assert.equal(checkTypedValue({ type: 'integer', min: 1, max: 10 }, value), expected)
    })

  test('number accepts decimals and exponents, refuses words', ({ assert }) => {
    assert.isNull(checkTypedValue({ type: 'number' }, '2.5'))
    assert.isNull(checkTypedValue({ type: 'number' }, '1e3'))
    assert.equal(checkTypedValue({ type: 'number' }, 'NaN'), 'must be a number')
    assert.equal(checkTypedValue({ type: 'number', max: 1 }, '1.5'), 'value must be at most 1')
  })

  test('boolean takes only "true" and "false"', ({ assert }) => {
    assert.isNull(checkTypedValue({ type: 'boolean' }, 'true'))
    assert.isNull(checkTypedValue({ type: 'boolean' }, 'false'))
    assert.isString(checkTypedValue({ type: 'boolean' }, 'yes'))
  })

  test('date must be a real calendar day within bounds', ({ assert }) => {
    assert.isNull(checkTypedValue({ type: 'date' }, '2024-02-29'))
    assert.isString(checkTypedValue({ type: 'date' }, '2023-02-29'))
    assert.isString(checkTypedValue({ type: 'date' }, '2023-13-01'))
    assert.isString(checkTypedValue({ type: 'date' }, '02/03/2023'))
    assert.equal(
      checkTypedValue({ type: 'date', min: '2026-01-01' }, '2025-12-31'),
      'must be on or after 2026-01-01'
    )
    assert.equal(
      checkTypedValue({ type: 'date', max: '2026-01-01' }, '2026-01-02'),
      'must be on or before 2026-01-01'
    )
  })

  test('datetime takes ISO forms with optional seconds and offset', ({ assert }) => {
    assert.isNull(checkTypedValue({ type: 'datetime' }, '2026-12-02T10:30'))
    assert.isNull(checkTypedValue({ type: 'datetime' }, '2026-12-02T10:30:15.123Z'))
    assert.isNull(checkTypedValue({ type: 'datetime' }, '2026-12-02T10:30:00+02:00'))
    assert.isString(checkTypedValue({ type: 'datetime' }, '2026-12-02T25:00'))
    assert.isString(checkTypedValue({ type: 'datetime' }, '2026-12-02'))
    assert.isString(
      checkTypedValue({ type: 'datetime', min: '2026-12-02T00:00:00Z' }, '2026-12-01T23:59:00Z')
    )
    assert.isString(
      checkTypedValue({ type: 'datetime', max: '2026-12-02T00:00:00Z' }, '2026-12-02T00:01:00Z')
    )
  })

  test('email, url, text length and pattern', ({ assert }) => {
    assert.isNull(checkTypedValue({ type: 'email' }, 'ada@example.com'))
    assert.equal(checkTypedValue({ type: 'email' }, 'ada'), 'must be an email address')
    assert.isNull(checkTypedValue({ type: 'url' }, 'https://adonisjs.com/docs'))
    assert.equal(
      checkTypedValue({ type: 'url' }, 'adonisjs.com'),
      'must be an absolute http(s) URL'
    )
    assert.isNull(checkTypedValue({ type: 'url' }, 'http://localhost:3333/'))
    for (const unsafe of ['javascript:alert(1)', 'data:text/html,hi', 'file:///etc/passwd']) {
      assert.equal(checkTypedValue({ type: 'url' }, unsafe), 'must be an absolute http(s) URL')
    }
    assert.equal(checkTypedValue({ type: 'text', min: 3 }, 'ab'), 'length must be at least 3')
    assert.equal(checkTypedValue({ type: 'text', max: 3 }, 'abcd'), 'length must be at most 3')
    assert.isNull(checkTypedValue({ type: 'text', pattern: '^[a-z]+$' }, 'abc'))
    assert.equal(
      checkTypedValue({ type: 'text', pattern: '^[a-z]+$' }, 'ABC'),
      'must match the pattern ^[a-z]+$'
    )
    assert.equal(checkTypedValue({ type: 'text' }, '   '), 'must not be empty')
  })
})

test.group('Values | against a question', () => {
  const db = {
    id: 'db',
    prompt: 'Which database?',
    options: [
      { value: 'pg', label: 'PostgreSQL' },
      { value: 'mysql', label: 'MySQL' },
    ],
    defaults: ['pg'],
  }

  test('option values pass, others are refused with the list on offer', ({ assert }) => {
    assert.isNull(checkValue(db, 'pg'))
    assert.equal(checkValue(db, 'mongo'), 'is not one of the options (pg, mysql)')
  })

  test('free text passes when allowed, under the typed rules when typed', ({ assert }) => {
    assert.isNull(checkValue({ ...db, allowFreeText: true }, 'mongo'))
    assert.equal(
      checkValue({ ...db, allowFreeText: true, input: { type: 'integer' } }, 'mongo'),
      'must be a whole number'
    )
  })

  test('a question without options is typed text by default', ({ assert }) => {
    assert.equal(inputTypeOf({}), 'text')
    assert.equal(inputTypeOf({ options: db.options }), 'select')
    assert.equal(inputTypeOf({ input: { type: 'date' } }), 'date')
    assert.isNull(checkValue({ id: 'x', prompt: 'Name?', defaults: [] }, 'Ada'))
  })

  test('limits merge over the defaults', ({ assert }) => {
    assert.deepEqual(resolveLimits({ maxQuestions: 2 }).maxQuestions, 2)
    assert.deepEqual(resolveLimits().askBudget, 3)
    assert.deepEqual(resolveLimits().maxOptions, 6)
  })
})
