/*
 * A tool's JSON Schema in the form strict tool calling accepts (OpenAI's
 * strict mode, and the providers that copy it): every object requires all
 * its properties and allows no others, an optional property becomes
 * nullable instead, every enum is typed, a value of several types is an
 * `anyOf`, and only the keywords strict mode knows remain. The provider
 * then holds the model to the schema while it writes the call.
 *
 * The model then sends `null` for what it leaves out, which the question
 * set's Vine schema reads as absent (an optional field takes `null` as
 * missing), so a strict call is validated by the very rules of any other
 * (which still hold what strict mode cannot say, such as a string's length).
 *
 * Pure: no AI SDK import.
 */

import type { JSONSchema7, JSONSchema7Definition, JSONSchema7TypeName } from 'json-schema'

/**
 * The keywords strict mode accepts; any other (`minLength`, `maxLength`,
 * `default`, …) is left out of the strict form.
 */
export const STRICT_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
  'format',
])

function typeOfValue(value: unknown): JSONSchema7TypeName {
  if (value === null) return 'null'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value as JSONSchema7TypeName
}

function typesOf(schema: JSONSchema7): JSONSchema7TypeName[] {
  if (Array.isArray(schema.type)) return [...schema.type]
  return schema.type ? [schema.type] : []
}

/**
 * One schema in strict form; `optional` when its property was not required.
 */
function strictNode(definition: JSONSchema7Definition, optional: boolean): JSONSchema7 {
  const source: JSONSchema7 = typeof definition === 'boolean' ? {} : definition
  const node: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(source)) {
    if (STRICT_KEYWORDS.has(key)) node[key] = value
  }
  const schema = node as JSONSchema7

  // An enum without a type: typed from its values
  if (schema.enum && !schema.type) {
    const types = [...new Set(schema.enum.map(typeOfValue))]
    schema.type = types.length === 1 ? types[0] : types
  }
  if (schema.properties || typesOf(schema).includes('object')) {
    const properties = schema.properties ?? {}
    const required = new Set(source.required ?? [])
    schema.properties = Object.fromEntries(
      Object.entries(properties).map(([key, child]) => [key, strictNode(child, !required.has(key))])
    )
    schema.required = Object.keys(properties)
    schema.additionalProperties = false
  }
  if (schema.items !== undefined) {
    schema.items = Array.isArray(schema.items)
      ? schema.items.map((item) => strictNode(item, false))
      : strictNode(schema.items, false)
  }
  if (schema.anyOf) schema.anyOf = schema.anyOf.map((branch) => strictNode(branch, false))

  if (optional) {
    if (schema.anyOf) schema.anyOf.push({ type: 'null' })
    else if (schema.type) schema.type = [...new Set([...typesOf(schema), 'null' as const])]
    if (schema.enum && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
  }
  return splitTypes(schema)
}

/**
 * `type: ['number', 'string', 'null']` as an `anyOf` of one type each;
 * a single type with `null` stays as it is (the documented nullable form).
 */
function splitTypes(schema: JSONSchema7): JSONSchema7 {
  const types = typesOf(schema)
  if (types.filter((type) => type !== 'null').length < 2 || schema.enum) return schema
  const { description, title, ...rest } = schema
  delete rest.type
  return {
    ...(description === undefined ? {} : { description }),
    ...(title === undefined ? {} : { title }),
    anyOf: types.map((type) => (type === 'null' ? { type } : { type, ...rest })),
  }
}

/**
 * The strict form of `schema` (a fresh copy).
 *
 * @example
 * strictJsonSchema({ type: 'object', properties: { note: { type: 'string' } } })
 * // { type: 'object', properties: { note: { type: ['string', 'null'] } },
 * //   required: ['note'], additionalProperties: false }
 */
export function strictJsonSchema(schema: JSONSchema7): JSONSchema7 {
  return strictNode(structuredClone(schema), false)
}
