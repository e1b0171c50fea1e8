/*
 * Public types of the package, importable from `adonis-agent-inbox/types`:
 * the config's shape and the types the layers declare where they are used,
 * gathered here. With ./extended.ts (the container bindings and events the
 * provider adds), the one home of the package's shared types.
 */

import type { QuestionLimits } from '../questions/types.ts'
import type { AgentDefinition } from '../runtime/define_agent.ts'
import type { RunDriver } from '../runtime/run_driver.ts'
import type { ExecutorLogger, RunExecutor } from '../runtime/executor.ts'
import type { InboxAccess } from '../http/access.ts'
import type { LiveOptions } from '../http/live.ts'
import type { ApprovalsConfig } from '../governance/policy.ts'
import type { NotificationsConfig } from '../notify/dispatcher.ts'
import type { TracingOptions } from '../telemetry/tracing.ts'
import type { ConsoleConfig } from '../console/access.ts'
import type { McpServerConfig, ResolvedMcpConfig } from '../mcp_server/config.ts'

export type * from '../questions/types.ts'
export type {
  ToolCallKind,
  ToolCallStatus,
  ToolExecution,
} from '../persistence/models/tool_call.ts'
export type { RunStatus } from '../persistence/models/agent_run.ts'

/**
 * What config/agents.ts may set.
 *
 * Config files load before the app boots: a hook that needs the app's
 * models imports them inside itself (`const { default: User } = await
 * import('#models/user')`), never at the top of config/agents.ts. There a
 * `User` whose auth mixin takes the hash service (`withAuthFinder(hash)`,
 * as the starter kits write it) captures it before it exists, and the
 * app's sign-up and login fail.
 */
export type AgentInboxConfig = {
  /** The app's agents, made with `defineAgent` */
  agents?: AgentDefinition[]
  /** Limits of the ask tool and the per-run question budget (docs/design.md §3.3) */
  limits?: Partial<QuestionLimits>
  /** How often (ms) expired rows are swept in-process; 0 turns it off. Default 30 s */
  sweepInterval?: number
  /** How long (ms) a driver's lease on a run lasts without a heartbeat. Default 60 s */
  leaseTtl?: number
  /**
   * How an effect of a transactional action (`ctx.after`) whose call threw
   * is tried again by recovery: the first wait (ms, doubled after each
   * failure, at most 15 minutes) and the deliveries before it is given up
   * as `failed`. Default `{ backoff: 5000, attempts: 10 }`
   */
  effectRetry?: { backoff?: number; attempts?: number }
  /** Resume runs left behind by a dead process when the app is ready. Default true */
  recoverOnStart?: boolean
  /**
   * How often (ms) the web server looks for stranded runs (a lapsed lease,
   * waiting with nothing pending, queued and never started) and resumes
   * them; 0 turns it off. Default 60 s
   */
  recoverInterval?: number
  /** Who may see and settle rows over HTTP; defaults: auth user id, run owner */
  inbox?: Partial<InboxAccess>
  /** Governance of tool calls (docs/design.md §11) */
  approvals?: ApprovalsConfig
  /**
   * The inbox as an MCP server for outside agents (`registerMcpRoutes`,
   * docs/guides/mcp_server.md): the guard naming clients, who answers, waits
   */
  mcp?: McpServerConfig
  /**
   * Broadcast row events on `agent_inbox/<owner>` through `@adonisjs/transmit`
   * when the app has it, so the inbox page updates live; `false` turns it
   * off. Default true
   */
  live?: boolean | LiveOptions
  /**
   * Where runs are driven once started or resumed:
   * - `'inline'` (default): in this process, on the next tick;
   * - `'queue'`: on `@adonisjs/queue` workers (`node ace queue:work`), a
   *   job carrying the run id per resume (docs/guides/scaling_out.md);
   * - a factory, to hand them to something else.
   */
  executor?: 'inline' | 'queue' | ExecutorFactory
  /**
   * Tell people about the rows waiting for them (docs/design.md §7.7):
   * notifiers (`mailNotifier`, `webhookNotifier`, `defineNotifier`), each
   * person's preferences, and the app's URL for the links in mails
   */
  notifications?: NotificationsConfig
  /**
   * The operator's console (docs/guides/operating.md#the-console): who may
   * use it, who a row may be reassigned to, when a row is overdue
   */
  console?: ConsoleConfig
  /** With `executor: 'queue'`: where the jobs go */
  queue?: {
    /** The queue's name; default `'default'`, the one `queue:work` serves */
    name?: string
    /** An adapter of config/queue.ts other than its default */
    adapter?: string
  }
  /**
   * OpenTelemetry (docs/guides/operating.md#metrics): `metrics: false` turns
   * the metrics off (`{ gauges: false }` keeps them but the gauges that read
   * the database on each collection); `tracing` says what traces may carry:
   * the model's inputs and outputs, a person's answers, all off by default
   */
  telemetry?: { metrics?: boolean | { gauges?: boolean }; tracing?: TracingOptions }
}

