/*
 * The pure question model (docs/design.md §3–§6), importable on its own as
 * `adonis-agent-inbox/questions`: no Lucid, no HTTP, no AI SDK in here.
 * Its public face is small on purpose: the shapes (question sets, replies,
 * outcomes), checking a set an app builds, and the ask tool as a model
 * sees it. The rules the pages share are `./client.ts`'s
 * (`adonis-agent-inbox/questions/client`); the rest of the model (reading
 * replies, settling, the model's text, the budget, answer memory) is the
 * runtime's and reached through `adonis-agent-inbox/internals`.
 */

export { DEFAULT_LIMITS } from './values.ts'
export { validateQuestionSet } from './validate.ts'
export { assertQuestionSet } from './assert.ts'
export { ASK_TOOL_NAME, askToolDescription, askToolInputSchema } from './ask_tool.ts'
export type { ExpiryRule } from './settle.ts'
export type * from './types.ts'
