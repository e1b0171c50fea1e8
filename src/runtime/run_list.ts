/*
 * Finished runs, newest first, a page at a time: the run half of the
 * history (settled rows are the other, `inbox.list`). Narrowed like the
 * rows (an owner, an agent, statuses, when they finished, and any scope the
 * caller adds), paged by the same keyset cursor on `(finished_at, id)`. A
 * person's finished runs are one indexed range: `(owner_id, finished_at, id)`.
 */

import type { DateTime } from 'luxon'
import type { ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import { AgentRun, FINISHED_RUN_STATUSES, type RunStatus } from '../persistence/models/agent_run.ts'
import { inRange, keysetPage, type KeysetPage } from '../persistence/keyset.ts'

export type RunQuery = {
  /** Only runs this person owns; leave out for everyone's */
  ownerId?: string
  agent?: string
  /** Among the finished statuses; default all of them */
  statuses?: RunStatus[]
  /** Only runs finished at or after this time */
  finishedFrom?: DateTime
  /** Only runs finished before this time */
  finishedBefore?: DateTime
  /** Narrows the query further, e.g. to the runs a person may see */
  narrow?: (query: ModelQueryBuilderContract<typeof AgentRun>) => void | Promise<void>
  /** Runs per page: default 50, at most 200 */
  limit?: number
  /** The `next` of the previous page */
  cursor?: string | null
}

/**
 * What a listed run carries: no input, result or error text (read the run
 * for those).
 */
const LISTED_COLUMNS = [
  'id',
  'agent',
  'status',
  'owner_id',
  'parent_run_id',
  'error_code',
  'attempt',
  'created_at',
  'finished_at',
]

/**
 * One page of finished runs, newest first.
 *
 * @example
 * const { rows, next } = await listRuns({ ownerId: '1', statuses: ['failed'] })
 */
export async function listRuns(query: RunQuery): Promise<KeysetPage<AgentRun>> {
  const finished = FINISHED_RUN_STATUSES as readonly RunStatus[]
  const statuses = query.statuses?.length
    ? query.statuses.filter((status) => finished.includes(status))
    : [...finished]
  const runs = AgentRun.query()
    .select(LISTED_COLUMNS)
    .whereIn('status', statuses)
    .whereNotNull('finished_at')
  if (query.ownerId !== undefined) runs.where('owner_id', query.ownerId)
  if (query.agent !== undefined) runs.where('agent', query.agent)
  inRange(runs, 'finishedAt', query.finishedFrom, query.finishedBefore)
  if (query.narrow) await query.narrow(runs)
  return keysetPage(runs, {
    attribute: 'finishedAt',
    direction: 'desc',
    cursor: query.cursor,
    limit: query.limit,
  })
}
