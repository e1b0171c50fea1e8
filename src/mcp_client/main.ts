/*
 * The public face of the MCP client side, `adonis-agent-inbox/mcp/client`:
 * the elicitation handler for an MCP client the app creates itself, whose
 * questions are asked in the inbox outside any run. An agent's own MCP
 * servers need none of this (`defineAgent({ mcp: […] })`).
 */

export {
  inboxElicitationHandler,
  type InboxElicitationHandler,
  type InboxElicitationOptions,
} from './inbox_handler.ts'
export type { ElicitParams } from './elicitation.ts'
