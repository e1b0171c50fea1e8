/*
 * Registers the agent runtime and its inbox in the container. Nothing runs
 * at register time: the runtime is a lazy singleton. Once the app is ready
 * (web server or worker), runs left behind by a dead process are resumed
 * and expired rows are swept on an interval; both stop at shutdown.
 */

import { configProvider } from '@adonisjs/core'
import { RuntimeException } from '@adonisjs/core/exceptions'
import type { ApplicationService } from '@adonisjs/core/types'
import { Agents } from '../src/runtime/agents.ts'
import type { ResolvedAgentInboxConfig } from '../src/types.ts'
import debug from '../src/debug.ts'
import '../src/types/extended.ts'

export default class AgentInboxProvider {
  #sweeper?: NodeJS.Timeout
  /** Set once the runtime was built, so shutdown never builds one just to stop it */
  #agents?: Agents

  constructor(protected app: ApplicationService) {}

  register() {
    this.app.container.singleton('agents.runtime', async () => {
      const config = await configProvider.resolve<ResolvedAgentInboxConfig>(
        this.app,
        this.app.config.get('agents', {})
      )
      if (!config) {
        throw new RuntimeException(
          'Invalid "config/agents.ts" file. Make sure you are using the "defineConfig" method'
        )
      }
      const emitter = await this.app.container.make('emitter')
      this.#agents = new Agents({
        agents: config.agents,
        limits: config.limits,
        leaseTtl: config.leaseTtl,
        access: config.inbox,
        events: emitter,
      })
      return this.#agents
    })
    this.app.container.singleton('agents.inbox', async () => {
      const agents = await this.app.container.make('agents.runtime')
      return agents.inbox
    })
  }

  /**
   * Only long-lived processes recover runs and sweep: not ace commands,
   * not the REPL, not tests unless they ask for it.
   */
  async ready() {
    if (this.app.getEnvironment() !== 'web') return
    const config = await configProvider.resolve<ResolvedAgentInboxConfig>(
      this.app,
      this.app.config.get('agents', {})
    )
    const agents = await this.app.container.make('agents.runtime')
    if (config?.recoverOnStart) await agents.recover()
    if (config?.sweepInterval) {
      this.#sweeper = setInterval(() => {
        agents.sweep().catch((error) => debug('sweep failed %O', error))
      }, config.sweepInterval)
      this.#sweeper.unref()
    }
  }

  async shutdown() {
    clearInterval(this.#sweeper)
    await this.#agents?.idle()
  }
}
