/*
 * Registers the agent runtime and its inbox in the container. Nothing runs
 * at register time: the runtime is a lazy singleton. In the long-lived
 * processes (the web server, and with `executor: 'queue'` each
 * `node ace queue:work` worker), runs left behind by a dead process are
 * resumed once the process is ready and expired rows are swept on an
 * interval, each under `@adonisjs/lock` when the app has it so one process
 * at a time does it; both stop at shutdown.
 *
 * When the app has `@adonisjs/transmit`, row events are broadcast to their
 * owner's Transmit channel (src/http/live.ts, imported only then) from the moment
 * the runtime is built, and each person may subscribe to their own Transmit channel
 * only, authorized as soon as anything resolves Transmit.
 */

import type { NotificationDispatcher } from '../src/notify/dispatcher.ts'
import { configProvider } from '@adonisjs/core'
import { RuntimeException } from '@adonisjs/core/exceptions'
import type { ApplicationService } from '@adonisjs/core/types'
import { Agents } from '../src/runtime/agents.ts'
import type { ResolvedAgentInboxConfig } from '../src/types/main.ts'
import type { LiveEmitter, LiveTransmit } from '../src/http/live.ts'
import type { TransmitRoutes } from '../src/http/stream_guard.ts'
import { exclusive, lockManager, LOCKS } from '../src/scale/exclusive.ts'
import debug from '../src/debug.ts'
import { startMetrics } from '../src/telemetry/metrics.ts'
import { configureTracing } from '../src/telemetry/tracing.ts'
import '../src/types/extended.ts'

export default class AgentInboxProvider {
  #sweeper?: NodeJS.Timeout
  #dispatcher?: NotificationDispatcher
  #recoverer?: NodeJS.Timeout
  /** Set once the runtime was built, so shutdown never builds one just to stop it */
  #agents?: Agents
  /** Stops the live broadcasts at shutdown */
  #live?: { stop(): void }
  /** Stops the metrics' gauges at shutdown */
  #stopMetrics?: () => void

  constructor(protected app: ApplicationService) {}

