/*
 * What a person was shown, as a digest (docs/design.md §11.4). The page and
 * the JSON API send back the digest of the row they rendered; a reply that
 * names another is refused (`E_STALE_VIEW`), so nobody approves args or
 * answers questions they did not see. The digest is computed from the row
 * as it is now, never read from a stored column: args rewritten in the
 * database after the row was shown change it.
 */

import { createHash } from 'node:crypto'
import { canonicalJson } from '../questions/memory.ts'

/** What of a row a person sees before deciding */
export type ViewedRow = { id: string; kind: string; toolName: string; request: unknown }

/**
 * The digest of a row as shown: its id, kind, tool and request (the
 * question set, or the args and summary of an approval), sha256 in hex.
 *
 * @example
 * await inbox.settle(row, { approved: true }, { by, via: 'api', view: viewDigest(row) })
 */
export function viewDigest(row: ViewedRow): string {
  const shown = { id: row.id, kind: row.kind, tool: row.toolName, request: row.request ?? null }
  return createHash('sha256').update(canonicalJson(shown)).digest('hex')
}
