/*
 * Runs of an agent the running deploy does not define: renamed or removed
 * since the run started (docs/guides/deploying_while_runs_wait.md). Such a
 * run cannot go on, so a reply to one of its rows is refused with
 * E_UNKNOWN_AGENT, and the run is ended (failed, E_UNKNOWN_AGENT) with its
 * pending rows closed, rather than left settleable forever. The driver does
 * the same when it takes such a run (run_driver.ts).
 */

import { E_UNKNOWN_AGENT, RUN_FAILURES } from '../errors.ts'
import { rowAgent } from '../inbox/rows.ts'
import type { RowSettlerOptions } from '../inbox/row_settler.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import type { EventSink } from '../events.ts'
import type { AgentDefinition } from './define_agent.ts'
import type { ExecutorLogger } from './executor.ts'
import { RunState } from './run_state.ts'

/**
 * The settler's `checkRun`: refuses a reply to a row of a run whose agent
 * is not among `definitions`, once its run is ended (unless another
 * process holds it: a deploy still defining the agent). `owner` is the
 * driver's lease owner. The agent comes
 * with the row when `findRow` read it (every reply route); else one read.
 */
export function unknownAgentCheck(
  definitions: Map<string, AgentDefinition>,
  owner: () => string,
  options: { events?: EventSink; logger?: ExecutorLogger }
): NonNullable<RowSettlerOptions['checkRun']> {
  const { events, logger } = options
  return async (row) => {
    const runId = row.runId
    if (!runId) return
    const agent = await rowAgent(row)
    if (agent === null || definitions.has(agent)) return
    const run = await AgentRun.find(runId)
    if (run) await new RunState(owner(), events).failUnknownAgent(run)
    logger?.warn(
      { runId, rowId: row.id, agent, code: RUN_FAILURES.unknownAgent },
      'adonis-agent-inbox: a reply was refused and its run ended: its agent is not defined in this version of the app'
    )
    throw new E_UNKNOWN_AGENT([row.id])
  }
}
