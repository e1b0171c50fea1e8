/*
 * Container bindings and events added by the provider.
 */

import type { AgentEvents } from '../events.ts'
import type { InboxAccess } from '../http/access.ts'
import type { Inbox } from '../inbox/inbox.ts'
import type { Agents } from '../runtime/agents.ts'
import type { NotificationDispatcher } from '../notify/dispatcher.ts'
import type { ConsoleSettings } from '../console/access.ts'
import type { ResolvedMcpConfig } from '../mcp_server/config.ts'
import type { QuestionLimits } from '../questions/types.ts'

declare module '@adonisjs/core/types' {
  interface ContainerBindings {
    'agents.runtime': Agents
    'agents.inbox': Inbox
    /** Who may see and settle rows over HTTP: the config's `inbox` hooks over the defaults */
    'agents.access': InboxAccess
    /** Sends notices (docs/design.md §7.7); null when `notifications` is not configured */
    'agents.notifications': NotificationDispatcher | null
    /** The operator console's hooks: the config's `console` over the defaults */
    'agents.console': ConsoleSettings
    /** The MCP server's settings (`mcp` in config/agents.ts) and the question limits it asks under */
    'agents.mcp': { config: ResolvedMcpConfig; limits: QuestionLimits }
  }
  interface EventsList extends AgentEvents {}
}