  /**
   * The config with the app's settings, or null when it was not made with
   * `defineConfig`.
   */
  #config() {
    return configProvider.resolve<ResolvedAgentInboxConfig>(
      this.app,
      this.app.config.get('agents', {})
    )
  }

  /**
   * Transmit's container binding, typed by what the package uses of it:
   * `@adonisjs/transmit` is an optional peer, never imported.
   */
  get #transmitContainer() {
    return this.app.container as unknown as {
      hasBinding(binding: string): boolean
      make(binding: string): Promise<LiveTransmit>
      resolving(
        binding: string,
        callback: (transmit: LiveTransmit & TransmitRoutes) => Promise<void>
      ): void
    }
  }

  /**
   * Broadcasts row events through Transmit, when the app has it and the
   * config does not turn it off.
   */
  async #startLive(config: ResolvedAgentInboxConfig, emitter: LiveEmitter) {
    const container = this.#transmitContainer
    if (!config.live || !container.hasBinding('transmit')) return
    const { broadcastRowEvents } = await import('../src/http/live.ts')
    this.#live = broadcastRowEvents(emitter, await container.make('transmit'), config.live)
  }

  register() {
    /*
     * Transmit channel authorization and the stream guard go in before
     * Transmit is handed to anyone (its routes, the app's start files), so
     * no subscription to a person's channel, and no stream of theirs, is
     * ever let through unchecked.
     */
    this.#transmitContainer.resolving('transmit', async (transmit) => {
      const config = await this.#config()
      if (!config?.live) return
      const { authorizeTransmitChannels } = await import('../src/http/live.ts')
      authorizeTransmitChannels(transmit, config.inbox)
      // A stream id is its opener's alone, and malformed input never reaches Transmit
      const { guardTransmitRoutes } = await import('../src/http/stream_guard.ts')
      guardTransmitRoutes(transmit, config.inbox)
    })

    this.app.container.singleton('agents.runtime', async () => {
      const config = await this.#config()
      if (!config) {
        throw new RuntimeException(
          'Invalid "config/agents.ts" file. Make sure you are using the "defineConfig" method'
        )
      }
      const emitter = await this.app.container.make('emitter')
      const encryption = await this.app.container.make('encryption')
      configureTracing(config.telemetry.tracing)
      this.#agents = new Agents({
        agents: config.agents,
        limits: config.limits,
        leaseTtl: config.leaseTtl,
        effectRetry: config.effectRetry,
        executor: config.executor,
        logger: await this.app.container.make('logger'),
        // Approvals are signed with the app's encryption key and checked before they run
        signer: encryption.getMessageVerifier(),
        approvals: config.approvals,
        events: emitter,
        notify: config.notifications !== null,
      })
      await this.#startLive(config, emitter)
      if (config.telemetry.metrics) this.#stopMetrics = await startMetrics(config.telemetry.metrics)
      // Notices of a new row go out on the next tick (docs/design.md §7.7)
      if (config.notifications) {
        emitter.on('agents:row:created', async () => {
          const dispatcher = await this.app.container.make('agents.notifications')
          dispatcher?.soon()
        })
      }
      return this.#agents
    })
    /*
     * The access hooks are the HTTP layer's alone: the inbox and the runtime
     * never see a request.
     */
    this.app.container.singleton('agents.access', async () => {
      const { resolveAccess } = await import('../src/http/access.ts')
      const config = await this.#config()
      return resolveAccess(config?.inbox)
    })
    this.app.container.singleton('agents.console', async () => {
      const { resolveConsole } = await import('../src/console/access.ts')
      const config = await this.#config()
      return resolveConsole(config?.console, {
        approvals: config?.approvals,
        recoverInterval: config?.recoverInterval ?? 60_000,
        notify: Boolean(config?.notifications),
      })
    })
    /*
     * The dispatcher, when notifications are configured: the HTTP side makes
     * its signed links, looked up once the routes are registered.
     */
    this.app.container.singleton('agents.notifications', async () => {
      const config = await this.#config()
      if (!config?.notifications) return null
      const settings = config.notifications
      const { NotificationDispatcher } = await import('../src/notify/dispatcher.ts')
      const { linkMaker } = await import('../src/http/mail_links.ts')
      const make = (binding: string) => this.app.container.make(binding as any)
      const router = async () => {
        const routes = await this.app.container.make('router')
        // A console process (a job, `node ace`) never boots the server that commits the routes
        if (this.app.getEnvironment() !== 'web') routes.commit()
        return routes
      }
      this.#dispatcher = new NotificationDispatcher(settings, make, async () =>
        linkMaker(await router(), settings)
      )
      return this.#dispatcher
    })
    this.app.container.singleton('agents.mcp', async () => {
      const config = await this.#config()
      if (!config) {
        throw new RuntimeException(
          'The MCP routes need config/agents.ts made with defineConfig from adonis-agent-inbox'
        )
      }
      return { config: config.mcp, limits: config.limits }
    })
    this.app.container.singleton('agents.inbox', async () => {
      const agents = await this.app.container.make('agents.runtime')
      return agents.inbox
    })
  }

  /**
   * Only long-lived processes recover runs and sweep: the web server, and
   * the queue's workers when they drive the runs. Not other ace commands,
   * not the REPL, not tests unless they ask for it. A worker is known once
   * ace is about to run `queue:work`, and the runtime is built before the
   * worker takes its first job (so the job's class is registered).
   */
  async ready() {
    if (this.app.getEnvironment() === 'web') return this.#runInBackground()
    if (this.app.getEnvironment() !== 'console' || !this.app.container.hasBinding('ace')) return
    const config = await this.#config()
    if (config?.executorKind !== 'queue') return
    const ace = await this.app.container.make('ace')
    ace.executing(async (command, isMain) => {
      if (isMain && command.commandName === 'queue:work') await this.#runInBackground()
    })
  }

  /**
   * Start-up recovery, then the periodic recovery and sweep. Each pass
   * runs under its lock (src/scale/exclusive.ts): of several processes
   * starting or ticking together, one does the work and the others skip
   * their turn.
   */
  async #runInBackground() {
    const config = await this.#config()
    const agents = await this.app.container.make('agents.runtime')
    const locks = await lockManager(this.app.container)
    const logger = await this.app.container.make('logger')
    const recover = () =>
      exclusive(locks, LOCKS.recover, 30_000, () => agents.recover()).catch((error) =>
        logger.error({ err: error }, 'adonis-agent-inbox: recovering stranded runs failed')
      )
    // A failed pass (the database or the lock store down) is tried again on the interval
    if (config?.recoverOnStart) await recover()
    /*
     * Runs stranded while this process lives (a drive that failed past its
     * retries, a worker killed within its lease, a resume lost with the
     * process that settled, a job lost with the queue) are picked up here,
     * the lease deciding who drives: no run waits for a restart.
     */
    if (config?.recoverInterval) {
      this.#recoverer = setInterval(() => void recover(), config.recoverInterval)
      this.#recoverer.unref()
    }
    if (config?.sweepInterval) {
      this.#sweeper = setInterval(() => {
        exclusive(locks, LOCKS.sweep, 120_000, async () => {
          await agents.sweep()
          // What the ladders told and the digests whose interval ended
          const dispatcher = await this.app.container.make('agents.notifications')
          await dispatcher?.dispatch()
        }).catch((error) => debug('sweep failed %O', error))
      }, config.sweepInterval)
      this.#sweeper.unref()
    }
  }

  async shutdown() {
    clearInterval(this.#sweeper)
    clearInterval(this.#recoverer)
    this.#live?.stop()
    this.#stopMetrics?.()
    await this.#agents?.close()
    await this.#dispatcher?.idle()
  }
}
