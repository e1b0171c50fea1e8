/*
 * The pure question model (docs/design.md §3–§6), importable on its own as
 * `adonis-agent-inbox/questions`: no Lucid, no HTTP, no AI SDK in here.
 */

export * from './values.ts'
export * from './defaults.ts'
export * from './schema.ts'
export * from './validate.ts'
export * from './assert.ts'
export * from './ask_tool.ts'
export * from './budget.ts'
export * from './reply.ts'
export * from './settle.ts'
export * from './model_text.ts'
export * from './memory.ts'
export type * from './types.ts'
