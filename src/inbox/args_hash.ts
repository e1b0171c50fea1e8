/*
 * The hash that pins the args a person was shown for approval (SPEC §3.6):
 * the runtime executes an approved action only with args of this hash.
 */

import { createHash } from 'node:crypto'

/**
 * JSON with object keys sorted at every depth, so equal values serialize
 * equally whatever order their keys were written in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, item) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item
  )
}

/**
 * The sha256 (hex) of a value's canonical JSON.
 *
 * @example
 * hashArgs({ a: 1, b: 2 }) === hashArgs({ b: 2, a: 1 }) // true
 */
export function hashArgs(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex')
}
