/*
 * MCP form elicitation <-> question sets. The request schemas below are the
 * MCP specification's own examples: "Protocol Revision 2025-06-18" and
 * "2025-11-25", page client/elicitation (modelcontextprotocol/modelcontextprotocol,
 * docs/specification/<revision>/client/elicitation.mdx). Answers go through
 * the real `settleQuestionSet`, so a round trip here is the inbox's round trip.
 */

import { test } from '@japa/runner'
import {
  elicitationResultFromOutcome,
  questionSetFromElicitation,
  type ElicitationRequest,
  type McpPrimitiveSchema,
} from '../../src/mcp/main.ts'
import { settleQuestionSet } from '../../src/questions/settle.ts'
import type { QuestionOutcome, QuestionSet } from '../../src/questions/types.ts'
import { SPEC_2025_11_25, SPEC_2025_11_25_DEFAULTS } from '../fixtures/mcp_schemas.ts'

const ctx = { answeredBy: 'user-1', answeredVia: 'web' } as const

/** Builds the request, asks it and settles the reply, as the inbox would. */
function roundTrip(request: ElicitationRequest, answers: Record<string, string[]>, skip = false) {
  const set = questionSetFromElicitation(request)
  const outcome = settleQuestionSet(set, { answers, skip }, ctx)
  return { set, outcome, result: elicitationResultFromOutcome(request, outcome) }
}

/** A one-property request, for the per-type rules. */
function single(property: McpPrimitiveSchema, required = false): ElicitationRequest {
  return {
    message: 'One question',
    requestedSchema: {
      type: 'object',
      properties: { field: property },
      ...(required && { required: ['field'] }),
    },
  }
}

function questionOf(property: McpPrimitiveSchema, required = false) {
  return questionSetFromElicitation(single(property, required)).questions[0]
}

/** 2025-06-18 and 2025-11-25, "Simple Text Request". */
const SIMPLE_TEXT: ElicitationRequest = {
  message: 'Please provide your GitHub username',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
  },
}

/** 2025-06-18 and 2025-11-25, "Structured Data Request". */
const STRUCTURED: ElicitationRequest = {
  message: 'Please provide your contact information',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Your full name' },
      email: { type: 'string', format: 'email', description: 'Your email address' },
      age: { type: 'number', minimum: 18, description: 'Your age' },
    },
    required: ['name', 'email'],
  },
}

/** 2025-06-18, "Request Schema". */
const REQUEST_SCHEMA: ElicitationRequest = {
  message: 'Request schema example',
  requestedSchema: {
    type: 'object',
    properties: {
      propertyName: {
        type: 'string',
        title: 'Display Name',
        description: 'Description of the property',
      },
      anotherProperty: { type: 'number', minimum: 0, maximum: 100 },
    },
    required: ['propertyName'],
  },
}

/** 2025-06-18 "Enum Schema" (deprecated as LegacyTitledEnumSchema in 2025-11-25). */
const LEGACY_ENUM: McpPrimitiveSchema = {
  type: 'string',
  title: 'Display Name',
  description: 'Description text',
  enum: ['option1', 'option2', 'option3'],
  enumNames: ['Option 1', 'Option 2', 'Option 3'],
}

const RGB = [
  { value: 'Red', label: 'Red' },
  { value: 'Green', label: 'Green' },
  { value: 'Blue', label: 'Blue' },
]
const HEX = [
  { value: '#FF0000', label: 'Red' },
  { value: '#00FF00', label: 'Green' },
  { value: '#0000FF', label: 'Blue' },
]

