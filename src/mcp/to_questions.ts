/*
 * MCP form elicitation -> question set: each property of the
 * `requestedSchema` parsed into one question (with what its answer needs to
 * be typed back), and `questionSetFromElicitation`, which throws
 * `E_UNSUPPORTED_ELICITATION` for anything form mode does not allow.
 *
 * Pure: imports the question model and the error codes only. Every default
 * is checked by `effectiveDefaults`, never by rules of its own.
 *
 * Choices the MCP specification leaves to the client, made here once:
 *  - Every option question pre-picks (docs/design.md §3.2). An enum without a usable
 *    server default pre-picks its first option (a multi-select its first
 *    `max(1, minItems)` options); a boolean without one pre-picks `false`,
 *    which is what a client's untouched checkbox sends, rather than putting
 *    a "Yes" in the person's mouth.
 *  - A server default that fails its own property's rules (not on offer, out
 *    of bounds, wrong type) is dropped, never sent back as if chosen.
 */

import { E_UNSUPPORTED_ELICITATION } from '../errors.ts'
import type { Question, QuestionInput, QuestionOption, QuestionSet } from '../questions/types.ts'
import { effectiveDefaults } from '../questions/defaults.ts'
import type { ElicitationRequest } from './types.ts'

/**
 * One property, parsed: the question asked for it and what its answer turns
 * back into. Shared with to_result.ts, not part of the public face.
 */
export type Field = {
  key: string
  required: boolean
  kind: 'string' | 'number' | 'boolean' | 'single' | 'multi'
  question: Question
  minItems?: number
  maxItems?: number
}

type Raw = Record<string, unknown>

const FORMATS = {
  'email': 'email',
  'uri': 'url',
  'date': 'date',
  'date-time': 'datetime',
} as const

const BOOLEAN_OPTIONS: QuestionOption[] = [
  { value: 'true', label: 'Yes', hotkey: 'y' },
  { value: 'false', label: 'No', hotkey: 'n' },
]

