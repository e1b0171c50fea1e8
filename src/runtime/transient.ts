/*
 * Which database errors are worth retrying: the connection went away or
 * could not be had, the database was busy or locked, or a transaction lost
 * a deadlock or a serialization race. A drive that fails on one of these
 * is retried with backoff (`retryTransient`, for drives and for the queue's
 * dispatches); anything else is a bug or a misconfiguration and is logged
 * instead. The codes are the drivers' own:
 * node's socket errors, PostgreSQL's SQLSTATEs, MySQL's names, SQLite's.
 */

const TRANSIENT_CODES = new Set([
  // sockets
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // PostgreSQL: serialization failure, deadlock, shutdown, too many connections
  '40001',
  '40P01',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // MySQL / MariaDB
  'PROTOCOL_CONNECTION_LOST',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  // SQLite
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_LOCKED',
])

const TRANSIENT_MESSAGES = [
  /Connection terminated/i,
  /Knex: Timeout acquiring a connection/i,
  /connection is closed|Can't add new command when connection is in closed state/i,
  /server closed the connection unexpectedly/i,
]

/**
 * Whether an error is a passing database condition, worth a retry.
 *
 * @example
 * isTransient(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })) // true
 */
export function isTransient(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (TRANSIENT_CODES.has(code) || code.startsWith('08'))) return true
  return typeof message === 'string' && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))
}

export type RetryOptions = {
  /** Tries in all; default 6 */
  attempts?: number
  /** The first wait between tries (ms), doubled each time up to 5 s; default 100 */
  backoff?: number
  /** Told of each failed try that will be tried again */
  onRetry?(error: unknown, attempt: number): void
}

/**
 * Runs `task`, trying again with a growing wait while it fails on a
 * passing database error. Rejects with the last error once the tries are
 * spent, or at once with any other error.
 *
 * @example
 * await retryTransient(() => dispatch(runId), { attempts: 4 })
 */
export async function retryTransient<T>(
  task: (attempt: number) => Promise<T>,
  options: RetryOptions = {}
): Promise<T> {
  const attempts = options.attempts ?? 6
  const backoff = options.backoff ?? 100
  for (let attempt = 1; ; attempt++) {
    try {
      return await task(attempt)
    } catch (error) {
      if (!isTransient(error) || attempt >= attempts) throw error
      options.onRetry?.(error, attempt)
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(backoff * 2 ** (attempt - 1), 5000))
      )
    }
  }
}

/** How much of a drive's error the run row keeps */
const ERROR_TEXT_LIMIT = 1000

/**
 * A drive's error as the run row keeps it (`last_error`): the driver's code
 * where the message does not already say it, then the message, clamped.
 *
 * @example
 * errorText(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })) // 'read ECONNRESET'
 */
export function errorText(error: unknown): string {
  const { code, message } = (error && typeof error === 'object' ? error : {}) as {
    code?: unknown
    message?: unknown
  }
  const said = typeof message === 'string' && message !== '' ? message : String(error)
  const text = typeof code === 'string' && !said.includes(code) ? `${code}: ${said}` : said
  return text.length > ERROR_TEXT_LIMIT ? `${text.slice(0, ERROR_TEXT_LIMIT - 1)}…` : text
}
