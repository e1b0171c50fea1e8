/*
 * A TCP proxy that stands between worker processes and PostgreSQL or MySQL
 * and breaks the connection on command, for the fault-injection tests
 * (tests/runtime/faults.spec.ts, lost_commit.spec.ts). node:net only.
 *
 * - `cut()` destroys every open connection, both sides, at once: the client
 *   sees its connection die mid-query, the server rolls back what was open.
 * - `pause()` / `resume()` stop and restart forwarding, both ways and for
 *   new connections too: queries hang, locks stay held, leases lapse.
 * - `down(ms)` cuts everything and stops listening: new connections are
 *   refused (ECONNREFUSED) until it listens again on the same port.
 * - `inspect` sees every chunk a client sends before it is forwarded, and
 *   may drop it and cut that connection (`'cut'`), or forward it and cut
 *   the connection as the server answers (`'cut-reply'`): a lost COMMIT, or
 *   a COMMIT done whose answer never arrives.
 * - Each connection remembers which of the statements its client prepared
 *   write (`Prepared`): PostgreSQL names a statement in its Parse message
 *   and runs it later by that name alone (Bind), MySQL answers a
 *   COM_STMT_PREPARE with an id that COM_STMT_EXECUTE then sends alone, so
 *   a prepared write's later runs carry no SQL for `isWrite` to read.
 */

import { createServer, connect, type Server, type Socket } from 'node:net'

export type ChunkVerdict = 'forward' | 'cut' | 'cut-reply'

/** What one connection's client prepared that writes: PostgreSQL names, MySQL ids */
export type Prepared = { writes: Set<string | number>; preparingWrite: boolean }

type Pair = { client: Socket; server: Socket; cutOnReply: boolean; prepared: Prepared }

export class FaultProxy {
  #target: { host: string; port: number }
  #server?: Server
  #port = 0
  #pairs = new Set<Pair>()
  #paused = false
  /** Connections accepted so far, and cut by a fault */
  accepted = 0
  cuts = 0
  /** Sees each client chunk first; the default forwards everything */
  inspect: (chunk: Buffer, prepared: Prepared) => ChunkVerdict = () => 'forward'

  constructor(target: { host: string; port: number }) {
    this.#target = target
  }

  get port() {
    return this.#port
  }

