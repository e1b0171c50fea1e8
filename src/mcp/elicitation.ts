/*
 * MCP form-mode elicitation, translated both ways, so a question an MCP
 * server asks (`elicitation/create`) lands in the same inbox as the model's
 * own questions and its answer goes back as the `ElicitResult` the server
 * expects. Follows the MCP specification revisions 2025-06-18 and
 * 2025-11-25 (titled and multi-select enums, defaults on every type).
 *
 * Pure: imports the question model and the error codes only. Value rules are
 * never re-implemented here: every value is checked by `checkValue`, every
 * default by `effectiveDefaults`.
 *
 * Choices the MCP specification leaves to the client, made here once:
 *  - Every option question pre-picks (docs/design.md §3.2). An enum without a usable
 *    server default pre-picks its first option (a multi-select its first
 *    `max(1, minItems)` options); a boolean without one pre-picks `false`,
 *    which is what a client's untouched checkbox sends, rather than putting
 *    a "Yes" in the person's mouth.
 *  - A server default that fails its own property's rules (not on offer, out
 *    of bounds, wrong type) is dropped, never sent back as if chosen.
 *  - Accept is sent only for a person's confirmed answers that satisfy
 *    `required`; a skip or reject declines, an expiry or cancellation
 *    cancels (see `elicitationResultFromOutcome` for why).
 */

import { E_UNSUPPORTED_ELICITATION } from '../errors.ts'
import type {
  Question,
  QuestionInput,
  QuestionOption,
  QuestionOutcome,
  QuestionSet,
} from '../questions/types.ts'
import { effectiveDefaults } from '../questions/defaults.ts'
import { checkValue } from '../questions/values.ts'

/**
 * Text shared by every property schema.
 */
type McpPropertyText = {
  title?: string
  description?: string
}

/**
 * A free string, optionally constrained by length, pattern or format.
 */
export type McpStringSchema = McpPropertyText & {
  type: 'string'
  minLength?: number
  maxLength?: number
  /** Shown in the 2025-11-25 page's example, absent from its schema.ts; honored when sent */
  pattern?: string
  format?: 'email' | 'uri' | 'date' | 'date-time'
  default?: string
}

export type McpNumberSchema = McpPropertyText & {
  type: 'number' | 'integer'
  minimum?: number
  maximum?: number
  default?: number
}

export type McpBooleanSchema = McpPropertyText & {
  type: 'boolean'
  default?: boolean
}

/**
 * A single choice among plain values; the value is its own label.
 */
export type McpUntitledSingleSelectEnumSchema = McpPropertyText & {
  type: 'string'
  enum: string[]
  default?: string
}

/**
 * A single choice whose options carry a display title.
 */
export type McpTitledSingleSelectEnumSchema = McpPropertyText & {
  type: 'string'
  oneOf: { const: string; title: string }[]
  default?: string
}

/**
 * The 2025-06-18 form of a titled enum, deprecated in 2025-11-25 but still
 * sent by servers: `enumNames[i]` labels `enum[i]`.
 */
export type McpLegacyTitledEnumSchema = McpPropertyText & {
  type: 'string'
  enum: string[]
  enumNames?: string[]
  default?: string
}

export type McpUntitledMultiSelectEnumSchema = McpPropertyText & {
  type: 'array'
  minItems?: number
  maxItems?: number
  items: { type: 'string'; enum: string[] }
  default?: string[]
}

export type McpTitledMultiSelectEnumSchema = McpPropertyText & {
  type: 'array'
  minItems?: number
  maxItems?: number
  items: { anyOf: { const: string; title: string }[] }
  default?: string[]
}

export type McpEnumSchema =
  | McpUntitledSingleSelectEnumSchema
  | McpTitledSingleSelectEnumSchema
  | McpLegacyTitledEnumSchema
  | McpUntitledMultiSelectEnumSchema
  | McpTitledMultiSelectEnumSchema

/**
 * One property of a form-mode `requestedSchema` (MCP `PrimitiveSchemaDefinition`).
 */
export type McpPrimitiveSchema =
  McpStringSchema | McpNumberSchema | McpBooleanSchema | McpEnumSchema

/**
 * The flat object schema of a form-mode elicitation.
 */
export type McpRequestedSchema = {
  $schema?: string
  type: 'object'
  properties: Record<string, McpPrimitiveSchema>
  required?: string[]
}

/**
 * The params of a form-mode `elicitation/create` request. `mode` is
 * optional: a request without it is form mode.
 */
export type ElicitationRequest = {
  mode?: 'form'
  message: string
  requestedSchema: McpRequestedSchema
}

export type ElicitationContentValue = string | number | boolean | string[]

/**
 * What the client answers to `elicitation/create` (MCP `ElicitResult`).
 */
export type ElicitationResult = {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, ElicitationContentValue>
}

