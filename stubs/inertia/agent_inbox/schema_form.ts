/*
 * The form that edits an approval's args, without a framework so Node can
 * test it and both pages (React, Vue) share it: the fields a tool's input
 * JSON Schema describes (the package publishes it from the tool's Vine
 * schema), the value each input shows and what typing in it makes of the
 * args, and the server's errors by field. What the schema cannot describe
 * as fields (a date, a union) is edited as JSON in place, and "Edit as
 * JSON" reads the whole args typed as JSON. The app receives this file in
 * inertia/agent_inbox/.
 */

import type { DecisionReply } from 'adonis-agent-inbox/types'
// A cycle (words.ts imports this file), harmless: `t` is only called inside functions
import { t } from './words'

/** Where a value sits in the args: property names and array indexes */
export type FieldPath = (string | number)[]

export type SchemaField = {
  kind: 'text' | 'number' | 'integer' | 'boolean' | 'select' | 'object' | 'array' | 'json'
  /** The property name (empty for an array's items) */
  name: string
  label: string
  description?: string
  required: boolean
  nullable: boolean
  /** text: the HTML input that fits its format */
  inputType?: 'text' | 'email' | 'url' | 'date' | 'datetime-local'
  minLength?: number
  maxLength?: number
  pattern?: string
  /** number, integer */
  min?: number
  max?: number
  /** select: the values on offer, in order */
  options?: { value: unknown; label: string }[]
  /** object: its properties in order */
  fields?: SchemaField[]
  /** array: what each item is */
  item?: SchemaField
  minItems?: number
  maxItems?: number
}

type Schema = Record<string, any>

const FORMATS: Record<string, SchemaField['inputType']> = {
  'email': 'email',
  'uri': 'url',
  'url': 'url',
  'date': 'date',
  'date-time': 'datetime-local',
}

/**
 * A property name as a person reads it: `maxRetries`, `max_retries` →
 * "Max retries".
 */
export function labelOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : name
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Vine publishes a boolean as the enum of what it accepts: true, "on", 1… */
function isBooleanEnum(values: unknown[]): boolean {
  return values.includes(true) && values.includes(false)
}

function describe(schema: unknown, name: string, required: boolean): SchemaField {
  const base = {
    name,
    label: isRecord(schema) && typeof schema.title === 'string' ? schema.title : labelOf(name),
    description:
      isRecord(schema) && typeof schema.description === 'string' ? schema.description : undefined,
    required,
    nullable: false,
  }
  if (!isRecord(schema)) return { ...base, kind: 'json' }
  const s: Schema = schema
  if (Array.isArray(s.enum)) {
    if (isBooleanEnum(s.enum)) return { ...base, kind: 'boolean' }
    return {
      ...base,
      kind: 'select',
      nullable: s.enum.includes(null),
      options: s.enum
        .filter((value: unknown) => value !== null)
        .map((value: unknown) => ({ value, label: String(value) })),
    }
  }
  const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type]
  const nullable = types.includes('null')
  const kinds = types.filter((type) => type !== 'null')
  if (kinds.length !== 1) return { ...base, kind: 'json' }
  const withNull = { ...base, nullable }
  switch (kinds[0]) {
    case 'string':
      return {
        ...withNull,
        kind: 'text',
        inputType: FORMATS[s.format] ?? 'text',
        minLength: s.minLength,
        maxLength: s.maxLength,
        pattern: s.pattern,
      }
    case 'number':
    case 'integer':
      return {
        ...withNull,
        kind: kinds[0],
        min: s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : undefined),
        max: s.maximum ?? (typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : undefined),
      }
    case 'boolean':
      return { ...withNull, kind: 'boolean' }
    case 'object': {
      if (!isRecord(s.properties)) return { ...withNull, kind: 'json' }
      const requiredNames: unknown[] = Array.isArray(s.required) ? s.required : []
      return {
        ...withNull,
        kind: 'object',
        fields: Object.entries(s.properties).map(([key, property]) =>
          describe(property, key, requiredNames.includes(key))
        ),
      }
    }
    case 'array':
      if (!isRecord(s.items)) return { ...withNull, kind: 'json' }
      return {
        ...withNull,
        kind: 'array',
        item: describe(s.items, '', true),
        minItems: s.minItems,
        maxItems: s.maxItems,
      }
    default:
      return { ...withNull, kind: 'json' }
  }
}

/**
 * The form of a tool's args: the object its JSON Schema describes, or null
 * when it describes none (the page then offers JSON only).
 *
 * @example
 * argsForm({ type: 'object', properties: { branch: { type: 'string' } }, required: ['branch'] })
 * // { kind: 'object', label: 'Arguments', fields: [{ kind: 'text', name: 'branch', label: 'Branch', required: true, … }], … }
 */
export function argsForm(schema: unknown): SchemaField | null {
  const form = describe(schema, '', false)
  return form.kind === 'object' ? { ...form, label: t('page.card.arguments') } : null
}

/**
 * The value at `path` in `value`, or undefined.
 */
export function valueAt(value: unknown, path: FieldPath): unknown {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string | number, unknown>)[key]
  }
  return current
}

/**
 * `value` with `next` at `path` (undefined removes a property), copied
 * along the path, never changed in place.
 *
 * @example
 * setAt({ limits: { cpu: 1 } }, ['limits', 'cpu'], 2) // { limits: { cpu: 2 } }
 */
