/*
 * What every pending row's card takes and emits on the Vue page (the
 * question, approval and link cards), written once. The app receives this
 * file in inertia/agent_inbox/.
 */

import type { RowCard } from 'adonis-agent-inbox/types'
import type { Reply } from './form_state'

export type CardProps = {
  card: RowCard
  /** The server's errors for the card's last reply, by field */
  errors: Record<string, string[]>
  /** A reply of this card is in flight */
  busy: boolean
  /** Another card's reply is in flight */
  locked: boolean
  /** Picked for a bulk decision */
  selected: boolean
}

export type CardEmits = {
  reply: [reply: Reply]
  select: [selected: boolean]
}
