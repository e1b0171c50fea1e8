/*
 * `adonis-agent-inbox/internals`: the runtime's building blocks, for tests,
 * benchmarks and apps that wire the runtime by hand (a custom executor, a
 * runtime outside the provider). Not covered by the README and free to
 * change between minor versions; apps normally need only the main entry,
 * `adonis-agent-inbox/services/main` and `adonis-agent-inbox/types`.
 */

export { Agents, type AgentsOptions, type StartOptions } from './runtime/agents.ts'
export { RunDriver, type RunDriverOptions } from './runtime/run_driver.ts'
export { InlineExecutor, type RunExecutor } from './runtime/executor.ts'
export { Inbox } from './inbox/inbox.ts'
export { RowSettler } from './inbox/row_settler.ts'
export { hashArgs } from './inbox/args_hash.ts'
export { AgentRun } from './persistence/models/agent_run.ts'
export { ToolCall } from './persistence/models/tool_call.ts'
export { JournalRow } from './persistence/models/journal_row.ts'
export { AgentEffect } from './persistence/models/agent_effect.ts'
export { InboxEvent } from './persistence/models/inbox_event.ts'
export { Approver } from './persistence/models/approver.ts'
export { Grant } from './persistence/models/grant.ts'
export { runEvents, rowEvents, eventJson } from './inbox/audit_log.ts'
export { grantsOf, findGrant, revokeGrant } from './inbox/grants.ts'
