/*
 * Transactions that report a failed COMMIT. Lucid's `transaction(callback)`
 * and `trx.commit()` resolve even when the COMMIT itself fails: knex 3 sends
 * that error only to the transaction's `executionPromise`, which Lucid does
 * not await. A connection lost while committing (PostgreSQL, MySQL) thus
 * reads as a success that never happened, and a driver would go on from a
 * checkpoint that is not in the database (docs/design.md §9.4). Every
 * transaction of the package commits through `commit()` here, so a lost
 * commit is an error like any other lost connection: the drive is retried
 * and reads back what the database really holds.
 */

import type { IsolationLevels, TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { LucidModel } from '@adonisjs/lucid/types/model'

/**
 * Commits `trx` and throws when the database did not confirm the COMMIT.
 *
 * @example
 * const trx = await db.transaction()
 * await trx.insertQuery().table('agent_runs').insert(row)
 * await commit(trx) // throws when the connection died on COMMIT
 */
export async function commit(trx: TransactionClientContract): Promise<void> {
  await trx.commit()
  await trx.knexClient.executionPromise
}

/**
 * Runs `work` in a transaction on `model`'s connection: committed when it
 * returns (a lost COMMIT throws), rolled back when it throws.
 *
 * @example
 * await transaction(AgentRun, (trx) => trx.from('agent_runs').where('id', id).update(changes))
 */
export async function transaction<T>(
  model: LucidModel,
  work: (trx: TransactionClientContract) => Promise<T>,
  options: { isolationLevel?: IsolationLevels } = {}
): Promise<T> {
  // The options as the second argument: Lucid's one-argument form drops them (knex then
  // begins at the server's default level, REPEATABLE READ on MySQL, with its gap locks)
  const client = model.$adapter.modelConstructorClient(model)
  const trx = (await client.transaction(
    undefined as never,
    options
  )) as unknown as TransactionClientContract
  let result: T
  try {
    result = await work(trx)
  } catch (error) {
    if (!trx.isCompleted) await trx.rollback()
    throw error
  }
  await commit(trx)
  return result
}
