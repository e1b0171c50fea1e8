/*
 * The runtime and its inbox, for
 * `import agents, { inbox } from 'adonis-agent-inbox/services/main'`.
 */

import app from '@adonisjs/core/services/app'
import type { Inbox } from '../src/inbox/inbox.ts'
import type { Agents } from '../src/runtime/agents.ts'

let agents: Agents
let inbox: Inbox

await app.booted(async () => {
  agents = await app.container.make('agents.runtime')
  inbox = agents.inbox
})

export { agents as default, inbox }
