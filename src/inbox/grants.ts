/*
 * Remembered grants in the database (`agent_grants`, docs/design.md §11.2):
 * written with the approval that gave them (in the settle's transaction,
 * ./settlement_write.ts), found when a call would otherwise wait for an
 * approval, listed and revoked from the inbox page. What a grant covers is
 * decided by ../governance/grant_rules.ts.
 */

import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import { E_NOT_FOUND } from '../errors.ts'
import { covers, durationMs, predicateOf, type GrantChoice } from '../governance/grant_rules.ts'
import { Grant } from '../persistence/models/grant.ts'
import { affectedRows, preparedColumns, readRows } from '../persistence/prepared_columns.ts'
import { transaction } from '../persistence/transaction.ts'
import { canonicalJson } from '../questions/memory.ts'
import { isRowId, type ToolCall } from '../persistence/models/tool_call.ts'
import { appendEvents, type Actor } from './audit_log.ts'

/**
 * A new grant, built in memory for the settle that approves `row` to
 * write: `person`'s, of the `choice` the card offered.
 */
export function buildGrant(
  row: Pick<ToolCall, 'id' | 'runId' | 'toolName' | 'request'>,
  choice: GrantChoice,
  person: string,
  now: DateTime
): Grant {
  const grant = new Grant()
  grant.merge({
    id: randomUUID(),
    personId: person,
    scope: choice.scope,
    toolName: row.toolName,
    runId: choice.scope === 'run' ? row.runId : null,
    predicate: predicateOf(choice, row.request?.args),
    rowId: row.id,
    createdAt: now,
    expiresAt: choice.ttl === undefined ? null : now.plus({ milliseconds: durationMs(choice.ttl) }),
    revokedAt: null,
    revokedBy: null,
  })
  return grant
}

/** Grants neither revoked nor expired at `now` */
function live(query: ReturnType<typeof Grant.query>, now: DateTime) {
  const at = preparedColumns(new Grant(), { expiresAt: now }).expires_at
  return query
    .whereNull('revoked_at')
    .where((unexpired) => unexpired.whereNull('expires_at').orWhere('expires_at', '>', at))
}

/**
 * A live grant that covers a call of `toolName` in run `runId` (null: a
 * call outside any run) owned by `ownerId`, with `args`, or null. One
 * indexed query.
 */
export async function findGrant(
  call: { toolName: string; runId: string | null; ownerId: string | null; args: unknown },
  now = DateTime.now()
): Promise<Grant | null> {
  // No run and nobody's: no grant can cover it, and an empty scope would read every grant of the tool
  if (call.runId === null && call.ownerId === null) return null
  const query = live(Grant.query(), now)
    .where('tool_name', call.toolName)
    .where((scope) => {
      if (call.runId !== null) {
        scope.where((run) => run.where('scope', 'run').where('run_id', call.runId!))
      }
      if (call.ownerId !== null) {
        scope.orWhere((mine) =>
          mine.whereIn('scope', ['person', 'args']).where('person_id', call.ownerId!)
        )
      }
    })
    .orderBy('created_at')
  const grants = readRows(Grant, await query.pojo())
  const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b)
  return grants.find((grant) => covers(grant, call, same)) ?? null
}

/**
 * A person's live grants, newest first (the inbox page lists them).
 */
export async function grantsOf(person: string, now = DateTime.now()): Promise<Grant[]> {
  const query = live(Grant.query(), now).where('person_id', person).orderBy('created_at', 'desc')
  return readRows(Grant, await query.limit(200).pojo())
}

/**
 * Revokes a live grant of `person`'s, with a `revoked` entry in the audit
 * log, in one transaction. E_NOT_FOUND when they have no such live grant.
 * Grant ids are UUIDs, like row ids: anything else (a NUL byte, which
 * PostgreSQL refuses in text, or a megabyte) is no grant, never a query.
 */
export async function revokeGrant(id: string, who: Actor & { actor: string }): Promise<Grant> {
  if (!isRowId(id)) throw new E_NOT_FOUND(['No grant with that id: grant ids are UUIDs'])
  const now = DateTime.now()
  return transaction(Grant, async (trx) => {
    const changed = await live(Grant.query({ client: trx }), now)
      .where('id', id)
      .where('person_id', who.actor)
      .update(preparedColumns(new Grant(), { revokedAt: now, revokedBy: who.actor }))
    if (affectedRows(changed) !== 1) throw new E_NOT_FOUND([`No live grant ${id} of yours`])
    const grant = await Grant.query({ client: trx }).where('id', id).firstOrFail()
    await appendEvents(
      [
        {
          ...who,
          type: 'revoked',
          runId: grant.runId,
          rowId: grant.rowId,
          data: { grantId: id, scope: grant.scope, tool: grant.toolName },
        },
      ],
      trx
    )
    return grant
  })
}

/**
 * A grant as the inbox and JSON clients show it.
 */
export function grantJson(grant: Grant) {
  return {
    id: grant.id,
    scope: grant.scope,
    toolName: grant.toolName,
    runId: grant.runId,
    predicate: grant.predicate,
    createdAt: grant.createdAt?.toISO() ?? null,
    expiresAt: grant.expiresAt?.toISO() ?? null,
  }
}
