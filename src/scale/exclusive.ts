/*
 * Work that one process at a time should do across the whole deployment:
 * the expiry sweep and the start-up recovery. With `@adonisjs/lock`
 * registered (an optional peer; any store that all processes share: Redis
 * or the database) it runs under a named lock taken without waiting, so a
 * process that finds it taken skips its turn instead of queueing behind it.
 * Without it the work runs anyway: a sweep's batches lock the rows they
 * settle (`SKIP LOCKED`) and a recovery's jobs are deduplicated by run, so
 * two at once share the work rather than repeat it; the lock only keeps
 * them from contending.
 */

import debug from '../debug.ts'

/** The part of `@adonisjs/lock`'s manager used here */
export type LockManager = {
  createLock(
    name: string,
    ttl?: number
  ): {
    runImmediately<T>(callback: () => Promise<T>): Promise<[true, T] | [false, null]>
  }
}

/** Lock names, one per kind of work */
export const LOCKS = {
  sweep: 'adonis_agent_inbox:sweep',
  recover: 'adonis_agent_inbox:recover',
} as const

/**
 * Runs `work` unless another process holds the lock `name`: `{ ran: true,
 * result }`, or `{ ran: false }` when it was skipped. `ttl` (ms) bounds how
 * long a holder that died keeps others out.
 *
 * @example
 * const outcome = await exclusive(locks, LOCKS.sweep, 120_000, () => agents.sweep())
 * if (!outcome.ran) logger.info('another process is sweeping')
 */
export async function exclusive<T>(
  locks: LockManager | null,
  name: string,
  ttl: number,
  work: () => Promise<T>
): Promise<{ ran: true; result: T } | { ran: false }> {
  if (!locks) return { ran: true, result: await work() }
  const [ran, result] = await locks.createLock(name, ttl).runImmediately(work)
  debug('%s: %s', name, ran ? 'done under the lock' : 'skipped, another process holds it')
  return ran ? { ran: true, result: result as T } : { ran: false }
}

/**
 * `@adonisjs/lock`'s manager when the app registered it, else null.
 */
export async function lockManager(container: {
  hasBinding(binding: string): boolean
  make(binding: string): Promise<unknown>
}): Promise<LockManager | null> {
  if (!container.hasBinding('lock.manager')) return null
  return (await container.make('lock.manager')) as LockManager
}
