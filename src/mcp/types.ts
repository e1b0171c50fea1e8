/*
 * The MCP side's shapes, as the specification names them (revisions
 * 2025-06-18 and 2025-11-25): the property schemas of a form-mode
 * `requestedSchema`, the `elicitation/create` params, and the `ElicitResult`
 * sent back. Types only; the translation lives in to_questions.ts and
 * to_result.ts.
 */

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
