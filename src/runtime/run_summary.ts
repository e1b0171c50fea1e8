/*
 * A run as the pages and the console name it (its summary): one shape for
 * the inbox's cards (src/http/cards.ts), the run page and the operator's
 * console, which the terminal prints too. Pure.
 */

import type { AgentRun } from '../persistence/models/agent_run.ts'

export type RunSummary = {
  id: string
  agent: string
  status: AgentRun['status']
  ownerId: string | null
  createdAt: string | null
  finishedAt: string | null
  /** A failed run's code (docs/design.md §10.2) */
  errorCode: string | null
}

/**
 * A run as the inbox names it. Given whether it still has a pending row, a
 * `waiting` run with none is shown `running`: its last row was settled and
 * the executor has it (the driver has not taken it yet, or it is a queue
 * hop away), as the live `run:status` message announced; nothing waits for
 * a person any more.
 */
export function runSummary(run: AgentRun, pending?: { hasPending: boolean }): RunSummary {
  return {
    id: run.id,
    agent: run.agent,
    status: run.status === 'waiting' && pending?.hasPending === false ? 'running' : run.status,
    ownerId: run.ownerId,
    createdAt: run.createdAt?.toISO() ?? null,
    finishedAt: run.finishedAt?.toISO() ?? null,
    errorCode: run.errorCode ?? null,
  }
}
