/*
 * OpenTelemetry metrics (docs/guides/operating.md#metrics): the counters
 * and histograms the inbox and the runtime record where things happen —
 * a row opened, a settle that committed, a step checkpointed, a run
 * recovered, a delivery that failed — through the global meter of
 * `@opentelemetry/api`, which `@adonisjs/otel` (or the app's own SDK)
 * registers. The API is an optional peer, imported here only when metrics
 * start (the provider starts them when the runtime is built): without it,
 * or with metrics turned off, every recorder returns at its first line.
 * With the API but no SDK registered, the meter is the API's no-op one.
 *
 * The gauges that read the database on collection are in ./gauges.ts.
 */

import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { agentsOfRuns, runAgentOf } from '../inbox/rows.ts'
import debug from '../debug.ts'
import { observeGauges } from './gauges.ts'
import { ATTR } from './attributes.ts'
import { otel } from './otel_api.ts'

/** `telemetry.metrics` in config/agents.ts, when an object */
export type MetricsOptions = {
  /**
   * Observe the gauges that read the database on each collection (pending
   * rows, the oldest one's age, runs, outbox backlogs). Default true; turn
   * it off in processes whose numbers another process reports already.
   */
  gauges?: boolean
}

/** Time to decision spans seconds to days: buckets from a second to a week */
const DECISION_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 7200, 14400, 43200, 86400, 604800]
/** A step is a model call and a commit: 10 ms to a few minutes */
const STEP_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
/** OpenTelemetry's advice for gen_ai.client.token.usage */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304]

