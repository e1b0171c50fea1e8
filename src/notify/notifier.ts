/*
 * The notifier interface (docs/design.md §7.7): how the package reaches a
 * person about a row waiting for them — a message per row (`notify`) and,
 * for people who want one, a digest of several (`digest`). Notifiers only
 * deliver: who is told, when and why is the outbox's (./outbox.ts), and a
 * reply comes back through the one settle path (a signed mail link's
 * confirmation page, or the JSON API for a webhook's bot).
 */

import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { NoticeReason } from '../persistence/models/notification.ts'

/** A person as the `preferences` hook describes them */
export type Recipient = {
  id: string
  /** Where mail goes; a person without one gets no mail */
  email?: string | null
  /** How mails and payloads address them */
  name?: string | null
  /** Their language (`fr`, `de-CH`): mails speak it; default English */
  locale?: string | null
}

/**
 * A one-tap reply link: opens the row's confirmation page (never settles
 * by itself). `approve`/`reject` for an approval, `confirm` (the defaults)
 * for a question set.
 */
export type ReplyLink = { action: 'approve' | 'reject' | 'confirm'; label: string; url: string }

/** What a notifier is told about one row */
export type RowNotice = {
  /** The notice's id in the outbox: the same on every attempt to deliver it */
  id: number
  row: ToolCall
  reason: NoticeReason
  /** Signed links to the confirmation page, for this person and row */
  links: ReplyLink[]
  /** What the card says of the row's ladder ("reminded 2 h ago; escalates to @oncall in 2 h") */
  note: string | null
}

/** What every call of a notifier gets beside the rows */
export type NotifierContext = {
  /** The inbox's absolute URL, when the app configured `baseUrl` */
  inboxUrl: string | null
  /** Resolves a container binding (`mail.manager`), for notifiers that need the app's services */
  make(binding: string): Promise<any>
}

export type Notifier = {
  name: string
  /** Tells a person about one row */
  notify(notice: RowNotice, person: Recipient, context: NotifierContext): Promise<void>
  /** Tells a person about several rows at once; default: `notify` each */
  digest?(notices: RowNotice[], person: Recipient, context: NotifierContext): Promise<void>
  /** The reply links of a row, in place of the signed confirmation links */
  render?(notice: RowNotice, person: Recipient): ReplyLink[]
}

/**
 * Defines a notifier of the app's own (a chat bot, SMS).
 *
 * @example
 * defineNotifier({
 *   name: 'slack',
 *   notify: async ({ row, links }, person) => slack.post(person.id, row.toolName, links),
 * })
 */
export function defineNotifier(notifier: Notifier): Notifier {
  if (!notifier.name || typeof notifier.notify !== 'function') {
    throw new Error(
      'defineNotifier: give the notifier a name and a notify(notice, person) function'
    )
  }
  return notifier
}
