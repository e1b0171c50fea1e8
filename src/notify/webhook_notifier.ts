/*
 * The webhook notifier (docs/design.md §7.7): POSTs a JSON payload per row
 * (or per digest) to the app's URL, signed with a shared secret
 * (./signature.ts), so a Slack or Teams bot of the app's own can show it
 * and settle the row through the JSON API with the digest it names. Each
 * delivery carries an id, the same on its retries, which the signature
 * covers: the receiver deduplicates on it.
 */

import { createHash } from 'node:crypto'
import { viewDigest } from '../governance/view.ts'
import { E_EMPTY_WEBHOOK_SECRET } from '../errors.ts'
import { defineNotifier, type Recipient, type RowNotice } from './notifier.ts'
import { DELIVERY_HEADER, SIGNATURE_HEADER, signWebhook } from './signature.ts'

export type WebhookNotifierOptions = {
  url: string
  /** Shared with the receiver, which checks the signature (`verifyWebhook`) */
  secret: string
  /** Milliseconds before a delivery is given up (and tried again later); default 10 s */
  timeout?: number
}

/** What a row looks like in a payload: enough to show it and to reply to it */
export function rowPayload(notice: RowNotice) {
  const row = notice.row
  return {
    id: row.id,
    runId: row.runId,
    kind: row.kind,
    toolName: row.toolName,
    request: row.request,
    digest: viewDigest(row),
    reason: notice.reason,
    note: notice.note,
    links: notice.links,
    createdAt: row.createdAt?.toISO() ?? null,
    expiresAt: row.expiresAt?.toISO() ?? null,
  }
}

/**
 * The id of a delivery of these notices: a notice's own outbox id, or for a
 * digest a hash of its notices' ids. A retry of the delivery (the same
 * notices, given back after a failure) has the same id.
 *
 * @example
 * deliveryId([{ id: 42 }]) // 'notice-42'
 */
export function deliveryId(notices: { id: number }[]): string {
  if (notices.length === 1) return `notice-${notices[0].id}`
  const ids = notices.map((notice) => notice.id).sort((a, b) => a - b)
  return `digest-${createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 32)}`
}

/**
 * Throws `E_EMPTY_WEBHOOK_SECRET` at config time when the secret is empty
 * or blank (an unset env variable): anyone could sign deliveries with it.
 *
 * @example
 * webhookNotifier({ url: env.get('INBOX_WEBHOOK_URL'), secret: env.get('INBOX_WEBHOOK_SECRET') })
 */
export function webhookNotifier(options: WebhookNotifierOptions) {
  if (typeof options.secret !== 'string' || options.secret.trim() === '') {
    throw new E_EMPTY_WEBHOOK_SECRET([String(options.url)])
  }
  async function post(person: Recipient, rows: RowNotice[], inboxUrl: string | null) {
    const body = JSON.stringify({
      type: 'agent_inbox.notice',
      person: { id: person.id, name: person.name ?? null },
      rows: rows.map(rowPayload),
      inboxUrl,
    })
    const at = Math.floor(Date.now() / 1000)
    const delivery = deliveryId(rows)
    const response = await fetch(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [DELIVERY_HEADER]: delivery,
        [SIGNATURE_HEADER]: signWebhook(options.secret, body, at, delivery),
      },
      body,
      signal: AbortSignal.timeout(options.timeout ?? 10_000),
    })
    if (!response.ok) throw new Error(`webhook ${options.url} answered ${response.status}`)
  }
  return defineNotifier({
    name: 'webhook',
    notify: (notice, person, context) => post(person, [notice], context.inboxUrl),
    digest: (notices, person, context) => post(person, notices, context.inboxUrl),
  })
}