export function setAt(value: unknown, path: FieldPath, next: unknown): unknown {
  if (path.length === 0) return next
  const [key, ...rest] = path
  if (typeof key === 'number') {
    const list = Array.isArray(value) ? [...value] : []
    list[key] = setAt(list[key], rest, next)
    return list
  }
  const record: Record<string, unknown> = isRecord(value) ? { ...value } : {}
  const child = setAt(record[key], rest, next)
  if (child === undefined) delete record[key]
  else record[key] = child
  return record
}

/**
 * `value` without the array item at `path`.
 */
export function removeAt(value: unknown, path: FieldPath): unknown {
  const list = valueAt(value, path.slice(0, -1))
  if (!Array.isArray(list)) return value
  const index = path.at(-1) as number
  return setAt(
    value,
    path.slice(0, -1),
    list.filter((_, at) => at !== index)
  )
}

/**
 * What a new array item starts as.
 */
export function emptyValue(field: SchemaField): unknown {
  switch (field.kind) {
    case 'object':
      return Object.fromEntries(
        (field.fields ?? [])
          .filter((child) => child.required)
          .map((child) => [child.name, emptyValue(child)])
      )
    case 'array':
      return []
    case 'boolean':
      return false
    case 'number':
    case 'integer':
    case 'select':
    case 'json':
      return null
    default:
      return ''
  }
}

/**
 * What an input shows of a value: numbers and text as typed, a select the
 * index of its option ('' for none), JSON for the rest.
 */
export function inputText(field: SchemaField, value: unknown): string {
  if (value === undefined || value === null)
    return field.kind === 'json' && value === null ? 'null' : ''
  switch (field.kind) {
    case 'select': {
      const index = (field.options ?? []).findIndex((option) => option.value === value)
      return index === -1 ? '' : String(index)
    }
    case 'text':
      return typeof value === 'string' ? value : JSON.stringify(value)
    case 'json':
      return JSON.stringify(value, null, 2)
    default:
      return String(value)
  }
}

/**
 * The value an input's text makes, or an error to show beside it (a JSON
 * field that does not parse). A blank field is left out when optional,
 * null when it may be null, else kept blank for the server to name.
 */
export function valueFromInput(
  field: SchemaField,
  text: string
): { value: unknown } | { error: string } {
  const blank = text.trim() === ''
  if (blank && field.kind !== 'text') {
    if (!field.required && field.name !== '') return { value: undefined }
    if (field.nullable || field.kind === 'json') return { value: null }
  }
  switch (field.kind) {
    case 'text':
      if (blank && !field.required && field.name !== '') return { value: undefined }
      return { value: text }
    case 'number':
    case 'integer': {
      const number = Number(text)
      return { value: blank ? null : Number.isFinite(number) ? number : text }
    }
    case 'select': {
      const option = field.options?.[Number(text)]
      return { value: option ? option.value : undefined }
    }
    case 'boolean':
      return { value: text === 'true' }
    default:
      try {
        return { value: JSON.parse(text) }
      } catch (error) {
        return { error: t('page.card.bad_json', { error: (error as Error).message }) }
      }
  }
}

/**
 * The reply **Approve with changes** sends, or the reason the edited JSON
 * cannot be read (caught before anything is sent).
 *
 * @example
 * editReply('{ "branch": "main" }') // { reply: { approved: true, editedInput: { branch: 'main' } } }
 * editReply('{ branch') // { error: 'Not valid JSON: …' }
 * editReply('null') // { error: 'Write the arguments as a JSON object, …' }
 */
export function editReply(text: string): { reply: DecisionReply } | { error: string } {
  if (text.trim() === '') return { error: t('page.card.write_json') }
  let editedInput: unknown
  try {
    editedInput = JSON.parse(text)
  } catch (error) {
    return { error: t('page.card.bad_json', { error: (error as Error).message }) }
  }
  // The server takes an object only, as a tool's arguments are
  if (editedInput === null || typeof editedInput !== 'object' || Array.isArray(editedInput)) {
    return { error: t('page.card.write_json_object') }
  }
  return { reply: { approved: true, editedInput } }
}

/**
 * A field's key among the errors: its path, dotted as the server names
 * fields (`limits.cpu`, `tags.0`).
 */
export function pathKey(path: FieldPath): string {
  return path.join('.')
}

/**
 * The server's errors about edited args (`editedInput.<path>`) by field
 * path, and those no field of the form shows (the args as a whole, a
 * property the form does not have), for the top of the form.
 *
 * @example
 * argsErrors(form, { 'editedInput.branch': ['must be at least 1 character'] })
 * // { byPath: { branch: ['Must be at least 1 character'] }, rest: [] }
 */
export function argsErrors(
  form: SchemaField | null,
  errors: Record<string, string[]>
): { byPath: Record<string, string[]>; rest: string[] } {
  const byPath: Record<string, string[]> = {}
  const rest: string[] = []
  for (const [name, messages] of Object.entries(errors)) {
    if (name !== 'editedInput' && !name.startsWith('editedInput.')) continue
    const path = name === 'editedInput' ? '' : name.slice('editedInput.'.length)
    const sentences = messages.map((message) => message.charAt(0).toUpperCase() + message.slice(1))
    if (form && path !== '' && hasField(form, path.split('.'))) {
      ;(byPath[path] ??= []).push(...sentences)
    } else {
      rest.push(...sentences.map((message) => (path ? `${path}: ${message}` : message)))
    }
  }
  return { byPath, rest }
}

function hasField(form: SchemaField, parts: string[]): boolean {
  let current: SchemaField | undefined = form
  for (const part of parts) {
    if (!current) return false
    if (current.kind === 'object') current = current.fields?.find((child) => child.name === part)
    else if (current.kind === 'array' && /^\d+$/.test(part)) current = current.item
    else return false
  }
  return current !== undefined
}
