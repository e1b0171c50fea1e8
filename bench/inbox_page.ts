/*
 * What the inbox's first page costs as the table grows: `inbox.list` for
 * one person's pending rows (and settled history) against the same rows
 * read with hand-written SQL on the same connection, at two table sizes.
 * The person owns 200 rows; the rest belong to a thousand others.
 */

import { performance } from 'node:perf_hooks'
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { Database } from '@adonisjs/lucid/database'
import { Inbox } from '../src/inbox/inbox.ts'
import { ToolCall } from '../src/persistence/models/tool_call.ts'
import { AgentRun } from '../src/persistence/models/agent_run.ts'
import { preparedColumns } from '../src/persistence/prepared_columns.ts'
import { DB_QUESTION } from '../tests/helpers/runtime.ts'
import { spread, type Spread } from './stats.ts'

const PERSON = 'bench:person'
const RUNS = 100
const REQUEST = JSON.stringify(DB_QUESTION)

/**
 * Fills the tables up to `total` tool-call rows (adding to what a smaller
 * size already wrote), half pending, half settled.
 */
async function seed(db: Database, from: number, total: number, runIds: string[]) {
  const start = DateTime.fromISO('2026-01-01T00:00:00Z')
  const probe = new ToolCall()
  // SQLite caps a compound SELECT (knex's multi-row insert there) at 500 terms
  const batch = db.connection().dialect.name.includes('sqlite') ? 400 : 1000
  for (let offset = from; offset < total; offset += batch) {
    const rows = []
    for (let index = offset; index < Math.min(offset + batch, total); index++) {
      const pending = index % 2 === 0
      const createdAt = start.plus({ seconds: index })
      rows.push({
        id: randomUUID(),
        run_id: runIds[index % RUNS],
        sequence: Math.floor(index / RUNS) + 1,
        attempt: 1,
        tool_call_id: `call_${index}`,
        tool_name: 'ask',
        kind: 'ask',
        status: pending ? 'pending' : 'answered',
        owner_id: index < 200 ? PERSON : `bench:other:${index % 1000}`,
        request: REQUEST,
        on_expiry: 'defaults',
        ...preparedColumns(probe, {
          createdAt,
          updatedAt: createdAt,
          settledAt: pending ? null : createdAt.plus({ minutes: 1 }),
        }),
      })
    }
    await db.table('agent_tool_calls').multiInsert(rows)
  }
}

async function timed(work: () => Promise<unknown>) {
  const started = performance.now()
  await work()
  return performance.now() - started
}

export type PageFigures = {
  size: number
  pending: { inbox: Spread; sql: Spread; ratio: Spread }
  settled: { inbox: Spread; sql: Spread; ratio: Spread }
}

/**
 * Measures the first page at each of `sizes` (ascending), `repetitions`
 * times each, interleaved, after `warmup` untimed rounds.
 */
export async function measureInboxPage(
  db: Database,
  options: { sizes: number[]; repetitions: number; warmup: number }
): Promise<PageFigures[]> {
  await ToolCall.query().delete()
  const runs = []
  for (let index = 0; index < RUNS; index++) {
    runs.push(await AgentRun.create({ agent: 'bench', ownerId: PERSON, status: 'waiting' }))
  }
  const runIds = runs.map((run) => run.id)
  const inbox = new Inbox()
  const figures: PageFigures[] = []
  let seeded = 0

  for (const size of options.sizes) {
    await seed(db, seeded, size, runIds)
    seeded = size
    if (db.connection().dialect.name === 'postgres') await db.rawQuery('analyze agent_tool_calls')

    const samples = {
      pending: { inbox: [] as number[], sql: [] as number[], ratio: [] as number[] },
      settled: { inbox: [] as number[], sql: [] as number[], ratio: [] as number[] },
    }
    // Untimed rounds first: a server lists pages all day, so both paths are timed warm (JIT-compiled)
    for (let round = -options.warmup; round < options.repetitions; round++) {
      for (const status of ['pending', 'settled'] as const) {
        const sql =
          status === 'pending'
            ? db
                .from('agent_tool_calls')
                .where('status', 'pending')
                .where('owner_id', PERSON)
                .orderBy('created_at', 'asc')
                .orderBy('id', 'asc')
                .limit(50)
            : db
                .from('agent_tool_calls')
                .whereNot('status', 'pending')
                .whereNotNull('settled_at')
                .where('owner_id', PERSON)
                .orderBy('settled_at', 'desc')
                .orderBy('id', 'desc')
                .limit(50)
        const hand = await timed(() => sql)
        const listed = await timed(() => inbox.list({ status, ownerId: PERSON, limit: 50 }))
        if (round < 0) continue
        samples[status].sql.push(hand)
        samples[status].inbox.push(listed)
        samples[status].ratio.push(listed / hand)
      }
    }
    figures.push({
      size,
      pending: {
        inbox: spread(samples.pending.inbox),
        sql: spread(samples.pending.sql),
        ratio: spread(samples.pending.ratio),
      },
      settled: {
        inbox: spread(samples.settled.inbox),
        sql: spread(samples.settled.sql),
        ratio: spread(samples.settled.ratio),
      },
    })
  }
  await ToolCall.query().delete()
  await AgentRun.query().whereIn('id', runIds).delete()
  return figures
}
