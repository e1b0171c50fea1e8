/*
 * Public types of the package, importable from `adonis-agent-inbox/types`.
 */

import type { QuestionLimits } from './questions/types.ts'

export type * from './questions/types.ts'
export type { ToolCallKind, ToolCallStatus, ToolExecution } from './persistence/models/tool_call.ts'
export type { RunStatus } from './persistence/models/agent_run.ts'

/**
 * What config/agents.ts may set.
 */
export type AgentInboxConfig = {
  /** Limits of the ask tool and the per-run question budget (SPEC §2.4, §2.5) */
  limits?: Partial<QuestionLimits>
}

/**
 * The config once defaults are applied.
 */
export type ResolvedAgentInboxConfig = {
  limits: QuestionLimits
}
