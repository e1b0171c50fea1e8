/*
 * The package's main entry: install hook, config helper, errors, and the
 * pure question model for apps that build on it.
 */

export { configure } from './configure.ts'
export { stubsRoot } from './stubs/main.ts'
export { defineConfig } from './src/define_config.ts'
export * as errors from './src/errors.ts'
export { Inbox } from './src/inbox/inbox.ts'
export { RowSettler } from './src/inbox/row_settler.ts'
export { hashArgs } from './src/inbox/args_hash.ts'
export { AgentRun } from './src/persistence/models/agent_run.ts'
export { ToolCall } from './src/persistence/models/tool_call.ts'
export { JournalRow } from './src/persistence/models/journal_row.ts'
export { defineAgent } from './src/runtime/define_agent.ts'
export { defineTool } from './src/runtime/define_tool.ts'
export { Agents } from './src/runtime/agents.ts'
export { RunDriver } from './src/runtime/run_driver.ts'
export { InlineExecutor, type RunExecutor } from './src/runtime/executor.ts'
export { registerInboxRoutes } from './src/http/register_routes.ts'
