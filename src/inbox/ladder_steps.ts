/*
 * Running the steps of escalation ladders (docs/design.md §7.7), as the
 * expiry sweep runs expiries (./expiry.ts): a batch of rows whose next step
 * is due is one transaction that locks them (`FOR UPDATE SKIP LOCKED` on
 * PostgreSQL and MySQL, the write lock on SQLite), runs each row's step
 * with a conditional update on `ladder_step` and the row still pending,
 * and writes the step's audit entry and its notices in the same
 * transaction. So a step runs exactly once however many sweepers run, a
 * reply that won first leaves the row settled and no later step fires,
 * and a sweep killed mid-way leaves steps done or not, never half.
 */

import type { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DatabaseQueryBuilderContract } from '@adonisjs/lucid/types/querybuilder'
import { Approver } from '../persistence/models/approver.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { anyRow, batchTransaction, hasRowLocks } from '../persistence/batch_transaction.ts'
import { affectedRows, preparedColumns, readRows } from '../persistence/prepared_columns.ts'
import { nextDue, ranStep, reassignment, settlers, type LadderEntry } from '../governance/ladder.ts'
import { appendEvents } from './audit_log.ts'
import { appendNotices, type Notice } from './notices.ts'
import { approverRecords, quorumOf, votesOf } from './votes.ts'
import { waitsForAnswers } from './wait.ts'
import debug from '../debug.ts'
import { ladderSpan } from '../telemetry/inbox_spans.ts'

export type LadderOptions = {
  now: DateTime
  /** People of a role named `@role` in a reassign step (`approvals.resolveRole`) */
  resolveRole?: (role: string) => string[] | Promise<string[]>
  /** Write the steps' notices to the outbox (notifications are configured) */
  notify?: boolean
  batchSize?: number
}

/** A step this call ran, once committed */
export type LadderRun = { rowId: string; step: number; entry: LadderEntry; notices: Notice[] }

/**
 * Runs every ladder step due at `now`, a batch at a time; a row whose
 * steps are all due runs them one after another, in order. Returns the
 * steps this call ran.
 */
export async function runLadders(options: LadderOptions): Promise<LadderRun[]> {
  const size = options.batchSize ?? 200
  const ran: LadderRun[] = []
  // Most sweeps find no step due: one read of the ladder index then, no batch transaction
  if (!(await anyRow(ToolCall, (query) => stepsDue(query, options.now)))) return ran
  for (;;) {
    const { steps, claimed } = await batchTransaction(ToolCall, (trx) => batch(trx, size, options))
    ran.push(...steps)
    if (claimed === 0) break
  }
  if (ran.length > 0) debug('ran %d ladder steps', ran.length)
  return ran
}

/** Pending rows whose next ladder step is due at `now` */
function stepsDue(query: DatabaseQueryBuilderContract, now: DateTime) {
  const due = preparedColumns(new ToolCall(), { ladderDueAt: now }).ladder_due_at
  return query
    .where('status', 'pending')
    .whereNotNull('ladder_due_at')
    .where('ladder_due_at', '<=', due)
}

async function batch(trx: TransactionClientContract, size: number, options: LadderOptions) {
  const query = stepsDue(trx.from(ToolCall.table), options.now)
    .select('*')
    .orderBy('ladder_due_at')
    .limit(size)
  if (hasRowLocks(trx)) query.forUpdate().skipLocked()
  const rows = readRows(ToolCall, await query)
  const steps: LadderRun[] = []
  for (const row of rows) {
    const step = await ladderSpan(row, row.ladderStep, () => runStep(trx, row, options))
    if (step) steps.push(step)
  }
  return { steps, claimed: rows.length }
}

/**
 * Runs a locked row's next step: a reminder tells who may settle it; a
 * reassign changes who may (../governance/ladder.ts `reassignment`).
 */
