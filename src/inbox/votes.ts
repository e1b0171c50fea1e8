/*
 * Casting a vote on a row that needs a quorum (docs/design.md §11.3). A vote
 * is one transaction that first locks the row (`FOR NO KEY UPDATE` on
 * PostgreSQL, `FOR UPDATE` on MySQL, the write lock on SQLite), so votes on
 * one row take turns: each reads every vote cast before it, records its
 * own on the voter's approver record, counts (../governance/quorum.ts) and,
 * when the count decides, settles the row in the same transaction. So of
 * any number of concurrent votes exactly one settles the row, and every
 * vote after it finds the row settled (409) without being recorded. Never
 * "read the count, then update": the count is read under the lock.
 */

import type { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { ModelQueryBuilderContract } from '@adonisjs/lucid/types/model'
import {
  E_ALREADY_VOTED,
  E_NOT_AN_APPROVER,
  E_REQUESTER_EXCLUDED,
  InvalidReplyException,
} from '../errors.ts'
import { tally, voteRefusal, type QuorumSpec, type Tally, type Vote } from '../governance/quorum.ts'
import { viewDigest } from '../governance/view.ts'
import { Approver } from '../persistence/models/approver.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { batchTransaction, hasRowLocks } from '../persistence/batch_transaction.ts'
import {
  affectedRows,
  preparedColumns,
  preparedRows,
  readRows,
} from '../persistence/prepared_columns.ts'
import type { DecisionReply } from '../questions/types.ts'
import { appendEvents, type Actor } from './audit_log.ts'
import { settledTrace } from '../telemetry/trace_context.ts'

/**
 * The quorum a row was opened with, or null for a row any one authorized
 * person settles.
 */
export function quorumOf(row: Pick<ToolCall, 'request'>): QuorumSpec | null {
  return (row.request?.approval as QuorumSpec | undefined) ?? null
}

/**
 * The approver records of a new row that needs `spec`, to insert with it.
 */
export function approverColumns(rowId: string, spec: QuorumSpec): Record<string, unknown>[] {
  return approverRecords(
    rowId,
    spec.stages.flatMap((stage, index) =>
      stage.approvers.map((personId) => ({ personId, stage: index }))
    )
  )
}

/**
 * Approver records of a row, none voted yet: a new row's, or those a
 * ladder's reassign adds (./ladder_steps.ts).
 */
export function approverRecords(
  rowId: string,
  people: { personId: string; stage: number }[]
): Record<string, unknown>[] {
  return preparedRows(
    Approver,
    people.map(({ personId, stage }) => ({ rowId, personId, stage, vote: null }))
  )
}

/**
 * Where a vote left the row: still open (with the count), or the changes
 * that settled it, as `decide` built them.
 */
export type VoteResult =
  | { state: 'lost'; row: ToolCall }
  | { state: 'open'; tally: Tally & { state: 'open' }; votes: Vote[] }
  | { state: 'settled'; tally: Tally; votes: Vote[]; changes: Partial<ToolCall> }

/**
 * Casts `person`'s vote. `decide(tally)` builds the row's settled columns
 * once the count decides (the caller's settle logic: outcome, signature).
 * Throws E_REQUESTER_EXCLUDED, E_NOT_AN_APPROVER or E_ALREADY_VOTED (and
 * writes nothing) for a vote that may not be cast.
 */
export async function castVote(
  row: ToolCall,
  decision: DecisionReply,
  who: Actor & { actor: string },
  now: DateTime,
  decide: (tally: Tally & { state: 'approved' | 'rejected' }) => Partial<ToolCall>
): Promise<VoteResult> {
  if (decision.editedInput !== undefined) {
    throw new InvalidReplyException([
      {
        path: 'editedInput',
        message: 'a call that needs several approvers is approved as shown, not with changed args',
      },
    ])
  }
  return batchTransaction(ToolCall, async (trx) => {
    const [locked] = readRows(ToolCall, await lockRow(trx, row.id))
    if (!locked || locked.status !== 'pending') return { state: 'lost', row: locked ?? row }
    const at = preparedColumns(row, { expiresAt: now }).expires_at
    if (locked.expiresAt && locked.expiresAt <= now) return { state: 'lost', row: locked }
    const spec = quorumOf(locked)!
    const votes = await votesOf(trx, row.id)
    const refusal = voteRefusal(spec, votes, who.actor)
    if (refusal === 'requester-excluded') throw new E_REQUESTER_EXCLUDED([row.id])
    if (refusal) throw new E_NOT_AN_APPROVER([row.id, refusal === 'stage-not-open'])
    // Named by the quorum but holding no approver record (a write that never was): refused, not a 500
    const mine = votes.find((vote) => vote.personId === who.actor)
    if (!mine) throw new E_NOT_AN_APPROVER([row.id, false])
    if (mine.vote !== null) throw new E_ALREADY_VOTED([row.id])

    const vote = decision.approved ? 'approve' : 'reject'
    const cast = await trx
      .from(Approver.table)
      .where('row_id', row.id)
      .where('person_id', who.actor)
      .whereNull('vote')
      .update(
        preparedColumns(new Approver(), { vote, reason: decision.reason ?? null, votedAt: now })
      )
    if (affectedRows(cast) !== 1) throw new E_ALREADY_VOTED([row.id])
    mine.vote = vote
    const counted = tally(spec, votes)
    const digest = viewDigest(locked)
    const voted = {
      ...who,
      type: 'voted' as const,
      runId: row.runId,
      rowId: row.id,
      digest,
      data: { vote, stage: mine.stage, reason: decision.reason ?? null, tally: counted },
    }
    if (counted.state === 'open') {
      await appendEvents([voted], trx)
      return { state: 'open', tally: counted, votes }
    }

    const changes = decide(counted)
    const settled = await trx
      .from(ToolCall.table)
      .where('id', row.id)
      .where('status', 'pending')
      .where((unexpired) => unexpired.whereNull('expires_at').orWhere('expires_at', '>', at))
      .update(preparedColumns(row, { ...changes, ...(await settledTrace()), updatedAt: now }))
    // The row is locked and was pending: nothing else can have settled it
    if (affectedRows(settled) !== 1) throw new Error(`Row ${row.id} changed under its lock`)
    await appendEvents(
      [
        voted,
        {
          ...who,
          type: 'settled',
          runId: row.runId,
          rowId: row.id,
          digest,
          data: { status: changes.status, quorum: counted },
        },
      ],
      trx
    )
    return { state: 'settled', tally: counted, votes, changes }
  })
}

/**
 * The approver records of a row, as votes.
 */
export async function votesOf(
  client: Pick<TransactionClientContract, 'from'>,
  rowId: string
): Promise<Vote[]> {
  const rows = await client
    .from(Approver.table)
    .select('person_id', 'stage', 'vote')
    .where('row_id', rowId)
    .orderBy('stage')
    .orderBy('person_id')
  return rows.map((item: any) => ({
    personId: item.person_id,
    stage: Number(item.stage),
    vote: item.vote ?? null,
  }))
}

/**
 * The approver records of several rows, by row id (the inbox's cards).
 */
/**
 * The votes on those of `rows` that need a quorum, by row id: what their
 * cards count, pending or settled.
 */
export function quorumVotes(rows: ToolCall[]): Promise<Map<string, Vote[]>> {
  return votesOfRows(rows.filter((row) => quorumOf(row)).map((row) => row.id))
}

export async function votesOfRows(rowIds: string[]): Promise<Map<string, Vote[]>> {
  const byRow = new Map<string, Vote[]>()
  if (rowIds.length === 0) return byRow
  const rows = await Approver.query()
    .whereIn('row_id', rowIds)
    .orderBy('stage')
    .orderBy('person_id')
    .pojo<any>()
  for (const item of rows) {
    const list = byRow.get(item.row_id) ?? []
    list.push({ personId: item.person_id, stage: Number(item.stage), vote: item.vote ?? null })
    byRow.set(item.row_id, list)
  }
  return byRow
}

/** The row, read with the lock its database takes (SQLite holds the write lock already) */
function lockRow(trx: TransactionClientContract, rowId: string): Promise<Record<string, any>[]> {
  const query = trx.from(ToolCall.table).select('*').where('id', rowId)
  if (trx.dialect.name === 'postgres') query.knexQuery.forNoKeyUpdate()
  else if (hasRowLocks(trx)) query.forUpdate()
  return query
}

/**
 * Narrows a listing to the rows `person` is an approver of, voted or not:
 * the inbox lists them beside the rows its scope lets through, so an
 * approver sees the count move after their own vote.
 */
export function approverOf(person: string) {
  return (query: ModelQueryBuilderContract<typeof ToolCall>) => {
    query.whereIn('id', Approver.query().select('row_id').where('person_id', person))
  }
}