  /**
   * Listens on `port` (0: any free one) and returns the port.
   */
  async start(port = this.#port): Promise<number> {
    const server = createServer((client) => this.#accept(client))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
    this.#server = server
    this.#port = (server.address() as { port: number }).port
    return this.#port
  }

  #accept(client: Socket) {
    this.accepted++
    const server = connect(this.#target.port, this.#target.host)
    const prepared: Prepared = { writes: new Set(), preparingWrite: false }
    const pair: Pair = { client, server, cutOnReply: false, prepared }
    this.#pairs.add(pair)
    client.setNoDelay(true)
    server.setNoDelay(true)
    if (this.#paused) {
      client.pause()
      server.pause()
    }
    const close = () => this.#destroy(pair)
    client.on('error', close).on('close', close)
    server.on('error', close).on('close', close)
    client.on('data', (chunk: Buffer) => {
      notePrepare(chunk, prepared)
      const verdict = this.inspect(chunk, prepared)
      if (verdict === 'cut') {
        this.cuts++
        return close()
      }
      if (verdict === 'cut-reply') pair.cutOnReply = true
      server.write(chunk)
    })
    server.on('data', (chunk: Buffer) => {
      if (pair.cutOnReply) {
        this.cuts++
        return close()
      }
      notePrepared(chunk, prepared)
      client.write(chunk)
    })
  }

  #destroy(pair: Pair) {
    if (!this.#pairs.delete(pair)) return
    pair.client.destroy()
    pair.server.destroy()
  }

  /**
   * Destroys every open connection. Returns how many there were.
   */
  cut(): number {
    const count = this.#pairs.size
    this.cuts += count
    for (const pair of [...this.#pairs]) this.#destroy(pair)
    return count
  }

  /**
   * Stops forwarding, on open connections and new ones, until `resume()`.
   */
  pause() {
    this.#paused = true
    for (const pair of this.#pairs) {
      pair.client.pause()
      pair.server.pause()
    }
  }

  resume() {
    this.#paused = false
    for (const pair of this.#pairs) {
      pair.client.resume()
      pair.server.resume()
    }
  }

  /**
   * The database goes away for `ms`: every connection is cut and new ones
   * are refused, then it listens again on the same port.
   */
  async down(ms: number) {
    await this.#close()
    await new Promise((resolve) => setTimeout(resolve, ms))
    await this.start(this.#port)
  }

  async #close() {
    const server = this.#server
    this.#server = undefined
    const closed = server ? new Promise((resolve) => server.close(resolve)) : null
    this.cut()
    await closed
  }

  async stop() {
    this.resume()
    await this.#close()
  }
}

/**
 * Whether a client chunk is a `COMMIT` sent as a simple query: PostgreSQL's
 * `Q` message or MySQL's COM_QUERY packet, which is how knex commits.
 */
export function isCommit(chunk: Buffer): boolean {
  const pg = chunk[0] === 0x51 && chunk.length >= 5
  const mysql = chunk.length >= 5 && chunk[4] === 0x03
  if (!pg && !mysql) return false
  return /^COMMIT\b/i.test(chunk.subarray(5, 20).toString('latin1'))
}

const WRITE = /\b(insert into|update|delete from) [`"]agent_/i

/** PostgreSQL's Parse message: its statement's name and text */
function pgParse(chunk: Buffer): { name: string; text: string } | null {
  if (chunk[0] !== 0x50 || chunk.length < 6) return null
  const end = chunk.indexOf(0, 5)
  if (end < 0) return null
  return {
    name: chunk.subarray(5, end).toString('latin1'),
    text: chunk.subarray(end + 1, end + 201).toString('latin1'),
  }
}

/** The statement a PostgreSQL Bind message names (after its portal's name) */
function pgBound(chunk: Buffer): string | null {
  if (chunk[0] !== 0x42 || chunk.length < 7) return null
  const portalEnd = chunk.indexOf(0, 5)
  const end = portalEnd < 0 ? -1 : chunk.indexOf(0, portalEnd + 1)
  return end < 0 ? null : chunk.subarray(portalEnd + 1, end).toString('latin1')
}

/** A MySQL packet's command byte: 0x03 a query, 0x16 a prepare, 0x17 an execute */
function mysqlCommand(chunk: Buffer): number | null {
  return chunk.length >= 5 && chunk[3] === 0 ? chunk[4] : null
}

/** Notes a client chunk that prepares a write (a named Parse, a COM_STMT_PREPARE) */
function notePrepare(chunk: Buffer, prepared: Prepared) {
  const parse = pgParse(chunk)
  if (parse?.name && WRITE.test(parse.text)) prepared.writes.add(parse.name)
  if (mysqlCommand(chunk) === 0x16) {
    prepared.preparingWrite = WRITE.test(chunk.subarray(5, 205).toString('latin1'))
  }
}

/** Notes MySQL's answer to a prepared write: COM_STMT_PREPARE_OK and its statement id */
function notePrepared(chunk: Buffer, prepared: Prepared) {
  if (!prepared.preparingWrite) return
  prepared.preparingWrite = false
  if (chunk.length >= 9 && chunk[4] === 0x00) prepared.writes.add(chunk.readUInt32LE(5))
}

/**
 * Whether a client chunk writes to one of the package's tables (an
 * INSERT, UPDATE or DELETE, in a transaction or on its own, as SQL or as
 * a run of a statement its connection prepared: `prepared`) or commits.
 * A MySQL prepare is not a write: its execute is.
 */
export function isWrite(chunk: Buffer, prepared?: Prepared): boolean {
  if (isCommit(chunk)) return true
  const bound = pgBound(chunk)
  if (bound && prepared?.writes.has(bound)) return true
  const command = mysqlCommand(chunk)
  if (command === 0x17) return prepared?.writes.has(chunk.readUInt32LE(5)) ?? false
  return command !== 0x16 && WRITE.test(chunk.subarray(0, 200).toString('latin1'))
}

/**
 * Whether a client chunk runs a statement prepared earlier on its
 * connection, its SQL not sent again: a PostgreSQL Bind to a named
 * statement, with no Parse before it, or a MySQL COM_STMT_EXECUTE.
 */
export function ranPrepared(chunk: Buffer): boolean {
  return Boolean(pgBound(chunk)) || mysqlCommand(chunk) === 0x17
}
