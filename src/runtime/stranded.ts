/*
 * Which runs are stranded: nobody drives them and nothing will unless
 * someone looks. `queued` or `running` with no lease or a lapsed one (a
 * process died), or one the asking process itself still holds (its drive
 * failed past its retries), and `waiting` with nothing pending (settled
 * where nothing resumed them). Recovery and the sweep ask here; the lease
 * still decides who drives.
 */

import { DateTime } from 'luxon'
import type { ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { preparedColumns } from '../persistence/prepared_columns.ts'

/**
 * Narrows a runs query to runs `waiting` with no pending row.
 */
export function waitingWithNothingPending<Query extends ModelQueryBuilderContract<typeof AgentRun>>(
  query: Query
): Query {
  return query.where('status', 'waiting').whereNotExists(pendingRowOfTheRun)
}

/**
 * A subquery of a runs query: a pending row of the run it reads.
 */
export function pendingRowOfTheRun(rows: { from(table: string): any }) {
  return rows
    .from('agent_tool_calls')
    .whereColumn('agent_tool_calls.run_id', 'agent_runs.id')
    .where('agent_tool_calls.status', 'pending')
}

export type StrandedOptions = {
  /** Runs still leased to this owner count too (see `strandedRuns`) */
  owner?: string
  /** Only runs stranded this long (ms): a lease lapsed, or nothing written, that long before now */
  quietFor?: number
  now?: DateTime
}

/**
 * Narrows a runs query to the stranded runs: `queued` or `running` with no
 * lease or a lapsed one, and `waiting` with nothing pending. Recovery takes
 * them now; the health check (src/health/) counts those left `quietFor`.
 */
export function whereStranded<Query extends ModelQueryBuilderContract<typeof AgentRun>>(
  query: Query,
  options: StrandedOptions = {}
): Query {
  const { owner, quietFor = 0 } = options
  const at = DateTime.fromMillis((options.now ?? DateTime.now()).toMillis() - quietFor)
  const cutoff = preparedColumns(new AgentRun(), { leaseExpiresAt: at }).lease_expires_at
  const quiet = <Narrowed extends ModelQueryBuilderContract<typeof AgentRun>>(
    narrowed: Narrowed
  ) => (quietFor > 0 ? narrowed.where('updated_at', '<', cutoff) : narrowed)
  return query
    .where((stale) =>
      stale.whereIn('status', ['queued', 'running']).where((lease) => {
        lease
          .where((none) => quiet(none.whereNull('lease_owner')))
          .orWhere('lease_expires_at', '<', cutoff)
        if (owner) lease.orWhere('lease_owner', owner)
      })
    )
    .orWhere((waiting) => quiet(waitingWithNothingPending(waiting)))
}

/**
 * The ids of every stranded run, now. With `owner`, runs still leased to
 * that owner count too: a drive of this process that failed past its
 * retries kept its lease (lease.ts), and this process takes the run back
 * before the lease lapses (a run it is driving now is refused as busy by
 * its driver).
 */
export function strandedRuns(owner?: string): Promise<AgentRun[]> {
  // With what it was stranded in, and by whom: a lapsed lease of another process is a takeover
  return whereStranded(AgentRun.query(), { owner }).select('id', 'status', 'lease_owner')
}
