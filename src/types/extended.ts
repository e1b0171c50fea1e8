/*
 * Container bindings added by the provider.
 */

import type { Inbox } from '../inbox/inbox.ts'

declare module '@adonisjs/core/types' {
  interface ContainerBindings {
    'agents.inbox': Inbox
  }
}
