/*
 * What an expiry sweep costs: N rows past their expiry (a third each on
 * the defaults, reject and cancel policies, 50 distinct question sets, each
 * row on a run of its own) settled by two sweeper processes started at
 * once, each `agents.sweep({ resume: false })` as `node ace agents:sweep`
 * runs it (tests/fixtures/sweep_worker.ts, booting the same app on this
 * database). Against the floor measured in the same run: one
 * `UPDATE … WHERE id IN (500 ids)` of the columns a sweep writes, times
 * N / 500.
 */

import { performance } from 'node:perf_hooks'
import { DateTime } from 'luxon'
import { AgentRun } from '../src/persistence/models/agent_run.ts'
import { ToolCall } from '../src/persistence/models/tool_call.ts'
import { affectedRows, preparedColumns } from '../src/persistence/prepared_columns.ts'
import { settleExpired } from '../src/questions/settle.ts'
import { seedExpiring, startSweepers, variantSet } from '../tests/helpers/expiry.ts'
import { spread, type Spread } from './stats.ts'

const BATCH = 500
const FLOOR_BATCHES = 5

export type SweepFigures = {
  /** Seconds from "go" until both sweepers had swept */
  seconds: Spread
  rowsPerSecond: Spread
  /** One 500-id UPDATE, ms */
  floorBatch: Spread
  /** floorBatch × rows / 500, seconds */
  floorSeconds: number
}

/**
 * Deletes seeded runs and their rows, 500 at a time.
 */
async function remove(seeded: { runId: string }[]) {
  for (let start = 0; start < seeded.length; start += BATCH) {
    const ids = seeded.slice(start, start + BATCH).map((seed) => seed.runId)
    await ToolCall.query().whereIn('run_id', ids).delete()
    await AgentRun.query().whereIn('id', ids).delete()
  }
}

/**
 * The floor: each 500-id batch of pending rows updated the way a sweep
 * writes them, one statement a batch, on rows no sweep will look at.
 */
async function measureFloor(): Promise<Spread> {
  const seeded = await seedExpiring(BATCH * FLOOR_BATCHES, {
    expiresAt: DateTime.now().plus({ days: 1 }),
  })
  const now = DateTime.now()
  const outcome = settleExpired({ kind: 'question', set: variantSet(0) }, 'defaults', {
    answeredBy: null,
    answeredVia: 'expiry',
  })
  const payload = preparedColumns(new ToolCall(), {
    status: 'expired',
    outcome,
    answeredVia: 'expiry',
    settledAt: now,
    updatedAt: now,
  })
  const samples: number[] = []
  for (let start = 0; start < seeded.length; start += BATCH) {
    const ids = seeded.slice(start, start + BATCH).map((seed) => seed.id)
    const started = performance.now()
    const written = await ToolCall.query()
      .whereIn('id', ids)
      .where('status', 'pending')
      .update(payload)
    samples.push(performance.now() - started)
    if (affectedRows(written) !== ids.length) throw new Error('floor: a batch missed rows')
  }
  await remove(seeded)
  return spread(samples)
}

export async function measureExpirySweep(options: {
  rows: number
  repetitions: number
}): Promise<SweepFigures> {
  const floorBatch = await measureFloor()
  const seconds: number[] = []
  const rates: number[] = []
  for (let round = 0; round < options.repetitions; round++) {
    const seeded = await seedExpiring(options.rows, {
      policies: ['defaults', 'reject', 'cancel'],
      variants: 50,
    })
    const sweepers = await startSweepers(2, {}, 300_000)
    const { exits } = await sweepers.go()
    for (const exit of exits) {
      if (exit.code !== 0 || !exit.result) throw new Error(`A sweeper failed:\n${exit.output}`)
    }
    const swept = exits.reduce((sum, exit) => sum + exit.result!.swept, 0)
    const pending = await ToolCall.query()
      .whereIn(
        'id',
        seeded.slice(0, BATCH).map((seed) => seed.id)
      )
      .where('status', 'pending')
    if (swept !== options.rows || pending.length > 0) {
      throw new Error(`The sweepers settled ${swept} of ${options.rows} rows`)
    }
    const took = Math.max(...exits.map((exit) => exit.result!.ms)) / 1000
    seconds.push(took)
    rates.push(options.rows / took)
    await remove(seeded)
  }
  return {
    seconds: spread(seconds),
    rowsPerSecond: spread(rates),
    floorBatch,
    floorSeconds: (floorBatch.median * options.rows) / BATCH / 1000,
  }
}
