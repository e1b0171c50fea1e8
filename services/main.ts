/*
 * The inbox singleton, for `import inbox from 'adonis-agent-inbox/services/main'`.
 */

import app from '@adonisjs/core/services/app'
import type { Inbox } from '../src/inbox/inbox.ts'

let inbox: Inbox

await app.booted(async () => {
  inbox = await app.container.make('agents.inbox')
})

export { inbox as default }
