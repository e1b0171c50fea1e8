/*
 * Which defaults hold (src/questions/defaults.ts): the one rule settling,
 * the terminal, the inbox page and MCP share.
 */

import { test } from '@japa/runner'
import { effectiveDefaults, splitDefaults } from '../../src/questions/defaults.ts'
import type { Question } from '../../src/questions/types.ts'

/** An option question offering `values`, each labelled by its value */
function offering(id: string, values: string[], extra: Partial<Question> = {}): Question {
  const options = values.map((value) => ({ value, label: value }))
  return { id, prompt: `${id}?`, options, defaults: [values[0]], ...extra }
}

const db = offering('db', ['pg', 'sqlite', 'mysql'])
const extras = offering('extras', ['auth', 'mail', 'queue'], { multiple: true })
const replicas: Question = {
  id: 'replicas',
  prompt: 'How many replicas?',
  input: { type: 'integer', min: 1, max: 5 },
  defaults: ['2'],
}

test.group('Defaults | which hold', () => {
  test('option values hold; values not on offer are dropped', ({ assert }) => {
    assert.deepEqual(effectiveDefaults(db), ['pg'])
    assert.deepEqual(splitDefaults({ ...db, defaults: ['mongo'] }), {
      values: [],
      dropped: ['mongo'],
    })
  })

  test('a single-choice question keeps its first default that holds', ({ assert }) => {
    assert.deepEqual(splitDefaults({ ...db, defaults: ['mongo', 'mysql', 'sqlite'] }), {
      values: ['mysql'],
      dropped: ['mongo', 'sqlite'],
    })
  })

  test('free text holds where it is allowed and passes the typed rules', ({ assert }) => {
    const tz: Question = { ...db, allowFreeText: true, defaults: ['Europe/Lisbon'] }
    assert.deepEqual(splitDefaults(tz), { values: ['Europe/Lisbon'], dropped: [] })

    const email: Question = { ...tz, input: { type: 'email' }, defaults: ['nope'] }
    assert.deepEqual(splitDefaults(email), { values: [], dropped: ['nope'] })
    assert.deepEqual(effectiveDefaults({ ...email, defaults: ['ops@example.com'] }), [
      'ops@example.com',
    ])
  })

  test('one free-text value at most, options first in the order offered', ({ assert }) => {
    const open: Question = {
      ...extras,
      allowFreeText: true,
      defaults: ['sms', 'queue', 'push', 'auth', 'queue'],
    }
    assert.deepEqual(splitDefaults(open), { values: ['auth', 'queue', 'sms'], dropped: ['push'] })
  })

  test('typed defaults hold when they pass their rules, in their own order', ({ assert }) => {
    assert.deepEqual(splitDefaults({ ...replicas, defaults: ['9'] }), {
      values: [],
      dropped: ['9'],
    })
    const several: Question = { ...replicas, multiple: true, defaults: ['4', '0', '1', '4'] }
    assert.deepEqual(splitDefaults(several), { values: ['4', '1'], dropped: ['0'] })
  })

  test('a question without defaults has none', ({ assert }) => {
    assert.deepEqual(splitDefaults({ id: 'notes', prompt: '?', defaults: [] }), {
      values: [],
      dropped: [],
    })
  })
})