function isRecord(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string')
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function unsupported(key: string, problem: string): never {
  throw new E_UNSUPPORTED_ELICITATION([`property "${key}"`, problem])
}

/**
 * Reads `[{ const, title }]` (the `oneOf` of a titled single-select, the
 * `items.anyOf` of a titled multi-select) into options.
 */
function titledOptions(key: string, entries: unknown, where: string): QuestionOption[] {
  if (!Array.isArray(entries)) unsupported(key, `has a ${where} that is not a list`)
  return entries.map((entry, index) => {
    if (!isRecord(entry) || typeof entry.const !== 'string') {
      unsupported(key, `has ${where}[${index}] without a string "const"`)
    }
    const label = typeof entry.title === 'string' ? entry.title : entry.const
    return { value: entry.const, label }
  })
}

/**
 * The options of a single- or multi-select property, or `null` when the
 * property is not an enum.
 */
function enumOptions(key: string, schema: Raw): QuestionOption[] | null {
  let options: QuestionOption[] | null = null

  if (schema.type === 'array') {
    const items = schema.items
    if (!isRecord(items)) unsupported(key, 'is an array without enum items')
    if ('anyOf' in items) {
      options = titledOptions(key, items.anyOf, 'items.anyOf')
    } else if (items.type === 'string' && isStringArray(items.enum)) {
      options = items.enum.map((value) => ({ value, label: value }))
    } else {
      unsupported(
        key,
        'is an array whose items are not a string enum (arrays of objects or free values are not allowed)'
      )
    }
  } else if ('oneOf' in schema) {
    options = titledOptions(key, schema.oneOf, 'oneOf')
  } else if ('enum' in schema) {
    if (!isStringArray(schema.enum)) unsupported(key, 'has an enum that is not a list of strings')
    const names = isStringArray(schema.enumNames) ? schema.enumNames : []
    options = schema.enum.map((value, index) => ({ value, label: names[index] ?? value }))
  }

  if (options !== null && options.length === 0) unsupported(key, 'offers no option')
  return options
}

/**
 * Builds the question for one property, keeping what its answer needs to
 * be typed back.
 */
function parseField(key: string, schema: unknown, required: boolean): Field {
  if (!isRecord(schema)) unsupported(key, 'is not a schema object')

  const title = typeof schema.title === 'string' ? schema.title : undefined
  const description = typeof schema.description === 'string' ? schema.description : undefined
  const question: Question = { id: key, prompt: title ?? description ?? key, defaults: [] }
  if (title !== undefined && description !== undefined) question.description = description
  const field: Field = { key, required, kind: 'string', question }

  const choice = schema.type === 'string' || schema.type === 'array'
  if (!choice && ('enum' in schema || 'oneOf' in schema)) {
    unsupported(key, `is an enum of type "${String(schema.type)}"; only string enums are allowed`)
  }
  const options = choice ? enumOptions(key, schema) : null

  if (options !== null && schema.type === 'array') {
    field.kind = 'multi'
    field.minItems = optionalNumber(schema.minItems)
    field.maxItems = optionalNumber(schema.maxItems)
    question.options = options
    question.multiple = true
    const note = itemBoundsNote(field.minItems, field.maxItems)
    if (note) question.description = [question.description, note].filter(Boolean).join(' ')
    question.defaults = multiDefaults(field, options, schema.default)
    return field
  }

  if (options !== null) {
    field.kind = 'single'
    question.options = options
    const given = typeof schema.default === 'string' ? [schema.default] : []
    const held = heldDefaults(question, given)
    question.defaults = held.length > 0 ? held : [options[0].value]
    return field
  }

  if (schema.type === 'boolean') {
    field.kind = 'boolean'
    question.options = BOOLEAN_OPTIONS.map((option) => ({ ...option }))
    question.defaults = [schema.default === true ? 'true' : 'false']
    return field
  }

  const input = typedInput(key, schema)
  if (required) input.required = true
  question.input = input
  field.kind = input.type === 'number' || input.type === 'integer' ? 'number' : 'string'

  const given =
    typeof schema.default === 'number'
      ? [String(schema.default)]
      : typeof schema.default === 'string'
        ? [schema.default]
        : []
  question.defaults = heldDefaults(question, given)
  return field
}

/**
 * The typed input of a string, number or integer property.
 */
function typedInput(key: string, schema: Raw): QuestionInput {
  if (schema.type === 'number' || schema.type === 'integer') {
    return {
      type: schema.type,
      ...bounds(optionalNumber(schema.minimum), optionalNumber(schema.maximum)),
    }
  }
  if (schema.type === 'object') unsupported(key, 'is a nested object')
  if (schema.type !== 'string')
    unsupported(key, `has the unsupported type "${String(schema.type)}"`)

  const format = schema.format
  if (format !== undefined && !(typeof format === 'string' && Object.hasOwn(FORMATS, format))) {
    unsupported(
      key,
      `has the format "${String(format)}"; only email, uri, date and date-time are allowed`
    )
  }
  const type = format === undefined ? 'text' : FORMATS[format as keyof typeof FORMATS]
  // Length bounds mean nothing to a date input, whose min/max are calendar bounds.
  if (type === 'date' || type === 'datetime') return { type }
  return {
    type,
    ...bounds(optionalNumber(schema.minLength), optionalNumber(schema.maxLength)),
    ...(typeof schema.pattern === 'string' && { pattern: schema.pattern }),
  }
}

function bounds(min: number | undefined, max: number | undefined): { min?: number; max?: number } {
  return { ...(min !== undefined && { min }), ...(max !== undefined && { max }) }
}

function itemBoundsNote(min: number | undefined, max: number | undefined): string | undefined {
  if (min !== undefined && max !== undefined)
    return min === max ? `Pick exactly ${min}.` : `Pick ${min} to ${max}.`
  if (min !== undefined) return `Pick at least ${min}.`
  if (max !== undefined) return `Pick at most ${max}.`
  return undefined
}

/**
 * The server's defaults, when every one of them holds for the question
 * (`effectiveDefaults`: on offer, passing its rules, one for a single
 * choice), else none: a default is never taken in part.
 */
function heldDefaults(question: Question, given: string[]): string[] {
  const held = effectiveDefaults({ ...question, defaults: given })
  return held.length === given.length ? held : []
}

/**
 * The pre-picks of a multi-select: the server's default when it holds and
 * its count fits the item bounds, else the first options.
 */
function multiDefaults(field: Field, options: QuestionOption[], given: unknown): string[] {
  const held = heldDefaults(field.question, isStringArray(given) ? given : [])
  const fits =
    held.length >= Math.max(1, field.minItems ?? 0) &&
    held.length <= (field.maxItems ?? Number.POSITIVE_INFINITY)
  if (fits) return held
  return options.slice(0, Math.max(1, field.minItems ?? 0)).map((option) => option.value)
}

/**
 * Parses a form-mode request into its message and one field per property,
 * throwing `E_UNSUPPORTED_ELICITATION` for anything form mode does not allow.
 */
export function parseRequest(request: ElicitationRequest): { message: string; fields: Field[] } {
  const raw = request as unknown as Raw
  if (raw.mode !== undefined && raw.mode !== 'form') {
    throw new E_UNSUPPORTED_ELICITATION([
      `mode "${String(raw.mode)}"`,
      'is not form mode; the inbox asks form elicitations only',
    ])
  }
  if (typeof raw.message !== 'string') {
    throw new E_UNSUPPORTED_ELICITATION(['message', 'is missing'])
  }

  const schema = raw.requestedSchema
  if (!isRecord(schema) || schema.type !== 'object' || !isRecord(schema.properties)) {
    throw new E_UNSUPPORTED_ELICITATION([
      'requestedSchema',
      'is not an object schema with properties',
    ])
  }
  const properties = schema.properties
  const required = isStringArray(schema.required) ? schema.required : []
  for (const key of required) {
    if (!Object.hasOwn(properties, key)) {
      throw new E_UNSUPPORTED_ELICITATION([
        `requestedSchema.required`,
        `names "${key}", which is not a property`,
      ])
    }
  }

  const fields = Object.entries(properties).map(([key, property]) =>
    parseField(key, property, required.includes(key))
  )
  return { message: raw.message, fields }
}

/**
 * Turns an MCP form elicitation into a question set for the inbox: the
 * server's message becomes the preamble, each property one question keyed
 * by the property name.
 *
 * - prompt: the property's `title`, else its `description`, else its key;
 *   `description` is kept as the question's description when both exist.
 * - string: input `text`, or `email`/`url`/`date`/`datetime` by format, with
 *   `minLength`/`maxLength` as min/max and `pattern` (not for dates).
 * - number/integer: input `number`/`integer` with `minimum`/`maximum`.
 * - boolean: options Yes (`true`, hotkey y) / No (`false`, hotkey n).
 * - enums (untitled, titled `oneOf`, legacy `enumNames`): options labelled
 *   by their title; multi-selects are `multiple` and say their item bounds.
 * - required typed properties get `input.required`; defaults are the
 *   server's, stringified, when they pass the question's own rules.
 *
 * Throws `E_UNSUPPORTED_ELICITATION` naming the property for anything form
 * mode does not allow (nested objects, arrays of objects, unknown types or
 * formats), for URL-mode requests, and for a request with no property (a
 * bare confirmation: ask it as an approval instead).
 *
 * @example
 * questionSetFromElicitation({
 *   message: 'Please provide your GitHub username',
 *   requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
 * })
 * // { preamble: 'Please provide your GitHub username',
 * //   questions: [{ id: 'name', prompt: 'name', input: { type: 'text', required: true }, defaults: [] }] }
 */
export function questionSetFromElicitation(request: ElicitationRequest): QuestionSet {
  const { message, fields } = parseRequest(request)
  if (fields.length === 0) {
    // A bare "may I?" from the server: a yes/no, which the inbox asks as an approval.
    throw new E_UNSUPPORTED_ELICITATION([
      'requestedSchema',
      'has no property, so it is a confirmation, not a question set: ask it as an approval and pass the decision to elicitationResultFromOutcome',
    ])
  }
  return { preamble: message, questions: fields.map((field) => field.question) }
}
