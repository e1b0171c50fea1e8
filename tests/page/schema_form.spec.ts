/*
 * The args form's logic, shared by the React and Vue pages
 * (stubs/inertia/agent_inbox/schema_form.ts), against the JSON Schema the
 * package publishes from a real Vine schema: which fields it makes (text,
 * numbers, a boolean, an enum as a select, nested objects, arrays, JSON
 * for what it cannot describe), what typing makes of the args, where
 * the server's errors go, and how an edit is told afterwards (the fields it
 * changed, before → after).
 */

import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import { defineTool } from '../../src/runtime/define_tool.ts'
import {
  argsErrors,
  argsForm,
  emptyValue,
  inputText,
  labelOf,
  removeAt,
  setAt,
  valueAt,
  valueFromInput,
  type SchemaField,
} from '../../stubs/inertia/agent_inbox/schema_form.ts'
import { argsChangeLines } from '../../stubs/inertia/agent_inbox/args_changes.ts'

const release = defineTool({
  name: 'release',
  description: 'Release',
  kind: 'action',
  input: vine.object({
    branch: vine.string().minLength(1),
    force: vine.boolean().optional(),
    replicas: vine.number().withoutDecimals().range([1, 9]),
    ratio: vine.number().min(0).max(1).nullable(),
    env: vine.enum(['staging', 'production']),
    contact: vine.string().email().optional(),
    tags: vine.array(vine.string()).minLength(1),
    limits: vine.object({ cpu: vine.number(), memoryLimit: vine.string().optional() }),
    targets: vine.array(vine.object({ host: vine.string(), port: vine.number() })).optional(),
    when: vine.date().optional(),
  }),
  handle: () => null,
})

function byName(form: SchemaField, name: string): SchemaField {
  const found = form.fields?.find((item) => item.name === name)
  if (!found) throw new Error(`No field ${name}`)
  return found
}

