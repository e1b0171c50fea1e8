/*
 * Notifications (docs/design.md §7.7): the notifier interface, the mail and
 * webhook notifiers, and the webhook signature a receiver checks. Exported
 * from the package's main entry.
 *
 * This folder may use the inbox, persistence, governance and questions; it
 * never imports the HTTP side or the runtime (the provider hands it the
 * signed links the HTTP side makes).
 */

export { defineNotifier } from './notifier.ts'
export type { Notifier, NotifierContext, Recipient, ReplyLink, RowNotice } from './notifier.ts'
export { mailNotifier, type MailNotifierOptions } from './mail_notifier.ts'
export { webhookNotifier, type WebhookNotifierOptions } from './webhook_notifier.ts'
export { DELIVERY_HEADER, SIGNATURE_HEADER, signWebhook, verifyWebhook } from './signature.ts'
export type { VerifyWebhookOptions, WebhookHeaders } from './signature.ts'
export type { Preferences, QuietHours } from './schedule.ts'
export type { NotificationsConfig } from './dispatcher.ts'
