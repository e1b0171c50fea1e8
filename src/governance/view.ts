/*
 * What a person is shown. Two rules live here, both pure:
 *
 * - The view digest (docs/design.md §11.4): the page and the JSON API send
 *   back the digest of the row they rendered; a reply that names another is
 *   refused (`E_STALE_VIEW`), so nobody approves args or answers questions
 *   they did not see. The digest is computed from the row as it is now,
 *   never read from a stored column: args rewritten in the database after
 *   the row was shown change it.
 * - The sight of a run (docs/design.md §11.6): how much of a run a person
 *   sees. Whoever may read the run (its owner, an admin the app's
 *   `authorizeRun` lets in) sees all of it; someone who only decides rows
 *   of it (a quorum's approver, a reassigned one) sees those rows and not
 *   the run's input, transcript or other rows, unless the agent shows its
 *   approvers the run. The row detail, the run page, the history and the
 *   live stream all ask this one function.
 */

import { createHash } from 'node:crypto'
import { canonicalJson } from '../questions/memory.ts'
import type { QuorumSpec } from './quorum.ts'

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

/**
 * How much of a run a person sees: `run`, all of it (its input, its
 * transcript, every row, its result); `rows`, only the rows they may
 * decide, with the agent's name, who asked and the run's status.
 */
export type RunSight = 'run' | 'rows'

/**
 * How much of a run a person sees: the whole run when they may read it
 * (`readsRun`: its owner by default, or whoever the app's `authorizeRun`
 * lets in, such as an admin); the rows they may decide when they decide
 * some of it (`decidesRows`: a co-approver, a quorum's approver, a
 * reassigned approver), or the whole run when the agent shows its
 * approvers that (`approversSee: 'run'`); null when they may see nothing
 * of it.
 *
 * @example
 * runSight({ readsRun: false, decidesRows: true }) // 'rows'
 * runSight({ readsRun: false, decidesRows: true }, 'run') // 'run'
 */
export function runSight(
  person: { readsRun: boolean; decidesRows: boolean },
  approversSee: RunSight = 'rows'
): RunSight | null {
  if (person.readsRun) return 'run'
  if (!person.decidesRows) return null
  return approversSee
}

/**
 * The people a row's quorum names as its deciders (`quorumOf(row)`), beside
 * whoever the app's `authorize` lets settle it: the approvers of every
 * stage (a ladder's reassign adds to them). Whether a vote counts is the
 * settle's to say; they may all see the row, and are told of it live.
 *
 * @example
 * namedApprovers({ stages: [{ approvers: ['f1', 'f2'], quorum: 2 }], … }) // ['f1', 'f2']
 */
export function namedApprovers(spec: QuorumSpec | null): string[] {
  return spec ? [...new Set(spec.stages.flatMap((stage) => stage.approvers))] : []
}
