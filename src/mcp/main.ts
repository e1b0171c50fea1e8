/*
 * The public face of the MCP interop: elicitation requests from MCP servers
 * become question sets for the inbox (to_questions.ts), and settled outcomes
 * become the `ElicitResult` sent back (to_result.ts); the MCP shapes are in
 * types.ts. Imported by apps as `adonis-agent-inbox/mcp`.
 */

export { questionSetFromElicitation } from './to_questions.ts'
export { elicitationResultFromOutcome } from './to_result.ts'
export type {
  ElicitationContentValue,
  ElicitationDecision,
  ElicitationRequest,
  ElicitationResult,
  McpBooleanSchema,
  McpEnumSchema,
  McpLegacyTitledEnumSchema,
  McpNumberSchema,
  McpPrimitiveSchema,
  McpRequestedSchema,
  McpStringSchema,
  McpTitledMultiSelectEnumSchema,
  McpTitledSingleSelectEnumSchema,
  McpUntitledMultiSelectEnumSchema,
  McpUntitledSingleSelectEnumSchema,
} from './types.ts'