async function runStep(
  trx: TransactionClientContract,
  row: ToolCall,
  options: LadderOptions
): Promise<LadderRun | null> {
  const index = row.ladderStep
  const entry = row.ladder?.[index]
  const now = options.now
  const spec = quorumOf(row)
  const votes = spec ? await votesOf(trx, row.id) : []
  const changes: Partial<ToolCall> = { ladderStep: index + 1, updatedAt: now }
  let notices: Notice[] = []
  let data: Record<string, unknown> = { step: index }
  if (!entry) {
    // A ladder read back without the step its index names: nothing left to run
    changes.ladderDueAt = null
  } else if (entry.do === 'remind') {
    notices = settlers(row.ownerId, spec, votes).map((personId) => ({
      personId,
      reason: 'reminded',
    }))
    changes.ladder = ranStep(row.ladder!, index, now)
    data = { ...data, do: 'remind', to: notices.map((notice) => notice.personId) }
  } else {
    const people = await resolvePeople(entry.to ?? [], options.resolveRole)
    const change = await reassign(trx, row, spec, votes, people)
    changes.ownerId = change.ownerId
    changes.request = change.request
    changes.ladder = ranStep(row.ladder!, index, now, {
      from: change.from,
      assigned: change.assigned,
    })
    notices = change.notices
    data = { ...data, do: 'reassign', to: entry.to, from: change.from, assigned: change.assigned }
  }
  if (entry) changes.ladderDueAt = nextDue(changes.ladder ?? row.ladder, index + 1)
  const written = await trx
    .from(ToolCall.table)
    .where('id', row.id)
    .where('status', 'pending')
    .where('ladder_step', index)
    .update(preparedColumns(row, changes))
  // The row is locked and pending: a miss is a bug, never a step run twice
  if (affectedRows(written) !== 1) throw new Error(`ladder: row ${row.id} changed under its lock`)
  if (!entry) return null
  await appendEvents(
    [
      {
        type: entry.do === 'remind' ? 'reminded' : 'reassigned',
        runId: row.runId,
        rowId: row.id,
        channel: 'ladder',
        data,
      },
    ],
    trx
  )
  if (options.notify) await appendNotices(trx, row.id, notices, now)
  return { rowId: row.id, step: index, entry, notices }
}

/**
 * Reassigns a locked pending row to `people` (../governance/ladder.ts
 * `reassignment`): an approval gains them as approvers who vote. Returns
 * the row's new owner and request, and the notices of who gained and who
 * lost it; the caller writes the row. The ladder's reassign step and the
 * console's Reassign (./reassign.ts) both come here.
 */
export async function reassign(
  trx: TransactionClientContract,
  row: ToolCall,
  spec: ReturnType<typeof quorumOf>,
  votes: Awaited<ReturnType<typeof votesOf>>,
  people: string[]
) {
  const change = reassignment(row, spec, votes, people)
  // An approval of any kind (an action, a read that needs one) gains approvers who vote
  if (change.assigned.length > 0 && !waitsForAnswers(row)) {
    const stage = change.stage ?? 0
    const records = change.assigned.map((personId) => ({ personId, stage }))
    await trx.insertQuery().table(Approver.table).multiInsert(approverRecords(row.id, records))
  }
  const notices: Notice[] = [
    ...change.assigned.map((personId) => ({ personId, reason: 'reassigned' as const })),
    ...change.from
      .filter((person) => !change.assigned.includes(person))
      .map((personId) => ({ personId, reason: 'released' as const })),
  ]
  return { ...change, notices }
}

/** People and `@role`s as people, each once (a role with no `resolveRole` throws) */
export async function resolvePeople(
  names: string[],
  resolveRole?: LadderOptions['resolveRole']
): Promise<string[]> {
  const people: string[] = []
  for (const name of names) {
    if (!name.startsWith('@')) people.push(name)
    else if (resolveRole) people.push(...(await resolveRole(name.slice(1))))
    else throw new Error(`ladder: "${name}" names a role, and approvals.resolveRole is not set`)
  }
  return [...new Set(people)]
}
