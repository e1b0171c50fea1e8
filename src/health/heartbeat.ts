/*
 * The heartbeat of the periodic sweep: each sweep writes when it ran (one
 * row per pass, upserted), so the sweeper's health check tells a sweep
 * that stopped from one that found nothing to do. Best
 * effort: a pass never fails for its heartbeat (an app that has not run
 * the migration yet still sweeps, and its check says what is missing).
 */

import { DateTime } from 'luxon'
import { AgentHeartbeat } from '../persistence/models/agent_heartbeat.ts'
import { preparedColumns } from '../persistence/prepared_columns.ts'
import debug from '../debug.ts'

/** The passes that beat: the sweep alone for now (recovery shows in the stranded runs) */
export type Pass = 'sweep'

/**
 * Notes that `pass` ran at `at` (now), in `owner`. Never throws.
 */
export async function beat(pass: Pass, owner: string, at = DateTime.now()): Promise<void> {
  const client = AgentHeartbeat.$adapter.modelConstructorClient(AgentHeartbeat)
  const columns = preparedColumns(new AgentHeartbeat(), { name: pass, owner, beatAt: at })
  try {
    await client
      .knexQuery()
      .table(AgentHeartbeat.table)
      .insert(columns)
      .onConflict('name')
      .merge(['owner', 'beat_at'])
  } catch (error) {
    debug('heartbeat of %s failed %O', pass, error)
  }
}

/**
 * When `pass` last ran, and where; null when it never did. Throws when the
 * table is missing (the check reports it).
 */
export function lastBeat(pass: Pass): Promise<AgentHeartbeat | null> {
  return AgentHeartbeat.find(pass)
}
