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

type RunsQuery = ModelQueryBuilderContract<typeof AgentRun>

/** `quietFor` before now, as the lease column stores it */
function cutoffOf(options: StrandedOptions) {
  const at = (options.now ?? DateTime.now()).toMillis() - (options.quietFor ?? 0)
  return preparedColumns(new AgentRun(), { leaseExpiresAt: DateTime.fromMillis(at) })
    .lease_expires_at
}

/** `queued` or `running` with no lease (nothing written for `quietFor`) or a lapsed one */
function leaseLapsed(options: StrandedOptions): RunsQuery {
  const cutoff = cutoffOf(options)
  return AgentRun.query()
    .whereIn('status', ['queued', 'running'])
    .where((lease) => {
      lease.where((none) => {
        none.whereNull('lease_owner')
        if (options.quietFor) none.where('updated_at', '<', cutoff)
      })
      lease.orWhere('lease_expires_at', '<', cutoff)
      if (options.owner) lease.orWhere('lease_owner', options.owner)
    })
}

/** `waiting` with nothing pending, and nothing written for `quietFor` */
function settledWaiting(options: StrandedOptions): RunsQuery {
  const waiting = waitingWithNothingPending(AgentRun.query())
  return options.quietFor ? waiting.where('updated_at', '<', cutoffOf(options)) : waiting
}

/**
 * The stranded runs, as two queries searched through an index each:
 * `queued` or `running` with no lease or a lapsed one (the runs' status
 * and lease), and `waiting` with nothing pending (their status, then the
 * pending-rows probe). Two queries rather than one with an OR: MySQL
 * reads every run for the OR. Recovery takes them now; the health check
 * (src/health/) and the console count and list those left `quietFor`.
 */
export function strandedHalves(options: StrandedOptions = {}): [RunsQuery, RunsQuery] {
  return [leaseLapsed(options), settledWaiting(options)]
}

/**
 * The ids of every stranded run, now. With `owner`, runs still leased to
 * that owner count too: a drive of this process that failed past its
 * retries kept its lease (lease.ts), and this process takes the run back
 * before the lease lapses (a run it is driving now is refused as busy by
 * its driver).
 */
export async function strandedRuns(owner?: string): Promise<AgentRun[]> {
  // With what it was stranded in, and by whom: a lapsed lease of another process is a takeover
  const halves = strandedHalves({ owner }).map((half) => half.select('id', 'status', 'lease_owner'))
  const [leased, waiting] = await Promise.all(halves)
  return [...leased, ...waiting]
}
