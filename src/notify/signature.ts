/*
 * The webhook notifier's signature, pure: `t=<unix seconds>,v1=<hex>`, an
 * HMAC-SHA256 of `<t>.<delivery id>.<body>` with the shared secret, in the
 * Stripe style. The delivery id (its own header) is signed with the body,
 * so a receiver that remembers the ids it handled turns away a replay
 * inside the timestamp window, and a retry of a delivery it already took.
 * `verifyWebhook` is exported for the app's receiver.
 */

import { createHmac, timingSafeEqual } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-agent-inbox-signature'

/** The delivery's id: the same on every attempt of one delivery */
export const DELIVERY_HEADER = 'x-agent-inbox-delivery'

/** Letters, digits, `_` and `-`: nothing that could move the `.` separators */
const DELIVERY_ID = /^[\w-]{1,128}$/

/** A request's headers: Adonis's `request.headers()`, Node's, or a fetch `Headers` */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined | null>

export type VerifyWebhookOptions = {
  /** The receiver's clock, in unix seconds; default now */
  now?: number
  /** Seconds a signature stays valid either side of `now`; default 300 */
  tolerance?: number
}

/**
 * The signature header of `body`, delivery `deliveryId`, sent at `at` (seconds).
 */
export function signWebhook(secret: string, body: string, at: number, deliveryId: string): string {
  const mac = createHmac('sha256', secret).update(`${at}.${deliveryId}.${body}`).digest('hex')
  return `t=${at},v1=${mac}`
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined
  }
  const value = (headers as Record<string, string | string[] | undefined | null>)[name]
  return Array.isArray(value) ? undefined : (value ?? undefined)
}

/**
 * The delivery id of a genuine delivery: `body` signed with `secret`
 * together with the id in `x-agent-inbox-delivery`, sent at most
 * `tolerance` seconds from `now`. Null when anything does not hold. Refuse
 * a delivery whose id was already handled: within the window a replay
 * passes this check, and a delivery is retried (with the same id) when the
 * receiver did not answer 2xx in time.
 *
 * @example
 * const delivery = verifyWebhook(secret, request.raw()!, request.headers())
 * if (!delivery) return response.unauthorized()
 */
export function verifyWebhook(
  secret: string,
  body: string,
  headers: WebhookHeaders,
  options: VerifyWebhookOptions = {}
): string | null {
  const deliveryId = header(headers, DELIVERY_HEADER)
  if (!deliveryId || !DELIVERY_ID.test(deliveryId)) return null
  const parts = Object.fromEntries(
    (header(headers, SIGNATURE_HEADER) ?? '')
      .split(',')
      .map((part) => part.split('=', 2) as [string, string])
  )
  const at = Number(parts.t)
  const now = options.now ?? Math.floor(Date.now() / 1000)
  if (!Number.isInteger(at) || Math.abs(now - at) > (options.tolerance ?? 300)) return null
  if (!parts.v1) return null
  const expected = Buffer.from(signWebhook(secret, body, at, deliveryId).split('v1=')[1], 'hex')
  const given = Buffer.from(parts.v1, 'hex')
  const genuine = given.length === expected.length && timingSafeEqual(given, expected)
  return genuine ? deliveryId : null
}
