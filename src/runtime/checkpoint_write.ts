/*
 * How a checkpoint reaches the database: the lease's fence (an update of
 * the run row that matches only while this driver holds the lease), the
 * journal entries and the tool-call rows of one step, all or nothing: a
 * guarded write (../persistence/guarded_write.ts), one named statement on
 * PostgreSQL, one transaction of prepared statements on SQLite and MySQL.
 *
 * The unique keys on (run, sequence) and (run, key) stay the guard against
 * a second writer on every database: a clash fails the whole checkpoint.
 */

import { AgentRun } from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { guardedWrite, type Condition } from '../persistence/guarded_write.ts'

export type CheckpointWrite = {
  runId: string
  /** The lease owner the run row must name */
  owner: string
  /** Also require the run to be `running` (the fence); false for the audit of a run that ended */
  running: boolean
  /** Prepared columns the fence sets on the run row; they must change it (MySQL counts changed rows) */
  run: Record<string, unknown>
  /** Prepared columns of the journal entries */
  journal: Record<string, unknown>[]
  /** Prepared columns of the tool-call rows */
  calls: Record<string, unknown>[]
  /** Called before the write can commit (crash tests) */
  beforeCommit?: () => void | Promise<void>
}

/**
 * Writes a checkpoint as the module comment says. False, having written
 * nothing, when the fence did not match.
 */
export function writeCheckpoint(write: CheckpointWrite): Promise<boolean> {
  const fence: Condition[] = [
    ['id = ?', write.runId],
    ['lease_owner = ?', write.owner],
  ]
  if (write.running) fence.push(["status = 'running'"])
  return guardedWrite({
    model: AgentRun,
    set: write.run,
    where: fence,
    inserts: [
      [JournalRow.table, write.journal],
      [ToolCall.table, write.calls],
    ],
    beforeCommit: write.beforeCommit,
  })
}
