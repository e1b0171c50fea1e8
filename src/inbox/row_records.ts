/*
 * What is written with a new row, in its transaction (./rows.ts `also`):
 * its audit entries (`created`, `policy-decided`) and, for an approval that
 * needs a quorum, its approvers' records. A row never stands without the
 * record of how it came to be (docs/design.md §11.5).
 */

import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { QuorumSpec } from '../governance/quorum.ts'
import { viewDigest } from '../governance/view.ts'
import { Approver } from '../persistence/models/approver.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { DecisionOutcome } from '../questions/types.ts'
import { appendEvents, type AuditEntry } from './audit_log.ts'
import { approverColumns } from './votes.ts'
import { appendNotices } from './notices.ts'
import { settlers } from '../governance/ladder.ts'

/**
 * A call a policy or a grant decided without a person (docs/design.md
 * §11.1): recorded already settled — `auto` to run, `rejected` for a
 * denial — with `answered_via: 'policy' | 'grant'`, and a
 * `policy-decided` audit entry telling the rule or the grant.
 */
export type DecidedCall = {
  status: 'auto' | 'rejected'
  answeredVia: 'policy' | 'grant'
  outcome: DecisionOutcome
  /** The rule, the grant's id, the reason: what the audit entry tells */
  data: Record<string, unknown>
}

/**
 * Who opened a row from outside the runtime (an outside agent's MCP
 * client, src/mcp_server/): its `created` entry names them.
 */
export type OpenedBy = { actor: string; channel: string; data?: Record<string, unknown> }

/**
 * The writes of a row opened pending: its approvers when it needs a
 * quorum, its notices when notifications are on, then `policy-decided`
 * (when a policy asked for it) and `created`.
 */
export function openedRecords(
  quorum: QuorumSpec | undefined,
  opened: { decidedBy?: Record<string, unknown>; openedBy?: OpenedBy } = {},
  notify = false
) {
  const { decidedBy, openedBy } = opened
  return async (trx: TransactionClientContract, row: ToolCall) => {
    if (quorum) {
      await trx.insertQuery().table(Approver.table).multiInsert(approverColumns(row.id, quorum))
    }
    if (notify) {
      // Who may settle it now (docs/design.md §7.7): no vote is cast yet
      const people = settlers(row.ownerId, quorum ?? null, [])
      const notices = people.map((personId) => ({ personId, reason: 'created' as const }))
      await appendNotices(trx, row.id, notices, row.createdAt)
    }
    const ids = { runId: row.runId, rowId: row.id, digest: viewDigest(row) }
    const entries: AuditEntry[] = [
      openedBy
        ? { ...ids, type: 'created', ...openedBy }
        : { ...ids, type: 'created', channel: 'runtime' },
    ]
    if (decidedBy) {
      entries.unshift({ ...ids, type: 'policy-decided', channel: 'policy', data: decidedBy })
    }
    await appendEvents(entries, trx)
  }
}

/**
 * The write of a row a policy or a grant decided: its `policy-decided`
 * entry.
 */
export function decidedRecords(decided: DecidedCall) {
  return (trx: TransactionClientContract, row: ToolCall) =>
    appendEvents(
      [
        {
          type: 'policy-decided',
          runId: row.runId,
          rowId: row.id,
          channel: decided.answeredVia,
          digest: viewDigest(row),
          data: decided.data,
        },
      ],
      trx
    )
}