/**
 * An approval-style settlement of the elicitation's row: `approved: true`
 * accepts every default, `false` declines (docs/design.md §6.2). A `DecisionOutcome`
 * fits this shape.
 */
export type ElicitationDecision = { kind: 'decision'; approved: boolean; expired?: boolean }

/**
 * One property, parsed: the question asked for it and what its answer turns
 * back into.
 */
type Field = {
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
 * The valid picks of a multi-select, cut to `maxItems` (the first ones
 * win, as a single choice keeps its first value), or `undefined` when
 * fewer than `minItems` remain.
 */
function pickedValues(field: Field, values: string[]): string[] | undefined {
  const valid = [...new Set(values)].filter((value) => checkValue(field.question, value) === null)
  const picked = field.maxItems === undefined ? valid : valid.slice(0, field.maxItems)
  return picked.length < (field.minItems ?? 0) ? undefined : picked
}

function parseRequest(request: ElicitationRequest): { message: string; fields: Field[] } {
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

/**
 * The typed content value of one field, or `undefined` when nothing valid
 * was given. Values are re-checked against the question's rules, so a value
 * that slipped past settling is dropped here rather than sent.
 */
function contentValue(field: Field, values: string[]): ElicitationContentValue | undefined {
  if (field.kind === 'multi') {
    const picked = pickedValues(field, values)
    if (picked === undefined) return undefined
    // An empty optional multi-select says nothing: omit it like any unset field.
    return picked.length > 0 || field.required ? picked : undefined
  }

  const value = values.find((candidate) => checkValue(field.question, candidate) === null)
  if (value === undefined) return undefined
  if (field.kind === 'boolean') return value === 'true'
  if (field.kind === 'number') return Number(value)
  return value
}

/**
 * Types answers back into the content of an accept, or declines when a
 * required property has no valid value.
 */
function acceptOrDecline(fields: Field[], answers: Record<string, string[]>): ElicitationResult {
  const content: Record<string, ElicitationContentValue> = {}
  for (const field of fields) {
    const values = Object.hasOwn(answers, field.key) ? answers[field.key] : undefined
    const value = contentValue(field, Array.isArray(values) ? values : [])
    if (value !== undefined) content[field.key] = value
    else if (field.required) return { action: 'decline' }
  }
  return { action: 'accept', content }
}

/**
 * Turns how the elicitation's inbox row was settled into the `ElicitResult`
 * the MCP server receives.
 *
 * - `null` (the wait was cancelled, the run aborted) -> `cancel`.
 * - Expired, whatever the row's expiry policy did -> `cancel`: nobody made a
 *   choice, which is MCP's "dismissed without an explicit choice", and the
 *   server may ask again. Sending defaults would claim a person submitted them.
 * - Skipped -> `decline`. In the question model a skip means "proceed on
 *   defaults", but a Reject sent to a question set is settled as a skip too
 *   (docs/design.md §6.2), so the outcome cannot tell them apart; MCP's accept says
 *   the person submitted the data, so sending one for a refusal would hand
 *   over data the person withheld. The server keeps its own defaults, so
 *   nothing it proposed is lost; only our first-option pre-picks are, and
 *   those were never the person's choice.
 * - A decision: rejected -> `decline`; approved -> `accept` with every
 *   default (for an approval-style wait, such as a request with no property).
 * - Answers (including an approval of the set, settled as all defaults) ->
 *   `accept` with `content` typed per schema: numbers and integers as
 *   numbers, booleans as booleans, multi-selects as string arrays (cut to
 *   `maxItems`), strings as-is. Optional properties without a valid value
 *   are omitted; keys outside the schema never appear.
 * - When a required property ends with no valid value -> `decline`: an
 *   accept would break the server's schema, and values are never invented.
 *
 * @example
 * const set = questionSetFromElicitation(request)
 * const outcome = settleQuestionSet(set, { answers }, { answeredBy: 'u1', answeredVia: 'web' })
 * elicitationResultFromOutcome(request, outcome)
 * // { action: 'accept', content: { name: 'Monalisa Octocat', email: 'octocat@github.com', age: 30 } }
 */
export function elicitationResultFromOutcome(
  request: ElicitationRequest,
  outcome: QuestionOutcome | ElicitationDecision | null
): ElicitationResult {
  if (outcome === null || outcome.expired === true) return { action: 'cancel' }

  const { fields } = parseRequest(request)
  if (outcome.kind === 'decision') {
    if (!outcome.approved) return { action: 'decline' }
    const defaults = Object.fromEntries(
      fields.map((field) => [field.key, effectiveDefaults(field.question)])
    )
    return acceptOrDecline(fields, defaults)
  }
  if (outcome.skipped) return { action: 'decline' }
  return acceptOrDecline(fields, outcome.answers)
}