test.group('MCP elicitation | request to question set', () => {
  test('simple text request: message is the preamble, the key the prompt, required kept', ({
    assert,
  }) => {
    assert.deepEqual(questionSetFromElicitation(SIMPLE_TEXT), {
      preamble: 'Please provide your GitHub username',
      questions: [
        { id: 'name', prompt: 'name', input: { type: 'text', required: true }, defaults: [] },
      ],
    } satisfies QuestionSet)
  })

  test('structured data request: description is the prompt without a title', ({ assert }) => {
    assert.deepEqual(questionSetFromElicitation(STRUCTURED).questions, [
      {
        id: 'name',
        prompt: 'Your full name',
        input: { type: 'text', required: true },
        defaults: [],
      },
      {
        id: 'email',
        prompt: 'Your email address',
        input: { type: 'email', required: true },
        defaults: [],
      },
      { id: 'age', prompt: 'Your age', input: { type: 'number', min: 18 }, defaults: [] },
    ])
  })

  test('title is the prompt and description stays when both exist', ({ assert }) => {
    assert.deepEqual(questionSetFromElicitation(REQUEST_SCHEMA).questions, [
      {
        id: 'propertyName',
        prompt: 'Display Name',
        description: 'Description of the property',
        input: { type: 'text', required: true },
        defaults: [],
      },
      {
        id: 'anotherProperty',
        prompt: 'anotherProperty',
        input: { type: 'number', min: 0, max: 100 },
        defaults: [],
      },
    ])
  })

  test('string format {format} -> input {expected.type}')
    .with([
      { format: undefined, expected: { type: 'text', min: 3, max: 50 } },
      { format: 'email', expected: { type: 'email', min: 3, max: 50 } },
      { format: 'uri', expected: { type: 'url', min: 3, max: 50 } },
      // Length bounds would be read as calendar bounds by a date input: not mapped.
      { format: 'date', expected: { type: 'date' } },
      { format: 'date-time', expected: { type: 'datetime' } },
    ] as const)
    .run(({ assert }, { format, expected }) => {
      // 2025-06-18 "String Schema", format varied over the supported list
      const property: McpPrimitiveSchema = {
        type: 'string',
        title: 'Display Name',
        description: 'Description text',
        minLength: 3,
        maxLength: 50,
        ...(format && { format }),
      }
      assert.deepEqual(questionOf(property).input, expected)
    })

  test('every 2025-11-25 primitive maps to its question', ({ assert }) => {
    const set = questionSetFromElicitation(SPEC_2025_11_25)
    const byId = Object.fromEntries(set.questions.map((question) => [question.id, question]))

    assert.deepEqual(byId.displayName.input, { type: 'email', min: 3, max: 50 })
    assert.deepEqual(byId.displayName.defaults, ['user@example.com'])
    assert.deepEqual(byId.score.input, { type: 'integer', min: 0, max: 100 })
    assert.deepEqual(byId.score.defaults, ['50'])
    assert.deepEqual(byId.ratio.input, { type: 'number', min: 0, max: 100 })
    assert.deepEqual(byId.ratio.defaults, ['50'])
    assert.deepEqual(byId.agreed, {
      id: 'agreed',
      prompt: 'Display Name',
      description: 'Description text',
      options: [
        { value: 'true', label: 'Yes', hotkey: 'y' },
        { value: 'false', label: 'No', hotkey: 'n' },
      ],
      defaults: ['false'],
    })
    assert.deepEqual(byId.color, {
      id: 'color',
      prompt: 'Color Selection',
      description: 'Choose your favorite color',
      options: RGB,
      defaults: ['Red'],
    })
    assert.deepEqual(byId.hex.options, HEX)
    assert.deepEqual(byId.hex.defaults, ['#FF0000'])
    assert.deepEqual(byId.colors, {
      id: 'colors',
      prompt: 'Color Selection',
      description: 'Choose your favorite colors Pick 1 to 2.',
      options: RGB,
      multiple: true,
      defaults: ['Red', 'Green'],
    })
    assert.deepEqual(byId.hexes.options, HEX)
    assert.isTrue(byId.hexes.multiple)
    assert.deepEqual(byId.hexes.defaults, ['#FF0000', '#00FF00'])
  })

  test('2025-11-25 string example: pattern is kept, and its default fails it so is dropped', ({
    assert,
  }) => {
    // The page's example pairs pattern ^[A-Za-z]+$ with default user@example.com;
    // a pre-pick must pass its own rules (docs/design.md §3.2), so the default goes.
    const example: McpPrimitiveSchema = {
      type: 'string',
      title: 'Display Name',
      description: 'Description text',
      minLength: 3,
      maxLength: 50,
      pattern: '^[A-Za-z]+$',
      format: 'email',
      default: 'user@example.com',
    }
    const question = questionOf(example)
    assert.deepEqual(question.input, { type: 'email', min: 3, max: 50, pattern: '^[A-Za-z]+$' })
    assert.deepEqual(question.defaults, [])

    assert.deepEqual(questionOf({ type: 'string', pattern: '^[a-z]+$', default: 'ok' }).defaults, [
      'ok',
    ])
  })

  test('date and date-time defaults are kept when valid, dropped when not', ({ assert }) => {
    assert.deepEqual(
      questionOf({ type: 'string', format: 'date', default: '2026-12-02' }).defaults,
      ['2026-12-02']
    )
    assert.deepEqual(
      questionOf({ type: 'string', format: 'date', default: '02/12/2026' }).defaults,
      []
    )
    assert.deepEqual(
      questionOf({ type: 'string', format: 'date-time', default: '2026-12-02T10:30:00Z' }).defaults,
      ['2026-12-02T10:30:00Z']
    )
  })

  test('number defaults are stringified, and dropped when they break the rules', ({ assert }) => {
    assert.deepEqual(questionOf({ type: 'number', default: 2.5 }).defaults, ['2.5'])
    assert.deepEqual(questionOf({ type: 'integer', default: 2.5 }).defaults, [])
    assert.deepEqual(questionOf({ type: 'number', maximum: 100, default: 150 }).defaults, [])
    assert.deepEqual(questionOf({ type: 'integer', minimum: 0, default: -1 }).defaults, [])
  })

  test('required typed properties get input.required, optional ones do not', ({ assert }) => {
    assert.isTrue(questionOf({ type: 'integer' }, true).input?.required)
    assert.notProperty(questionOf({ type: 'integer' }).input ?? {}, 'required')
    assert.isTrue(questionOf({ type: 'string', format: 'date' }, true).input?.required)
  })

  test('boolean pre-picks its default, and false without one', ({ assert }) => {
    assert.deepEqual(questionOf({ type: 'boolean', default: true }).defaults, ['true'])
    assert.deepEqual(questionOf({ type: 'boolean', default: false }).defaults, ['false'])
    assert.deepEqual(questionOf({ type: 'boolean' }).defaults, ['false'])
    assert.isUndefined(questionOf({ type: 'boolean' }).input)
  })

  test('single-select pre-picks the first option without a usable default', ({ assert }) => {
    assert.deepEqual(questionOf({ type: 'string', enum: ['Red', 'Green', 'Blue'] }).defaults, [
      'Red',
    ])
    assert.deepEqual(
      questionOf({ type: 'string', enum: ['Red', 'Green', 'Blue'], default: 'Purple' }).defaults,
      ['Red']
    )
    assert.deepEqual(
      questionOf({ type: 'string', enum: ['Red', 'Green', 'Blue'], default: 'Blue' }).defaults,
      ['Blue']
    )
    assert.deepEqual(
      questionOf({ type: 'string', oneOf: [{ const: '#0000FF', title: 'Blue' }] }).defaults,
      ['#0000FF']
    )
  })

  test('legacy enumNames label the options; a missing name falls back to the value', ({
    assert,
  }) => {
    const question = questionOf(LEGACY_ENUM)
    assert.deepEqual(question.options, [
      { value: 'option1', label: 'Option 1' },
      { value: 'option2', label: 'Option 2' },
      { value: 'option3', label: 'Option 3' },
    ])
    assert.deepEqual(question.defaults, ['option1'])
    assert.isUndefined(question.multiple)

    const short = questionOf({ type: 'string', enum: ['a', 'b'], enumNames: ['A'] })
    assert.deepEqual(short.options, [
      { value: 'a', label: 'A' },
      { value: 'b', label: 'b' },
    ])
  })

  test('a titled option without a title is labelled by its value', ({ assert }) => {
    const property = { type: 'string', oneOf: [{ const: 'x' }] } as unknown as McpPrimitiveSchema
    assert.deepEqual(questionOf(property).options, [{ value: 'x', label: 'x' }])
  })

  test('multi-select item bounds {minItems}..{maxItems} -> {note}')
    .with([
      { minItems: 1, maxItems: 2, note: 'Pick 1 to 2.' },
      { minItems: 2, maxItems: 2, note: 'Pick exactly 2.' },
      { minItems: 2, maxItems: undefined, note: 'Pick at least 2.' },
      { minItems: undefined, maxItems: 2, note: 'Pick at most 2.' },
      { minItems: undefined, maxItems: undefined, note: undefined },
    ])
    .run(({ assert }, { minItems, maxItems, note }) => {
      const question = questionOf({
        type: 'array',
        title: 'Color Selection',
        items: { type: 'string', enum: ['Red', 'Green', 'Blue'] },
        ...(minItems !== undefined && { minItems }),
        ...(maxItems !== undefined && { maxItems }),
      })
      assert.equal(question.description, note)
    })

  test('multi-select pre-picks the server default only when it fits, else the first options', ({
    assert,
  }) => {
    const base: McpPrimitiveSchema = {
      type: 'array',
      items: { type: 'string', enum: ['Red', 'Green', 'Blue'] },
    }
    assert.deepEqual(questionOf({ ...base, default: ['Blue'] }).defaults, ['Blue'])
    assert.deepEqual(questionOf(base).defaults, ['Red'])
    assert.deepEqual(questionOf({ ...base, minItems: 2 }).defaults, ['Red', 'Green'])
    assert.deepEqual(questionOf({ ...base, default: [] }).defaults, ['Red'])
    assert.deepEqual(questionOf({ ...base, default: ['Blue', 'Purple'] }).defaults, ['Red'])
    assert.deepEqual(questionOf({ ...base, maxItems: 1, default: ['Blue', 'Green'] }).defaults, [
      'Red',
    ])
    assert.deepEqual(questionOf({ ...base, minItems: 2, default: ['Blue'] }).defaults, [
      'Red',
      'Green',
    ])
  })
})

