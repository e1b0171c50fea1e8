/*
 * `adonis-agent-inbox/internals`: UNSTABLE. The runtime's building blocks
 * and the question model's inner parts, for the package's own tests and
 * benchmarks and for apps that wire the runtime by hand (a custom
 * executor, a runtime outside the provider). Nothing here is covered by
 * semver: any of it may change or go in a minor version. What apps use is
 * documented in docs/reference/exports.md; the classes of the services'
 * `agents` and `inbox` are here, their methods are public through
 * `adonis-agent-inbox/services/main`.
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

// The question model's parts that `adonis-agent-inbox/questions` keeps to itself
export { resolveLimits, checkTypedValue } from './questions/values.ts'
export { INPUT_TYPES, questionSetSchema, questionSetValidator } from './questions/schema.ts'
export { formatIssuePath, semanticIssues } from './questions/validate.ts'
export { formatIssuesForModel } from './questions/ask_tool.ts'
export { checkAskBudget } from './questions/budget.ts'
export {
  MAX_REPLY_BYTES,
  parseReply,
  replyFieldPath,
  normalizeReply,
  isBlankValue,
  isFreeTextValue,
  checkAnswers,
  sharedReplyIssues,
} from './questions/reply.ts'
export {
  settleQuestionSet,
  settleDecision,
  settleReply,
  settleExpired,
  TRUNCATION_MARK,
  EXPIRED_REASON,
  type SettleContext,
  type Wait,
} from './questions/settle.ts'
export {
  UNTRUSTED_NOTE,
  quoteUntrusted,
  describeOutcome,
  describeDecision,
} from './questions/model_text.ts'
export { canonicalJson, questionSetFingerprint, recallOutcome } from './questions/memory.ts'
