/*
 * Slack's request signature, pure (https://api.slack.com/authentication/verifying-requests-from-slack):
 * `v0=` and the hex HMAC-SHA256, with the app's signing secret, of
 * `v0:{X-Slack-Request-Timestamp}:{raw body}`. A timestamp more than five
 * minutes from now is refused, so an old request cannot be replayed; the
 * comparison takes constant time. It needs the body as Slack sent it.
 */

import { createHmac, timingSafeEqual } from 'node:crypto'

export const SLACK_SIGNATURE_HEADER = 'x-slack-signature'
export const SLACK_TIMESTAMP_HEADER = 'x-slack-request-timestamp'

/** The `x-slack-signature` of `body` sent at `at` (unix seconds) */
export function signSlackRequest(secret: string, body: string, at: number): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${at}:${body}`).digest('hex')}`
}

/**
 * Whether `body` with these two headers was signed with `secret` at most
 * `tolerance` seconds (default 300) from `now` (unix seconds, default now).
 */
export function verifySlackRequest(
  secret: string,
  body: string,
  signature: string | undefined | null,
  timestamp: string | undefined | null,
  options: { now?: number; tolerance?: number } = {}
): boolean {
  const at = Number(timestamp)
  const now = options.now ?? Math.floor(Date.now() / 1000)
  if (!timestamp || !Number.isInteger(at)) return false
  if (Math.abs(now - at) > (options.tolerance ?? 300)) return false
  if (typeof signature !== 'string' || !signature.startsWith('v0=')) return false
  const expected = Buffer.from(signSlackRequest(secret, body, at))
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
