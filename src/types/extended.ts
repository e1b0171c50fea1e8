/*
 * Container bindings and events added by the provider.
 */

import type { AgentEvents } from '../events.ts'
import type { Inbox } from '../inbox/inbox.ts'
import type { Agents } from '../runtime/agents.ts'

declare module '@adonisjs/core/types' {
  interface ContainerBindings {
    'agents.runtime': Agents
    'agents.inbox': Inbox
  }
  interface EventsList extends AgentEvents {}
}
