/*
 * What the current policies would have decided on past calls
 * (`node ace agents:policy --replay <days>`, docs/design.md §11.1): every
 * tool-call row of an app tool created in the window is given again to its
 * tool's policy and the app's, with its run, and set beside what happened
 * to it. A dry run: nothing is written, no tool runs. A call whose agent or
 * tool is no longer defined is reported as such.
 */

import type { DateTime } from 'luxon'
import { decide, type PolicyDecision } from '../governance/policy.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import type { Agents } from './agents.ts'

/** One past call, what happened to it, and what the policies say now */
export type ReplayLine = {
  rowId: string
  runId: string | null
  tool: string
  createdAt: string | null
  /** What happened: the row's status, and through what it was decided */
  was: { status: string; via: string | null }
  /** The verdict now; `none` when no policy has an opinion (needsApproval decides) */
  now: PolicyDecision | { decision: 'none' } | { decision: 'undefined-tool' }
}

/**
 * Replays the policies over the calls made since `since`, oldest first.
 */
export async function replayPolicies(agents: Agents, since: DateTime): Promise<ReplayLine[]> {
  const rows = await ToolCall.query()
    .whereIn('kind', ['read', 'action'])
    .whereNotNull('run_id')
    .where('created_at', '>=', since.toJSDate())
    // A run's calls in their order: MySQL's timestamps hold whole seconds, so times tie
    .orderBy('created_at')
    .orderBy('run_id')
    .orderBy('sequence')
  const runIds = [...new Set(rows.map((row) => row.runId!))]
  const runs = new Map(
    (runIds.length ? await AgentRun.query().whereIn('id', runIds) : []).map((run) => [run.id, run])
  )
  const lines: ReplayLine[] = []
  for (const row of rows) {
    const run = runs.get(row.runId!)
    const tool = run ? agents.definitions.get(run.agent)?.tools.get(row.toolName) : undefined
    let now: ReplayLine['now'] = { decision: 'undefined-tool' }
    if (run && tool) {
      const verdict = await decide(
        {
          tool: { name: tool.name, kind: tool.kind, irreversible: tool.irreversible },
          input: row.request?.args,
          run: { id: run.id, agent: run.agent, ownerId: run.ownerId },
          owner: run.ownerId,
        },
        [tool.policy, agents.approvals.policy]
      )
      now = verdict ?? { decision: 'none' }
    }
    lines.push({
      rowId: row.id,
      runId: row.runId,
      tool: row.toolName,
      createdAt: row.createdAt?.toISO() ?? null,
      was: { status: row.status, via: row.answeredVia },
      now,
    })
  }
  return lines
}
