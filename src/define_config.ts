/*
 * `defineConfig` for config/agents.ts: validates what the app wrote once, at
 * boot, and resolves it lazily through a config provider, so optional parts
 * load only when configured.
 */

import { configProvider } from '@adonisjs/core'
import { RuntimeException } from '@adonisjs/core/exceptions'
import type { ConfigProvider } from '@adonisjs/core/types'
import { resolveLimits } from './questions/values.ts'
import { resolveMcpConfig } from './mcp_server/config.ts'
import type { AgentInboxConfig, ExecutorFactory, ResolvedAgentInboxConfig } from './types/main.ts'
import type { MetricsOptions } from './telemetry/metrics.ts'

/**
 * Defines the agent inbox config.
 *
 * @example
 * export default defineConfig({
 *   limits: { maxQuestions: 3, askBudget: 2 },
 * })
 */
export function defineConfig(
  config: AgentInboxConfig = {}
): ConfigProvider<ResolvedAgentInboxConfig> {
  const limits = resolveLimits(config.limits)
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new RuntimeException(
        `Invalid "limits.${name}" in config/agents.ts: expected a whole number >= 0, got ${value}`
      )
    }
  }
  if (limits.minOptions > limits.maxOptions) {
    throw new RuntimeException(
      'Invalid limits in config/agents.ts: "minOptions" must not exceed "maxOptions"'
    )
  }

  const names = new Set<string>()
  for (const agent of config.agents ?? []) {
    if (names.has(agent.name)) {
      throw new RuntimeException(`Two agents in config/agents.ts are named "${agent.name}"`)
    }
    names.add(agent.name)
  }

  const notifiers = config.notifications?.notifiers.map((notifier) => notifier.name) ?? []
  if (new Set(notifiers).size !== notifiers.length) {
    throw new RuntimeException('Two notifiers in config/agents.ts share a name')
  }

  if (
    config.executor !== undefined &&
    config.executor !== 'inline' &&
    config.executor !== 'queue' &&
    typeof config.executor !== 'function'
  ) {
    throw new RuntimeException(
      `Invalid "executor" in config/agents.ts: expected 'inline', 'queue' or a factory, got ${JSON.stringify(config.executor)}`
    )
  }

  let mcp
  try {
    mcp = resolveMcpConfig(config.mcp)
  } catch (error) {
    throw new RuntimeException(`Invalid "mcp" in config/agents.ts: ${(error as Error).message}`)
  }

  return configProvider.create(async () => ({
    agents: config.agents ?? [],
    limits,
    sweepInterval: config.sweepInterval ?? 30_000,
    leaseTtl: config.leaseTtl ?? 60_000,
    effectRetry: config.effectRetry ?? {},
    recoverOnStart: config.recoverOnStart ?? true,
    recoverInterval: config.recoverInterval ?? 60_000,
    inbox: config.inbox ?? {},
    approvals: config.approvals ?? {},
    mcp,
    live: config.live === false ? false : typeof config.live === 'object' ? config.live : {},
    executorKind: typeof config.executor === 'function' ? 'custom' : (config.executor ?? 'inline'),
    executor: config.executor === 'queue' ? await queueExecutor(config) : executorFactory(config),
    notifications: config.notifications ?? null,
    telemetry: {
      metrics: metricsOptions(config.telemetry?.metrics),
      tracing: config.telemetry?.tracing ?? {},
    },
    console: config.console ?? {},
  }))
}

/** `telemetry.metrics`: on by default (a no-op until an OpenTelemetry SDK is registered) */
function metricsOptions(metrics: boolean | MetricsOptions = true): MetricsOptions | false {
  return metrics === false ? false : metrics === true ? {} : metrics
}

/**
 * The factory given in config, or none for the inline executor.
 */
function executorFactory(config: AgentInboxConfig): ExecutorFactory | undefined {
  return typeof config.executor === 'function' ? config.executor : undefined
}

/**
 * The queue executor, imported only when configured: `@adonisjs/queue` is
 * an optional peer, and an app without it must boot.
 */
async function queueExecutor(config: AgentInboxConfig): Promise<ExecutorFactory> {
  const { QueueExecutor } = await import('./scale/queue_executor.ts').catch((error) => {
    throw new RuntimeException(
      `executor: 'queue' in config/agents.ts needs @adonisjs/queue. Install and configure it with "node ace add @adonisjs/queue"`,
      { cause: error }
    )
  })
  return (driver, { logger }) =>
    new QueueExecutor(driver, {
      logger,
      queue: config.queue?.name,
      adapter: config.queue?.adapter,
      leaseTtl: config.leaseTtl,
    })
}