function instruments(meter: Meter) {
  return {
    opened: meter.createCounter('agent_inbox.rows.opened', {
      description: 'Rows opened pending, waiting for a person',
      unit: '{row}',
    }),
    settled: meter.createCounter('agent_inbox.rows.settled', {
      description: 'Pending rows settled (answered, approved, rejected or expired), once committed',
      unit: '{row}',
    }),
    decision: meter.createHistogram('agent_inbox.decision.duration', {
      description: 'Time to decision: from a row opened to its settle (settled_at - created_at)',
      unit: 's',
      advice: { explicitBucketBoundaries: DECISION_BUCKETS },
    }),
    recovered: meter.createCounter('agent_inbox.runs.recovered', {
      description: 'Stranded runs recovery handed back to the executor',
      unit: '{run}',
    }),
    takeovers: meter.createCounter('agent_inbox.lease.takeovers', {
      description: 'Runs recovery took over from a process whose lease lapsed',
      unit: '{run}',
    }),
    step: meter.createHistogram('agent_inbox.step.duration', {
      description: 'A step: the model call, its read tools and the checkpoint that commits them',
      unit: 's',
      advice: { explicitBucketBoundaries: STEP_BUCKETS },
    }),
    failed: meter.createCounter('agent_inbox.outbox.failed_deliveries', {
      description: 'Deliveries of the notification and effect outboxes that failed',
      unit: '{delivery}',
    }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Tokens a model call used, by agent and model',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
  } satisfies Record<string, Counter | Histogram>
}

type Instruments = ReturnType<typeof instruments>

/** The instruments while metrics run in this process, else null */
let live: Instruments | null = null

/**
 * Starts the metrics on the global meter, when `@opentelemetry/api` is
 * installed: the instruments, and the gauges unless `gauges: false`.
 * Returns what stops them (the provider calls it at shutdown).
 */
export async function startMetrics(options: MetricsOptions = {}): Promise<() => void> {
  if (!otel) {
    debug('metrics: @opentelemetry/api is not installed')
    return () => {}
  }
  const meter = otel.metrics.getMeter('adonis-agent-inbox')
  const mine = instruments(meter)
  live = mine
  const stopGauges = options.gauges === false ? () => {} : observeGauges(meter)
  return () => {
    stopGauges()
    if (live === mine) live = null
  }
}

/**
 * Seconds from a row's `created_at` to its `settled_at` as the database
 * holds them (whole seconds where the dialect's format has no fraction:
 * SQLite, MySQL), so the histogram's sum is what SUM() over the table says.
 */
function timeToDecision(row: ToolCall): number | null {
  if (!row.createdAt || !row.settledAt) return null
  const format = ToolCall.$adapter.modelConstructorClient(ToolCall).dialect.dateTimeFormat
  const stored = (millis: number) =>
    format.includes('S') ? millis : Math.floor(millis / 1000) * 1000
  return (stored(row.settledAt.toMillis()) - stored(row.createdAt.toMillis())) / 1000
}

function rowAttributes(row: ToolCall, agent: string | null | undefined): Attributes {
  return { [ATTR.kind]: row.kind, [ATTR.agent]: agent ?? '', [ATTR.tool]: row.toolName }
}

/**
 * A row opened pending, once committed. `holder` is what it was opened
 * for: a run (its agent) or a wait from outside the runtime.
 */
export function recordOpened(row: ToolCall, holder: object) {
  if (!live || row.status !== 'pending') return
  const agent = (holder as { agent?: unknown }).agent
  live.opened.add(1, rowAttributes(row, typeof agent === 'string' ? agent : null))
}

/**
 * Rows a settle, a vote or an expiry moved out of `pending`, once
 * committed: counted by outcome and channel, with their time to decision.
 * A row read without its run's agent gets it in one read for them all.
 */
export async function recordSettled(rows: ToolCall[]) {
  if (!live || rows.length === 0) return
  const unknown = rows.filter((row) => row.runId && runAgentOf(row) === undefined)
  const agents = await agentsOfRuns(unknown.map((row) => row.runId!))
  const instrumentsNow = live
  if (!instrumentsNow) return
  for (const row of rows) {
    const agent = runAgentOf(row) ?? (row.runId ? agents.get(row.runId) : undefined)
    const attributes = {
      ...rowAttributes(row, agent),
      [ATTR.outcome]: row.status,
      [ATTR.via]: row.answeredVia ?? '',
    }
    instrumentsNow.settled.add(1, attributes)
    const seconds = timeToDecision(row)
    if (seconds !== null) instrumentsNow.decision.record(seconds, attributes)
  }
}

/**
 * A step that committed: its duration (seconds) and the tokens its model
 * call used, by agent and model.
 */
export function recordStep(
  agent: string,
  model: { provider?: string; modelId?: string } | string,
  seconds: number,
  usage: { inputTokens?: number; outputTokens?: number }
) {
  if (!live) return
  const named = typeof model === 'string' ? { modelId: model } : model
  live.step.record(seconds, { [ATTR.agent]: agent, [ATTR.model]: named.modelId ?? '' })
  const attributes = {
    [ATTR.operation]: 'chat',
    [ATTR.provider]: named.provider ?? '',
    [ATTR.model]: named.modelId ?? '',
    [ATTR.agent]: agent,
  }
  if (usage.inputTokens !== undefined) {
    live.tokens.record(usage.inputTokens, { ...attributes, [ATTR.tokenType]: 'input' })
  }
  if (usage.outputTokens !== undefined) {
    live.tokens.record(usage.outputTokens, { ...attributes, [ATTR.tokenType]: 'output' })
  }
}

/**
 * Stranded runs recovery hands on, as it found them: a run another
 * process held with a lease that lapsed is a takeover.
 */
export function recordRecovered(
  runs: { status: string; leaseOwner?: string | null }[],
  owner: string
) {
  if (!live) return
  for (const run of runs) {
    live.recovered.add(1, { [ATTR.status]: run.status })
    if (run.leaseOwner && run.leaseOwner !== owner) live.takeovers.add(1)
  }
}

/** `count` deliveries of an outbox that failed */
export function recordFailedDeliveries(outbox: 'notifications' | 'effects', count = 1) {
  if (!live || count === 0) return
  live.failed.add(count, { [ATTR.outbox]: outbox })
}