/**
 * Builds an executor around the runtime's driver; `logger` is the app's.
 */
export type ExecutorFactory = (
  driver: RunDriver,
  context: { logger?: ExecutorLogger }
) => RunExecutor

/**
 * The config once defaults are applied.
 */
export type ResolvedAgentInboxConfig = {
  agents: AgentDefinition[]
  limits: QuestionLimits
  sweepInterval: number
  leaseTtl: number
  effectRetry: { backoff?: number; attempts?: number }
  recoverOnStart: boolean
  recoverInterval: number
  inbox: Partial<InboxAccess>
  approvals: ApprovalsConfig
  mcp: ResolvedMcpConfig
  live: LiveOptions | false
  /** Which executor drives the runs; `'custom'` for a factory */
  executorKind: 'inline' | 'queue' | 'custom'
  executor?: ExecutorFactory
  notifications: NotificationsConfig | null
  telemetry: { metrics: { gauges?: boolean } | false; tracing: TracingOptions }
  console: ConsoleConfig
}
export type {
  AgentDefinition,
  AgentOptions,
  ApproversOptions,
  AskOptions,
  Intake,
  ProviderOptions,
} from '../runtime/define_agent.ts'
export type {
  Effect,
  EffectContext,
  ToolDefinition,
  ToolOptions,
  ToolContext,
  ToolKind,
  ToolRow,
  ToolRun,
  TransactionalToolContext,
} from '../runtime/define_tool.ts'
export type { AgentEvents, StepStreamEvent } from '../events.ts'
export type { ToolInputDelta } from '../runtime/step_stream.ts'
export type { RowChange } from '../runtime/changed_rows.ts'
export type { RunSight } from '../governance/view.ts'
export type { InboxAccess } from '../http/access.ts'
export type { LiveMessage, LiveOptions, StepMessage } from '../http/live.ts'
export type {
  BulkResult,
  People,
  ReplyFeedback,
  RowCard,
  RunGroup,
  RunSummary,
} from '../http/cards.ts'
export type {
  RunTimeline,
  TimelineAction,
  TimelineCall,
  TimelineEffect,
  TimelineEntry,
} from '../http/timeline.ts'
export type { HistoryFilters } from '../http/history_query.ts'
export type { ChatState } from '../http/chat_controller.ts'
export type { ChatRoutesOptions } from '../http/register_routes.ts'
export type { ChatMessage } from '../runtime/conversations.ts'
export type {
  AgeBucket,
  CancelBody,
  ConsoleAction,
  ConsoleActionResult,
  ConsoleCharts,
  ConsoleCounts,
  ConsoleFailingDelivery,
  ConsoleFeedback,
  ConsoleLists,
  ConsoleOverdueRow,
  ConsoleProps,
  ConsoleRun,
  DailySeries,
  DecisionChart,
  DecisionTimes,
  PendingAgeChart,
  ReassignBody,
  RetryBody,
} from '../console/props.ts'
export type { ConsoleConfig } from '../console/access.ts'
export type { ErrorEntry, ErrorReport, ErrorResponseBody } from '../errors.ts'
export type {
  ApprovalsConfig,
  Policy,
  PolicyCall,
  PolicyDecision,
  PolicyResult,
} from '../governance/policy.ts'
export type { QuorumOptions, QuorumSpec, ApproverRef } from '../governance/quorum.ts'
export type { GrantChoice, Duration } from '../governance/grant_rules.ts'
export type { LadderStep } from '../governance/ladder.ts'
export type {
  Notifier,
  NotifierContext,
  NotificationsConfig,
  Preferences,
  QuietHours,
  Recipient,
  ReplyLink,
  RowNotice,
} from '../notify/main.ts'
export type { TracingOptions } from '../telemetry/tracing.ts'