test.group('MCP elicitation | unsupported requests', () => {
  function refusal(request: unknown) {
    try {
      questionSetFromElicitation(request as ElicitationRequest)
    } catch (error) {
      return error as { code: string; status: number; message: string }
    }
    throw new Error('expected the request to be refused')
  }

  test('{name} is refused, naming {names}')
    .with([
      {
        name: 'a nested object',
        property: { type: 'object', properties: { street: { type: 'string' } } },
        names: 'property "field" is a nested object',
      },
      {
        name: 'an array of objects',
        property: { type: 'array', items: { type: 'object' } },
        names: 'property "field" is an array whose items are not a string enum',
      },
      {
        name: 'an array of free strings',
        property: { type: 'array', items: { type: 'string' } },
        names: 'property "field" is an array whose items are not a string enum',
      },
      {
        name: 'an array without items',
        property: { type: 'array' },
        names: 'property "field" is an array without enum items',
      },
      {
        name: 'a null type',
        property: { type: 'null' },
        names: 'property "field" has the unsupported type "null"',
      },
      {
        name: 'a missing type',
        property: { title: 'Untyped' },
        names: 'property "field" has the unsupported type "undefined"',
      },
      {
        name: 'a schema that is not an object',
        property: 'string',
        names: 'property "field" is not a schema object',
      },
      {
        name: 'an unknown format',
        property: { type: 'string', format: 'hostname' },
        names: 'property "field" has the format "hostname"',
      },
      {
        name: 'a number enum',
        property: { type: 'number', enum: [1, 2] },
        names: 'property "field" is an enum of type "number"',
      },
      {
        name: 'a string enum of numbers',
        property: { type: 'string', enum: [1, 2] },
        names: 'property "field" has an enum that is not a list of strings',
      },
      {
        name: 'an empty enum',
        property: { type: 'string', enum: [] },
        names: 'property "field" offers no option',
      },
      {
        name: 'a oneOf that is not a list',
        property: { type: 'string', oneOf: { const: 'a' } },
        names: 'property "field" has a oneOf that is not a list',
      },
      {
        name: 'a oneOf entry without const',
        property: { type: 'string', oneOf: [{ title: 'A' }] },
        names: 'property "field" has oneOf[0] without a string "const"',
      },
      {
        name: 'an anyOf entry without const',
        property: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }, { title: 'B' }] } },
        names: 'property "field" has items.anyOf[1] without a string "const"',
      },
    ])
    .run(({ assert }, { property, names }) => {
      const error = refusal({
        message: 'm',
        requestedSchema: { type: 'object', properties: { field: property } },
      })
      assert.equal(error.code, 'E_UNSUPPORTED_ELICITATION')
      assert.equal(error.status, 422)
      assert.include(error.message, `Cannot ask the MCP elicitation: ${names}`)
    })

  test('a URL-mode request (2025-11-25 "Request Sensitive Data") is refused', ({ assert }) => {
    const error = refusal({
      mode: 'url',
      elicitationId: '550e8400-e29b-41d4-a716-446655440000',
      url: 'https://mcp.example.com/ui/set_api_key',
      message: 'Please provide your API key to continue.',
    })
    assert.equal(error.code, 'E_UNSUPPORTED_ELICITATION')
    assert.include(error.message, 'mode "url" is not form mode')
  })

  test('an explicit form mode is accepted', ({ assert }) => {
    const set = questionSetFromElicitation({ ...SIMPLE_TEXT, mode: 'form' })
    assert.equal(set.questions[0].id, 'name')
  })

  test('a broken envelope is refused, naming the part', ({ assert }) => {
    assert.include(
      refusal({ requestedSchema: SIMPLE_TEXT.requestedSchema }).message,
      'message is missing'
    )
    assert.include(
      refusal({ message: 'm', requestedSchema: { type: 'array', items: {} } }).message,
      'requestedSchema is not an object schema with properties'
    )
    assert.include(
      refusal({
        message: 'm',
        requestedSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
      }).message,
      'requestedSchema.required names "b", which is not a property'
    )
  })

  test('a request with no property is refused as a question set (it is a confirmation)', ({
    assert,
  }) => {
    const error = refusal({
      message: 'Proceed?',
      requestedSchema: { type: 'object', properties: {} },
    })
    assert.include(error.message, 'ask it as an approval')
  })
})