test.group('Args form', () => {
  test('a Vine schema becomes fields of the right kind, in order', ({ assert }) => {
    const form = argsForm(release.jsonSchema)!
    assert.equal(form.kind, 'object')
    assert.equal(form.label, 'Arguments')
    assert.deepEqual(
      form.fields!.map((item) => `${item.name}:${item.kind}${item.required ? '*' : ''}`),
      [
        'branch:text*',
        'force:boolean',
        'replicas:integer*',
        'ratio:number',
        'env:select*',
        'contact:text',
        'tags:array*',
        'limits:object*',
        'targets:array',
        'when:json',
      ]
    )
    assert.equal(byName(form, 'branch').minLength, 1)
    assert.deepEqual([byName(form, 'replicas').min, byName(form, 'replicas').max], [1, 9])
    assert.isTrue(byName(form, 'ratio').nullable)
    assert.deepEqual(
      byName(form, 'env').options!.map((option) => option.value),
      ['staging', 'production']
    )
    assert.equal(byName(form, 'contact').inputType, 'email')
    assert.equal(byName(form, 'tags').item!.kind, 'text')
    assert.deepEqual(
      byName(form, 'limits').fields!.map((item) => [item.label, item.required]),
      [
        ['Cpu', true],
        ['Memory limit', false],
      ]
    )
    assert.equal(byName(form, 'targets').item!.kind, 'object')
    // No object to fill: the page offers JSON only
    assert.isNull(argsForm({ type: 'string' }))
    assert.isNull(argsForm(null))
  })

  test('typing changes the args at their path, never in place', ({ assert }) => {
    const form = argsForm(release.jsonSchema)!
    const args = { branch: 'main', limits: { cpu: 1 }, tags: ['a', 'b'] }
    const cpu = byName(form, 'limits').fields![0]
    const read = (field: SchemaField, text: string) => {
      const result = valueFromInput(field, text)
      if ('error' in result) throw new Error(result.error)
      return result.value
    }
    const next = setAt(args, ['limits', 'cpu'], read(cpu, '2.5'))
    assert.deepEqual(valueAt(next, ['limits', 'cpu']), 2.5)
    assert.deepEqual(args.limits, { cpu: 1 })
    assert.deepEqual(valueAt(setAt(args, ['tags', 1], 'c'), ['tags']), ['a', 'c'])
    assert.deepEqual(valueAt(removeAt(args, ['tags', 0]), ['tags']), ['b'])
    // A blank optional field leaves the args; a blank required one is sent for the server to name
    const memory = byName(form, 'limits').fields![1]
    assert.deepEqual(setAt(args, ['limits', 'memoryLimit'], read(memory, '')), args)
    assert.equal(read(byName(form, 'branch'), ''), '')
    assert.isUndefined(read(byName(form, 'ratio'), ''))
    const nullable: SchemaField = { ...byName(form, 'ratio'), required: true }
    assert.isNull(read(nullable, ''))
    assert.equal(read(byName(form, 'replicas'), '3'), 3)
    assert.equal(read(byName(form, 'env'), '1'), 'production')
    assert.equal(inputText(byName(form, 'env'), 'production'), '1')
    assert.equal(read(byName(form, 'force'), 'true'), true)
    assert.deepEqual(read(byName(form, 'when'), '"2030-01-01"'), '2030-01-01')
    assert.deepEqual(valueFromInput(byName(form, 'when'), '{ nope'), {
      error: `Not valid JSON: ${jsonError('{ nope')}`,
    })
    assert.deepEqual(emptyValue(byName(form, 'targets').item!), { host: '', port: null })
    assert.equal(labelOf('max_retries'), 'Max retries')
  })

  test("the server's errors go beside their field; the rest above the form", ({ assert }) => {
    const form = argsForm(release.jsonSchema)!
    const split = argsErrors(form, {
      'editedInput.branch': ['must have at least 1 character'],
      'editedInput.tags.0': ['must be a string'],
      'editedInput.limits.cpu': ['must be a number'],
      'editedInput.nonsense': ['is not allowed'],
      'editedInput': ['must be an object'],
      'reason': ['too long'],
    })
    assert.deepEqual(split.byPath, {
      'branch': ['Must have at least 1 character'],
      'tags.0': ['Must be a string'],
      'limits.cpu': ['Must be a number'],
    })
    assert.deepEqual(split.rest, ['nonsense: Is not allowed', 'Must be an object'])
  })
})

function jsonError(text: string): string {
  try {
    JSON.parse(text)
    return ''
  } catch (error) {
    return (error as Error).message
  }
}

test.group('Args form | an edit told afterwards', () => {
  test("the fields it changed, before → after, in the form's order", ({ assert }) => {
    const before = {
      branch: 'main',
      force: false,
      replicas: 2,
      env: 'staging',
      tags: ['a', 'b'],
      limits: { cpu: 1, memoryLimit: '1G' },
      targets: [{ host: 'a.example', port: 80 }],
    }
    const after = {
      limits: { cpu: 2, memoryLimit: '1G' },
      targets: [{ host: 'b.example', port: 80 }],
      tags: ['a'],
      env: 'staging',
      replicas: 3,
      force: true,
      branch: 'release-7',
      contact: 'ops@example.com',
    }
    assert.deepEqual(argsChangeLines(before, after, argsForm(release.jsonSchema)), [
      'Branch: main → release-7',
      'Force: No → Yes',
      'Replicas: 2 → 3',
      'Contact: — → ops@example.com',
      'Tags 2: b → —',
      'Limits › Cpu: 1 → 2',
      'Targets 1 › Host: a.example → b.example',
    ])
  })

  test("without the schema (a settled row's card): by the property names, in the args' order", ({
    assert,
  }) => {
    assert.deepEqual(argsChangeLines({ maxRetries: 1 }, { maxRetries: 2, dryRun: true }), [
      'Max retries: 1 → 2',
      'Dry run: — → Yes',
    ])
    assert.deepEqual(argsChangeLines({ branch: 'main' }, { branch: 'main' }), [
      'Edited, with nothing changed',
    ])
  })
})
