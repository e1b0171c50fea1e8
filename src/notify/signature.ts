/*
 * The webhook channel's signature, pure: `t=<unix seconds>,v1=<hex>`, an
 * HMAC-SHA256 of `<t>.<body>` with the shared secret, as Stripe-style
 * receivers check it. `verifyWebhook` is exported for the app's receiver.
 */

import { createHmac, timingSafeEqual } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-agent-inbox-signature'

/**
 * The header value for `body` sent at `at` (seconds).
 */
export function signWebhook(secret: string, body: string, at: number): string {
  const mac = createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')
  return `t=${at},v1=${mac}`
}

/**
 * Whether `header` signs `body` with `secret`, sent at most `tolerance`
 * seconds from `now` (seconds), so a replayed payload is refused.
 *
 * @example
 * verifyWebhook(secret, rawBody, request.header('x-agent-inbox-signature'))
 */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string | undefined | null,
  now = Math.floor(Date.now() / 1000),
  tolerance = 300
): boolean {
  const parts = Object.fromEntries(
    (header ?? '').split(',').map((part) => part.split('=', 2) as [string, string])
  )
  const at = Number(parts.t)
  if (!Number.isInteger(at) || Math.abs(now - at) > tolerance || !parts.v1) return false
  const expected = Buffer.from(signWebhook(secret, body, at).split('v1=')[1], 'hex')
  const given = Buffer.from(parts.v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
