/*
 * The hash that pins the args a person was shown for approval (docs/design.md §6.5):
 * the runtime executes an approved action only with args of this hash.
 */

import { createHash } from 'node:crypto'
import { canonicalJson } from '../questions/memory.ts'

/**
 * The sha256 (hex) of a value's canonical JSON.
 *
 * @example
 * hashArgs({ a: 1, b: 2 }) === hashArgs({ b: 2, a: 1 }) // true
 */
export function hashArgs(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex')
}
