/*
 * Notifications (docs/design.md §7.7): the channel interface, the mail and
 * webhook channels, and the webhook signature a receiver checks. Exported
 * from the package's main entry.
 *
 * This folder may use the inbox, persistence, governance and questions; it
 * never imports the HTTP side or the runtime (the provider hands it the
 * signed links the HTTP side makes).
 */

export { defineChannel } from './channel.ts'
export type { Channel, ChannelContext, Recipient, ReplyLink, RowNotice } from './channel.ts'
export { mailChannel, type MailChannelOptions } from './mail_channel.ts'
export { webhookChannel, type WebhookChannelOptions } from './webhook_channel.ts'
export { DELIVERY_HEADER, SIGNATURE_HEADER, signWebhook, verifyWebhook } from './signature.ts'
export type { VerifyWebhookOptions, WebhookHeaders } from './signature.ts'
export type { Preferences, QuietHours } from './schedule.ts'
export type { NotificationsConfig } from './notifier.ts'
