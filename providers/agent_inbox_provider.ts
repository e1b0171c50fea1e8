/*
 * Registers the inbox in the container. Nothing connects at register time:
 * the inbox is a lazy singleton and reaches the database through Lucid's
 * models only when first used.
 */

import { configProvider } from '@adonisjs/core'
import { RuntimeException } from '@adonisjs/core/exceptions'
import type { ApplicationService } from '@adonisjs/core/types'
import { Inbox } from '../src/inbox/inbox.ts'
import type { ResolvedAgentInboxConfig } from '../src/types.ts'
import '../src/types/extended.ts'

export default class AgentInboxProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    this.app.container.singleton('agents.inbox', async () => {
      const config = await configProvider.resolve<ResolvedAgentInboxConfig>(
        this.app,
        this.app.config.get('agents', {})
      )
      if (!config) {
        throw new RuntimeException(
          'Invalid "config/agents.ts" file. Make sure you are using the "defineConfig" method'
        )
      }
      return new Inbox({ limits: config.limits })
    })
  }
}
