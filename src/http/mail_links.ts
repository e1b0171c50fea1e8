/*
 * One-tap links of notification mails (docs/design.md §7.7): AdonisJS
 * signed URLs of the row's confirmation page, for one person and one
 * action, expiring (`linkTtl`). The signature covers the path and the
 * query string, so a changed row id, person or action is a 403. A link
 * only opens a page; the page's form settles the row, once.
 */

import type { HttpRouterService } from '@adonisjs/core/types'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { waitsForAnswers } from '../inbox/wait.ts'
import type { LinkMaker, NotificationsConfig } from '../notify/dispatcher.ts'
import type { ReplyLink } from '../notify/notifier.ts'

/** The purpose a link's signature is bound to: no other signed URL of the app opens the page */
export const LINK_PURPOSE = 'agent-inbox-reply'

export const MAIL_ROUTE = 'agent_inbox.mail'

/**
 * Makes the signed links of rows, when the app registered the inbox's
 * routes; null without them (mails then carry the inbox's link alone).
 */
export function linkMaker(
  router: HttpRouterService,
  config: NotificationsConfig
): LinkMaker | null {
  if (!router.has(MAIL_ROUTE)) return null
  const urls = router.urlBuilder as unknown as {
    signedUrlFor(name: string, params: Record<string, string>, options: object): string
    urlFor(name: string): string
  }
  const base = config.baseUrl?.replace(/\/$/, '') ?? ''
  const options = { expiresIn: config.linkTtl ?? '72h', purpose: LINK_PURPOSE, prefixUrl: base }
  const link = (row: ToolCall, person: string, action: ReplyLink['action']) =>
    urls.signedUrlFor(MAIL_ROUTE, { id: row.id }, { ...options, qs: { person, action } })
  return {
    inboxUrl: base ? `${base}${urls.urlFor('agent_inbox.index')}` : null,
    links(row, person) {
      if (waitsForAnswers(row)) {
        return [
          { action: 'confirm', label: 'Confirm the defaults', url: link(row, person, 'confirm') },
        ]
      }
      return [
        { action: 'approve', label: 'Approve', url: link(row, person, 'approve') },
        { action: 'reject', label: 'Reject', url: link(row, person, 'reject') },
      ]
    },
  }
}
