/*
 * What every pending row's card takes (the page's CardState, rows.ts) and
 * emits on the Vue page: the question, approval and link cards. The app
 * receives this file in inertia/agent_inbox/.
 */

import type { Reply } from './form_state'

export type { CardState as CardProps } from './rows'

export type CardEmits = {
  reply: [reply: Reply]
  select: [selected: boolean]
}
