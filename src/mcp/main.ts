/*
 * The public face of the MCP interop: elicitation requests from MCP servers
 * become question sets for the inbox, and settled outcomes become the
 * `ElicitResult` sent back. Imported by apps as `adonis-agent-inbox/mcp`.
 */

export {
  elicitationResultFromOutcome,
  questionSetFromElicitation,
  type ElicitationContentValue,
  type ElicitationDecision,
  type ElicitationRequest,
  type ElicitationResult,
  type McpBooleanSchema,
  type McpEnumSchema,
  type McpLegacyTitledEnumSchema,
  type McpNumberSchema,
  type McpPrimitiveSchema,
  type McpRequestedSchema,
  type McpStringSchema,
  type McpTitledMultiSelectEnumSchema,
  type McpTitledSingleSelectEnumSchema,
  type McpUntitledMultiSelectEnumSchema,
  type McpUntitledSingleSelectEnumSchema,
} from './elicitation.ts'
