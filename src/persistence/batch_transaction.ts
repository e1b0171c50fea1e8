/*
 * The transaction a set-based batch runs in (the expiry sweep, pruning):
 * it reads the rows it will write with a lock, so concurrent batches and
 * single-row writers never both change one row, on each database its own
 * way:
 *
 * - PostgreSQL and MySQL lock rows: the batch reads with `FOR UPDATE`
 *   (`SKIP LOCKED` to share work: each batch skips what another holds).
 *   MySQL runs it in READ COMMITTED, so its locking reads take no gap
 *   locks that another batch's index writes could deadlock on.
 * - SQLite has no row locks: the batch's first statement is a write that
 *   changes nothing, which takes the database's write lock (a deferred
 *   transaction that read first could not upgrade once another process
 *   wrote), so every read after it sees the latest rows and nothing else
 *   writes until the batch commits.
 */

import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DatabaseQueryBuilderContract } from '@adonisjs/lucid/types/querybuilder'
import type { LucidModel } from '@adonisjs/lucid/types/model'
import debug from '../debug.ts'
import { transaction } from './transaction.ts'

/** Lock errors worth running a batch again for: a batch reads before it writes */
const RETRYABLE = new Set(['40P01', '40001', 'ER_LOCK_DEADLOCK', 'SQLITE_BUSY'])
const ATTEMPTS = 3

/**
 * Whether the database locks rows (`FOR UPDATE`); SQLite does not.
 */
export function hasRowLocks(client: { dialect: { name: string } }): boolean {
  return client.dialect.name === 'postgres' || client.dialect.name === 'mysql'
}

/**
 * Whether any row of `model` matches `filter`, read by one indexed query,
 * outside a transaction and without a lock. A sweep asks first, so an idle
 * one opens no batch transaction (which, on SQLite, takes the database's
 * write lock). A row that becomes due just after is the next sweep's.
 */
export async function anyRow(
  model: LucidModel,
  filter: (query: DatabaseQueryBuilderContract) => DatabaseQueryBuilderContract
): Promise<boolean> {
  const client = model.$adapter.modelConstructorClient(model)
  const found = await filter(client.from(model.table)).select('id').limit(1)
  return found.length > 0
}

/**
 * Runs `work` in a transaction on `model`'s connection, set up as the
 * module comment says, and again (a few times) when the database broke a
 * lock cycle or gave up a busy wait: `work` must read what it writes.
 *
 * @example
 * await batchTransaction(ToolCall, async (trx) => {
 *   const rows = await ToolCall.query({ client: trx }).where('status', 'pending').forUpdate().skipLocked().limit(500)
 * })
 */
export async function batchTransaction<T>(
  model: LucidModel,
  work: (trx: TransactionClientContract) => Promise<T>
): Promise<T> {
  const client = model.$adapter.modelConstructorClient(model)
  const options =
    client.dialect.name === 'mysql' ? { isolationLevel: 'read committed' as const } : {}
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(
        model,
        async (trx) => {
          if (!hasRowLocks(trx)) await trx.from(model.table).whereRaw('1 = 0').delete()
          return work(trx)
        },
        options
      )
    } catch (error) {
      const code = (error as { code?: string }).code
      if (attempt >= ATTEMPTS || !code || !RETRYABLE.has(code)) throw error
      debug('batch on %s: %s, trying again (%d)', model.table, code, attempt)
    }
  }
}
