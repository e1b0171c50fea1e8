/*
 * The rules of OpenAI's strict mode for a tool's JSON Schema, checked by
 * walking the schema, written apart from src/questions/strict_schema.ts so
 * the tests do not grade the transform by its own reading of the rules.
 */

/** The keywords strict mode documents; anything else is refused by the API */
const DOCUMENTED = new Set([
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
  '$defs',
  '$ref',
])

type Node = Record<string, any>

function types(node: Node): string[] {
  if (node.type === undefined) return []
  return Array.isArray(node.type) ? node.type : [node.type]
}

/**
 * Every place `schema` breaks a strict-mode rule, as `path: rule`; none
 * when strict mode accepts it.
 */
export function strictViolations(schema: Node, path = '$'): string[] {
  const found: string[] = []
  for (const key of Object.keys(schema)) {
    if (!DOCUMENTED.has(key)) found.push(`${path}: keyword ${key} is not supported`)
  }
  const isObject = types(schema).includes('object') || schema.properties !== undefined
  if (isObject) {
    const keys = Object.keys(schema.properties ?? {}).sort()
    const required = [...(schema.required ?? [])].sort()
    if (schema.additionalProperties !== false) {
      found.push(`${path}: additionalProperties must be false`)
    }
    if (JSON.stringify(keys) !== JSON.stringify(required)) {
      found.push(`${path}: every property must be required (${keys.join(', ')})`)
    }
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      found.push(...strictViolations(child as Node, `${path}.${key}`))
    }
  }
  if (schema.enum !== undefined) {
    if (types(schema).length === 0) found.push(`${path}: an enum needs a type`)
    for (const value of schema.enum) {
      const kind = value === null ? 'null' : typeof value
      const allowed = types(schema).map((type) => (type === 'integer' ? 'number' : type))
      if (!allowed.includes(kind)) found.push(`${path}: enum value ${value} is not of its type`)
    }
  }
  if (types(schema).filter((type) => type !== 'null').length > 1) {
    found.push(`${path}: several types; use anyOf`)
  }
  if (schema.type === undefined && schema.anyOf === undefined && schema.$ref === undefined) {
    found.push(`${path}: no type`)
  }
  if (schema.items) found.push(...strictViolations(schema.items, `${path}[]`))
  for (const [index, branch] of (schema.anyOf ?? []).entries()) {
    found.push(...strictViolations(branch, `${path}.anyOf[${index}]`))
  }
  return found
}

/**
 * Whether a (strict) schema accepts null.
 */
export function acceptsNull(schema: Node): boolean {
  return (
    types(schema).includes('null') ||
    (schema.anyOf ?? []).some((branch: Node) => acceptsNull(branch))
  )
}
