/*
 * Idempotency keys and the outbox's retry schedule, pure. A key is derived
 * from what identifies one approved call — its run, the run's attempt and
 * the call's id in that attempt — so every start of the same call (a
 * transactional handler run again after a kill, an effect delivered again
 * after a crash) carries the same key, and an external API that dedupes by
 * key applies it once. Keys are shaped as UUIDs (version 8, RFC 9562): the
 * form payment and mail APIs accept everywhere, within their length limits.
 */

import { createHash } from 'node:crypto'

function uuidOf(text: string): string {
  const bytes = createHash('sha256').update(text).digest().subarray(0, 16)
  bytes[6] = (bytes[6] & 0x0f) | 0x80
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * The idempotency key of one tool call: the same for the same run, attempt
 * and stored call id, different for anything else (another call, or the
 * same call id in a retried run's next attempt).
 *
 * @example
 * callKey('0b0e…', 1, 'call_1') // '5f1c…-…-8…-…' (36 characters)
 */
export function callKey(runId: string, attempt: number, callId: string): string {
  return uuidOf(`adonis-agent-inbox:call:${runId}:${attempt}:${callId}`)
}

/**
 * The idempotency key of a call's `position`th effect (`ctx.after`): each
 * effect has its own, so two calls to one API from one action are two
 * effects to it, not one.
 *
 * @example
 * effectKey(callKey(runId, 1, 'call_1'), 0)
 */
export function effectKey(key: string, position: number): string {
  return uuidOf(`adonis-agent-inbox:effect:${key}:${position}`)
}

/** How an effect that failed is tried again */
export type EffectRetry = {
  /** The wait after the first failure (ms), doubled after each; default 5 s */
  backoff: number
  /** Deliveries before it is given up as `failed`; default 10 */
  attempts: number
}

export const DEFAULT_EFFECT_RETRY: EffectRetry = { backoff: 5000, attempts: 10 }

/** The longest wait between two deliveries of an effect */
const MAX_WAIT = 15 * 60_000

/**
 * After the `attempts`th delivery of an effect failed: how long to wait
 * before the next, or null when it is given up.
 *
 * @example
 * retryWait(1, DEFAULT_EFFECT_RETRY) // 5000
 * retryWait(10, DEFAULT_EFFECT_RETRY) // null
 */
export function retryWait(attempts: number, retry: EffectRetry): number | null {
  if (attempts >= retry.attempts) return null
  return Math.min(retry.backoff * 2 ** (attempts - 1), MAX_WAIT)
}
