/*
 * `adonis-agent-inbox/health`: the package's checks for `@adonisjs/health`,
 * for the app's start/health.ts (docs/guides/operating.md).
 */

export {
  agentHealthChecks,
  AgentSweepCheck,
  AgentStrandedRunsCheck,
  AgentOverdueRowsCheck,
  AgentOutboxCheck,
  type AgentHealthOptions,
} from './checks.ts'
