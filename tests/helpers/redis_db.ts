/*
 * The Redis database of a test run. Two runs on one machine (CI beside a
 * worktree's run, say) sharing a database take each other's queue jobs
 * and locks, so a run claims a free one of 1–15 (a key set only where it
 * is absent, kept alive while the run lasts, dropped at its end) unless
 * REDIS_DB names one. Transmit's Redis transport publishes on a channel
 * every database shares, so the run's channel is its own too.
 */

import { Redis } from 'ioredis'

const CLAIM = 'adonis-agent-inbox:tests:claimed-by'
const TTL_SECONDS = 60

/**
 * Sets REDIS_DB and TEST_TRANSMIT_CHANNEL for this process and the
 * processes it starts; returns how to give the database back. Without
 * Redis it leaves both to their defaults (the tests that need Redis say
 * so when they fail to connect).
 */
export async function claimRedisDb(): Promise<() => Promise<void>> {
  process.env.TEST_TRANSMIT_CHANNEL ??= `transmit::tests:${process.pid}`
  if (process.env.REDIS_DB) return async () => {}
  const owner = `${process.pid}:${process.cwd()}`
  for (let db = 1; db <= 15; db++) {
    const redis = new Redis({
      host: '127.0.0.1',
      port: 6379,
      db,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    try {
      await redis.connect()
    } catch {
      redis.disconnect()
      return async () => {}
    }
    if ((await redis.set(CLAIM, owner, 'EX', TTL_SECONDS, 'NX')) === 'OK') {
      process.env.REDIS_DB = String(db)
      const keepAlive = setInterval(
        () => void redis.expire(CLAIM, TTL_SECONDS).catch(() => {}),
        (TTL_SECONDS / 3) * 1000
      )
      keepAlive.unref()
      return async () => {
        clearInterval(keepAlive)
        if ((await redis.get(CLAIM)) === owner) await redis.del(CLAIM)
        redis.disconnect()
      }
    }
    redis.disconnect()
  }
  throw new Error('Every Redis database 1–15 is claimed by another test run: set REDIS_DB')
}

/**
 * Empties the run's database, as a crash of the queue's backend would,
 * keeping the run's claim on it.
 */
export async function flushRunDb(redis: Redis) {
  const owner = await redis.get(CLAIM)
  const flush = redis.multi().flushdb()
  if (owner) flush.set(CLAIM, owner, 'EX', TTL_SECONDS)
  await flush.exec()
}
