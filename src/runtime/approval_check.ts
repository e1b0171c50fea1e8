/*
 * The settle's side of ./changed_rows.ts: an approval of a pending row is
 * checked against the running deploy before it is written, so the settle
 * agrees with the card. A removed tool refuses it (E_TOOL_REMOVED: reject
 * instead); a policy in force that denies the call refuses it and rejects
 * the row by the policy, with its reason, which the agent reads
 * (E_DENIED_BY_POLICY: this is how a freeze stops waiting approvals); a
 * policy that throws refuses it (E_POLICY_FAILED); args the tool's current
 * input schema refuses are approved only with an edit that fits it
 * (E_ARGS_OUTDATED otherwise). A rejection is never checked: it always
 * reaches the agent. A run whose agent is gone is the settler's `checkRun`
 * (./unknown_agent.ts).
 */

import {
  ArgsOutdatedException,
  DeniedByPolicyException,
  E_POLICY_FAILED,
  E_TOOL_REMOVED,
} from '../errors.ts'
import { rowAgent } from '../inbox/rows.ts'
import type { RowSettlerOptions } from '../inbox/row_settler.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { ApprovalsConfig } from '../governance/policy.ts'
import type { AgentDefinition } from './define_agent.ts'
import { checkedUnder, currentArgsIssues } from './calls/current_tool.ts'
import { ChangedRows, toolStateOf } from './changed_rows.ts'

/**
 * The settler's `checkApproval`. `rejectByPolicy` settles the row as
 * rejected via `policy` with the reason (the inbox's own settle, so its
 * run resumes and the agent is told).
 */
export function approvalCheck(
  definitions: Map<string, AgentDefinition>,
  approvals: ApprovalsConfig,
  rejectByPolicy: (row: ToolCall, reason: string) => Promise<unknown>
): NonNullable<RowSettlerOptions['checkApproval']> {
  return async (row, reply) => {
    const runId = row.runId
    const agent = await rowAgent(row)
    if (!runId || agent === null) return
    const tool = toolStateOf(definitions, agent, row.toolName)
    if (tool.state === 'tool-removed') throw new E_TOOL_REMOVED([row.id])
    if (tool.state !== 'defined') return
    const { definition } = tool
    let args = row.request?.args
    if (reply.editedInput !== undefined) {
      const edited = await definition.validate(reply.editedInput)
      // An edit that does not hold is refused, field by field, by the settler's own check
      if (!edited.ok) return
      args = edited.value
    }
    const run = { id: runId, agent, ownerId: row.ownerId }
    const verdict = await new ChangedRows(definitions, approvals).verdict(
      row,
      run,
      definition,
      args
    )
    if (verdict?.decision === 'failed') throw new E_POLICY_FAILED([row.id])
    if (verdict?.decision === 'deny') {
      await rejectByPolicy(row, verdict.reason)
      throw new DeniedByPolicyException(row.id, verdict.reason)
    }
    if (reply.editedInput !== undefined) return
    const issues = await currentArgsIssues(definition, checkedUnder(row), args)
    if (issues.length > 0) {
      throw new ArgsOutdatedException(
        issues.map((issue) => ({
          field: `editedInput.${issue.path}`,
          message: issue.message,
          rule: issue.rule ?? 'outdated',
          ...(issue.meta === undefined ? {} : { meta: issue.meta }),
        }))
      )
    }
  }
}