test.group('MCP elicitation | outcome to result', () => {
  test('simple text: the spec response comes back', ({ assert }) => {
    const { result } = roundTrip(SIMPLE_TEXT, { name: ['octocat'] })
    assert.deepEqual(result, { action: 'accept', content: { name: 'octocat' } })
  })

  test('structured data: the spec response comes back, age as a number', ({ assert }) => {
    const { result } = roundTrip(STRUCTURED, {
      name: ['Monalisa Octocat'],
      email: ['octocat@github.com'],
      age: ['30'],
    })
    assert.deepEqual(result, {
      action: 'accept',
      content: { name: 'Monalisa Octocat', email: 'octocat@github.com', age: 30 },
    })
    assert.strictEqual((result.content as Record<string, unknown>).age, 30)
  })

  test('structured data: an optional field left empty is omitted', ({ assert }) => {
    const { result } = roundTrip(STRUCTURED, {
      name: ['Monalisa Octocat'],
      email: ['octocat@github.com'],
    })
    assert.deepEqual(result, {
      action: 'accept',
      content: { name: 'Monalisa Octocat', email: 'octocat@github.com' },
    })
  })

  test('2025-11-25: some answered, the rest defaulted, all typed back', ({ assert }) => {
    const { outcome, result } = roundTrip(SPEC_2025_11_25, {
      score: ['+7'],
      agreed: ['true'],
      hex: ['#0000FF'],
      colors: ['Blue'],
    })
    assert.sameMembers(outcome.defaulted, ['displayName', 'ratio', 'color', 'hexes'])
    assert.deepEqual(result, {
      action: 'accept',
      content: {
        displayName: 'user@example.com',
        score: 7,
        ratio: 50,
        agreed: true,
        color: 'Red',
        hex: '#0000FF',
        colors: ['Blue'],
        hexes: ['#FF0000', '#00FF00'],
      },
    })
  })

  test('2025-11-25: all defaults, booleans stay booleans', ({ assert }) => {
    const { result } = roundTrip(SPEC_2025_11_25, {})
    assert.deepEqual(result.content, SPEC_2025_11_25_DEFAULTS)
    assert.strictEqual(result.content?.agreed, false)
  })

  test('legacy enum, date and date-time round trip', ({ assert }) => {
    const request: ElicitationRequest = {
      message: 'Book it',
      requestedSchema: {
        type: 'object',
        properties: {
          option: LEGACY_ENUM,
          day: { type: 'string', format: 'date' },
          at: { type: 'string', format: 'date-time' },
          site: { type: 'string', format: 'uri' },
          ratio: { type: 'number' },
        },
        required: ['day'],
      },
    }
    const { result } = roundTrip(request, {
      option: ['option2'],
      day: ['2026-12-02'],
      at: ['2026-12-02T10:30:00Z'],
      site: ['https://adonisjs.com'],
      ratio: ['1e3'],
    })
    assert.deepEqual(result, {
      action: 'accept',
      content: {
        option: 'option2',
        day: '2026-12-02',
        at: '2026-12-02T10:30:00Z',
        site: 'https://adonisjs.com',
        ratio: 1000,
      },
    })
  })

  test('keys outside the schema never reach the content', ({ assert }) => {
    const { result } = roundTrip(SIMPLE_TEXT, { name: ['octocat'], extra: ['sneaky'] })
    assert.deepEqual(result.content, { name: 'octocat' })

    const forged: QuestionOutcome = {
      ...roundTrip(SIMPLE_TEXT, { name: ['octocat'] }).outcome,
      answers: { name: ['octocat'], admin: ['true'] },
    }
    assert.deepEqual(elicitationResultFromOutcome(SIMPLE_TEXT, forged).content, { name: 'octocat' })
  })

  test('a property missing from the answers has no value', ({ assert }) => {
    const outcome: QuestionOutcome = { ...roundTrip(STRUCTURED, {}).outcome, answers: {} }
    assert.deepEqual(elicitationResultFromOutcome(STRUCTURED, outcome), { action: 'decline' })
    const optional: ElicitationRequest = {
      ...STRUCTURED,
      requestedSchema: { ...STRUCTURED.requestedSchema, required: [] },
    }
    assert.deepEqual(elicitationResultFromOutcome(optional, outcome), {
      action: 'accept',
      content: {},
    })
  })

  test('values that slipped past settling are re-checked and dropped', ({ assert }) => {
    const request: ElicitationRequest = {
      message: 'm',
      requestedSchema: {
        type: 'object',
        properties: {
          count: { type: 'integer' },
          color: { type: 'string', enum: ['Red', 'Green'] },
          agreed: { type: 'boolean' },
          code: { type: 'string', maxLength: 3 },
        },
      },
    }
    const outcome: QuestionOutcome = {
      ...roundTrip(request, {}).outcome,
      answers: { count: ['3.5'], color: ['Purple'], agreed: ['yes'], code: ['abcd'] },
    }
    assert.deepEqual(elicitationResultFromOutcome(request, outcome), {
      action: 'accept',
      content: {},
    })

    const required = {
      ...request,
      requestedSchema: { ...request.requestedSchema, required: ['count'] },
    }
    assert.deepEqual(elicitationResultFromOutcome(required, outcome), { action: 'decline' })
  })

  test('multi-select: cut to maxItems, duplicates merged, too few omitted or declined', ({
    assert,
  }) => {
    const request = (required: boolean): ElicitationRequest =>
      single(
        {
          type: 'array',
          minItems: 2,
          maxItems: 2,
          items: { type: 'string', enum: ['Red', 'Green', 'Blue'] },
        },
        required
      )
    const withAnswers = (answers: string[], required = false) =>
      elicitationResultFromOutcome(request(required), {
        ...roundTrip(request(required), {}).outcome,
        answers: { field: answers },
      })

    assert.deepEqual(withAnswers(['Blue', 'Red', 'Green']).content, { field: ['Blue', 'Red'] })
    assert.deepEqual(withAnswers(['Blue', 'Blue', 'Green']).content, { field: ['Blue', 'Green'] })
    assert.deepEqual(withAnswers(['Blue', 'Purple']).content, {})
    assert.deepEqual(withAnswers(['Blue'], true), { action: 'decline' })
  })

  test('multi-select: an empty pick is omitted when optional, [] when required', ({ assert }) => {
    const property: McpPrimitiveSchema = {
      type: 'array',
      items: { type: 'string', enum: ['Red', 'Green'] },
    }
    const outcomeFor = (request: ElicitationRequest): QuestionOutcome => ({
      ...roundTrip(request, {}).outcome,
      answers: { field: [] },
    })
    assert.deepEqual(elicitationResultFromOutcome(single(property), outcomeFor(single(property))), {
      action: 'accept',
      content: {},
    })
    const required = single(property, true)
    assert.deepEqual(elicitationResultFromOutcome(required, outcomeFor(required)), {
      action: 'accept',
      content: { field: [] },
    })
  })

  test('a required field with no value declines rather than send a broken accept', ({ assert }) => {
    const { result } = roundTrip(STRUCTURED, {
      name: ['Monalisa Octocat'],
      email: ['not-an-email'],
    })
    assert.deepEqual(result, { action: 'decline' })
  })

  test('skip declines, even when the defaults would fill the form', ({ assert }) => {
    const { outcome, result } = roundTrip(SPEC_2025_11_25, { score: ['7'] }, true)
    assert.isTrue(outcome.skipped)
    assert.deepEqual(result, { action: 'decline' })
  })

  test('approve and reject of the set accept defaults and decline', ({ assert }) => {
    const set = questionSetFromElicitation(SPEC_2025_11_25)
    // An approval of a question set settles as all defaults, a rejection as a skip.
    const approved = settleQuestionSet(set, { answers: {} }, ctx)
    const rejected = settleQuestionSet(set, { answers: {}, skip: true }, ctx)
    assert.equal(elicitationResultFromOutcome(SPEC_2025_11_25, approved).action, 'accept')
    assert.deepEqual(elicitationResultFromOutcome(SPEC_2025_11_25, rejected), {
      action: 'decline',
    })
  })

  test('a decision: rejected declines, approved accepts every default', ({ assert }) => {
    assert.deepEqual(
      elicitationResultFromOutcome(SPEC_2025_11_25, { kind: 'decision', approved: false }),
      { action: 'decline' }
    )
    const approved = elicitationResultFromOutcome(SPEC_2025_11_25, {
      kind: 'decision',
      approved: true,
    })
    assert.deepEqual(approved, roundTrip(SPEC_2025_11_25, {}).result)

    // An approved decision cannot fill a required field that has no default.
    assert.deepEqual(
      elicitationResultFromOutcome(SIMPLE_TEXT, { kind: 'decision', approved: true }),
      {
        action: 'decline',
      }
    )
  })

  test('a confirmation with no property: approve accepts with empty content', ({ assert }) => {
    const confirm: ElicitationRequest = {
      message: 'Proceed?',
      requestedSchema: { type: 'object', properties: {} },
    }
    assert.deepEqual(elicitationResultFromOutcome(confirm, { kind: 'decision', approved: true }), {
      action: 'accept',
      content: {},
    })
  })

  test('no outcome (cancelled wait) cancels', ({ assert }) => {
    assert.deepEqual(elicitationResultFromOutcome(SIMPLE_TEXT, null), { action: 'cancel' })
  })

  test('expiry cancels, whatever the expiry rule settled', ({ assert }) => {
    const set = questionSetFromElicitation(SPEC_2025_11_25)
    const onDefaults = settleQuestionSet(set, { answers: {} }, { ...ctx, expired: true })
    const onReject = settleQuestionSet(set, { answers: {}, skip: true }, { ...ctx, expired: true })
    assert.deepEqual(elicitationResultFromOutcome(SPEC_2025_11_25, onDefaults), {
      action: 'cancel',
    })
    assert.deepEqual(elicitationResultFromOutcome(SPEC_2025_11_25, onReject), { action: 'cancel' })
    assert.deepEqual(
      elicitationResultFromOutcome(SPEC_2025_11_25, {
        kind: 'decision',
        approved: false,
        expired: true,
      }),
      { action: 'cancel' }
    )
  })

  test('an unsupported request is refused on the way back too', ({ assert }) => {
    const request = single({ type: 'object' } as unknown as McpPrimitiveSchema)
    assert.throws(
      () => elicitationResultFromOutcome(request, { kind: 'decision', approved: true }),
      /nested object/
    )
  })
})
