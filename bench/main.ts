/*
 * `npm run bench`: the figures of the durable core, each next to a floor
 * measured in the same run, on SQLite and PostgreSQL (and MySQL when it
 * answers). `npm run bench -- --quick` is the smoke run CI uses: fewer
 * steps and repetitions, the same figures; its numbers are not asserted.
 *
 *   npm run bench -- [--quick] [--db=sqlite,pg,mysql] [--only=step,growth,crowd,page,sweep,queue,settle,console]
 *
 * `--only` measures those groups of figures alone (all by default).
 * `--metrics` measures with the package's metrics recorded into a real
 * OpenTelemetry SDK (src/telemetry/; off otherwise, as without an SDK).
 * The console's queries are timed at 1,000,000 rows, or 10,000 with
 * `--quick` (CI does not seed a million rows); `--console-rows=N` sets it.
 */

import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { createTestApp, type DbName } from '../tests/helpers/database.ts'
import { measureConcurrentRuns, measureDurableStep, measureGrowth } from './durable_step.ts'
import { measureExpirySweep } from './expiry_sweep.ts'
import { measureHttpSettle } from './http_settle.ts'
import { measureInboxPage } from './inbox_page.ts'
import { measureConsoleQueries } from './console_queries.ts'
import { measureQueueWorkers } from './queue_workers.ts'
import { LATENCY, measureSettleToToken, measureStreamingStep } from './streaming_step.ts'
import { formatNumber, formatSpread, table, type Row } from './stats.ts'
import { claimRedisDb } from '../tests/helpers/redis_db.ts'

const { values } = parseArgs({
  options: {
    'quick': { type: 'boolean', default: false },
    'db': { type: 'string', default: 'sqlite,pg,mysql' },
    'only': { type: 'string', default: 'step,growth,crowd,page,sweep,queue,settle,console' },
    'metrics': { type: 'boolean', default: false },
    'console-rows': { type: 'string' },
  },
})

if (values.metrics) {
  const { metrics } = await import('@opentelemetry/api')
  const {
    MeterProvider,
    InMemoryMetricExporter,
    PeriodicExportingMetricReader,
    AggregationTemporality,
  } = await import('@opentelemetry/sdk-metrics')
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 })
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
  const { startMetrics } = await import('../src/telemetry/metrics.ts')
  await startMetrics({ gauges: false })
}

const GROUPS = ['step', 'growth', 'crowd', 'page', 'sweep', 'queue', 'settle', 'console'] as const
const only = new Set(values.only.split(',').map((item) => item.trim()))
for (const group of only) {
  if (!GROUPS.includes(group as (typeof GROUPS)[number])) {
    throw new Error(`--only: unknown group "${group}"; the groups are ${GROUPS.join(', ')}`)
  }
}

const quick = values.quick
const sizes = quick
  ? {
      steps: 20,
      repetitions: 3,
      growthSteps: 60,
      settleRows: 100,
      pageSizes: [1_000, 10_000],
      pageRepetitions: 50,
      concurrentRuns: 100,
      crowdRepetitions: 1,
      sweepRows: 1_000,
      sweepRepetitions: 1,
      queueRuns: 40,
      queueSamples: 10,
      queueBackends: ['redis'] as const,
      consoleRows: 10_000,
    }
  : {
      steps: 200,
      repetitions: 5,
      growthSteps: 1000,
      settleRows: 500,
      pageSizes: [10_000, 1_000_000],
      pageRepetitions: 200,
      concurrentRuns: 1000,
      crowdRepetitions: 5,
      sweepRows: 10_000,
      sweepRepetitions: 3,
      queueRuns: 200,
      queueSamples: 120,
      queueBackends: ['redis', 'database'] as const,
      consoleRows: 1_000_000,
    }

// The queue figures' Redis database, claimed as a test run claims one
const releaseRedisDb = await claimRedisDb()

const rows: Record<string, Row> = {}
function cell(figure: string, goal: string, db: string, value: string) {
  rows[figure] ??= { figure, cells: {}, goal }
  rows[figure].cells[db] = value
}

/**
 * On MySQL, waits until InnoDB has purged what the last group deleted
 * (its history list under 10,000 entries), at most 20 minutes: a million
 * deleted rows slowed the next group's writes twelvefold while purged.
 */
async function purged(db: Awaited<ReturnType<typeof createTestApp>>['db']) {
  if (db.connection().dialect.name !== 'mysql') return
  const started = performance.now()
  for (;;) {
    const [[status]] = (await db.rawQuery('SHOW ENGINE INNODB STATUS')) as [[{ Status: string }]]
    const length = Number(/History list length (\d+)/.exec(status.Status)?.[1] ?? 0)
    if (length < 10_000 || performance.now() - started > 20 * 60_000) {
      console.error(
        `mysql: history list ${length} after ${((performance.now() - started) / 1000).toFixed(0)} s`
      )
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000))
  }
}

const columns: string[] = []
for (const name of values.db.split(',').map((item) => item.trim()) as DbName[]) {
  process.env.DB = name
  let testApp: Awaited<ReturnType<typeof createTestApp>>
  try {
    testApp = await createTestApp()
  } catch (error) {
    console.error(`${name}: not reachable, left out (${(error as Error).message})`)
    continue
  }
  columns.push(name)
  try {
    if (only.has('step')) {
      console.error(`${name}: durable step, ${sizes.steps} steps × ${sizes.repetitions}`)
      const step = await measureDurableStep(testApp.db, sizes)
      cell('per step through the package (ms)', '', name, formatSpread(step.packageStep))
      cell('one INSERT+COMMIT of a 1 KB row (ms, floor)', '', name, formatSpread(step.insertFloor))
      cell('one step of the plain AI SDK loop (ms, floor)', '', name, formatSpread(step.plainStep))
      cell('package / (insert + plain step)', '≤ 1.5×', name, formatSpread(step.ratio, '×'))
      cell(
        "one step of the AI SDK's manual loop, one generateText call a step as the package calls the model (ms)",
        '',
        name,
        formatSpread(step.manualStep)
      )
      cell('package / (insert + manual loop step)', '', name, formatSpread(step.manualRatio, '×'))
      cell(
        "a step's own statements, sent again alone (ms a step)",
        '',
        name,
        formatSpread(step.statementsAlone)
      )
      cell(
        'package / (its statements alone + manual loop step)',
        '',
        name,
        formatSpread(step.leastRatio, '×')
      )
      cell(
        `per step with tracing on (ms; ${formatNumber(step.spansPerStep)} spans a step)`,
        '',
        name,
        formatSpread(step.tracedStep)
      )
      cell('tracing on / off, per step', '≤ 1.15×', name, formatSpread(step.tracedRatio, '×'))
      cell(
        'SQL statements per step (commits)',
        '≤ 3 (1–2)',
        name,
        `${formatNumber(step.statementsPerStep)} (${formatNumber(step.commitsPerStep)})`
      )
      console.error(`${name}: streamed step, ${sizes.steps} steps × ${sizes.repetitions}`)
      const streaming = await measureStreamingStep(sizes)
      cell(
        'per step, generateText / streamText (ms; text + a read tool, watched)',
        '',
        name,
        `${formatSpread(streaming.generated)} / ${formatSpread(streaming.streamed)}`
      )
      cell(
        `streamed / generateText step (watcher messages for ${streaming.partsPerStep} streamed parts)`,
        '≤ 1.2×',
        name,
        `${formatSpread(streaming.ratio, '×')} (${formatNumber(streaming.messagesPerStep)})`
      )
      cell(
        'the AI SDK alone: streamText / generateText call, the same parts (extra ms a call)',
        '',
        name,
        `${formatSpread(streaming.sdkRatio, '×')} (${formatSpread(streaming.sdkExtra)})`
      )
      cell(
        "streaming's extra per step beyond the AI SDK's own (ms: the watcher, batching, events)",
        '',
        name,
        formatSpread(streaming.ownExtra)
      )
      cell(
        `streamed / generateText step, the model answering in ${LATENCY} ms (20 steps)`,
        '≤ 1.2×',
        name,
        formatSpread(streaming.slowRatio, '×')
      )
      const live = await measureSettleToToken(sizes.repetitions * 4)
      cell(
        'settle → next model call / → first streamed token at its watchers (ms)',
        '',
        name,
        `${formatSpread(live.toModelCall)} / ${formatSpread(live.toFirstToken)}`
      )
      cell('first streamed token after the model call (ms)', '≤ 5', name, formatSpread(live.extra))
    }

    if (only.has('growth')) {
      console.error(`${name}: growth over ${sizes.growthSteps} steps`)
      const growth = await measureGrowth({ steps: sizes.growthSteps })
      cell(
        `per-step cost at step ${sizes.growthSteps} vs steps 2–21: package (its generateText call; the AI SDK's manual loop)`,
        '',
        name,
        `${formatNumber(growth.durable.ratio)}× (${formatNumber(growth.generateText.ratio)}×; ${formatNumber(growth.manual.ratio)}×), ${formatNumber(growth.durable.early)} → ${formatNumber(growth.durable.late)} ms (${formatNumber(growth.generateText.late)}; ${formatNumber(growth.manual.late)})`
      )
      cell(
        `the package's own share of a step (the step without its generateText call) at step ${sizes.growthSteps} vs steps 2–21`,
        '≤ 1.2×',
        name,
        `${formatNumber(growth.own.ratio)}× (${formatNumber(growth.own.early)} → ${formatNumber(growth.own.late)} ms)`
      )
    }

    if (only.has('crowd')) {
      console.error(`${name}: ${sizes.concurrentRuns} runs at once`)
      const crowd = await measureConcurrentRuns(testApp.db, {
        runs: sizes.concurrentRuns,
        steps: 3,
        repetitions: sizes.crowdRepetitions,
      })
      const runs = sizes.concurrentRuns.toLocaleString('en')
      cell(
        `${runs} runs of 3 steps at once vs as many plain loops (wall / CPU)`,
        '≤ 2×',
        name,
        `${formatSpread(crowd.wallRatio, '×')} / ${formatSpread(crowd.cpuRatio, '×')} (${formatNumber(crowd.durableWall.median)} vs ${formatNumber(crowd.plainWall.median)} ms)`
      )
      cell(
        `the least such a crowd can cost: the AI SDK's manual loop (one generateText a step) plus the runs' own statements sent again alone, vs the plain loops (CPU: manual loop + statements; statements a run)`,
        '',
        name,
        `${formatSpread(crowd.leastCpuRatio, '×')} (${formatNumber(crowd.manualCpuRatio.median)}× + ${formatNumber(crowd.replayCpuRatio.median)}×; ${formatNumber(crowd.statementsPerRun)})`
      )
    }

    if (only.has('sweep')) {
      const sweepRows = sizes.sweepRows.toLocaleString('en')
      console.error(`${name}: expiry sweep of ${sweepRows} rows, 2 sweeper processes`)
      const sweep = await measureExpirySweep({
        rows: sizes.sweepRows,
        repetitions: sizes.sweepRepetitions,
      })
      cell(
        `expiry sweep, 2 sweepers at once: ${sweepRows} rows (s; rows/s)`,
        '10,000 rows ≤ 10 s',
        name,
        `${formatSpread(sweep.seconds)} s; ${formatNumber(sweep.rowsPerSecond.median)}/s`
      )
      cell(
        `floor: one UPDATE … WHERE id IN (500 ids) × rows/500 (s; ms a batch)`,
        '',
        name,
        `${formatNumber(sweep.floorSeconds)} s; ${formatSpread(sweep.floorBatch)} ms`
      )
    }

    for (const backend of only.has('queue') ? sizes.queueBackends : []) {
      console.error(`${name}: queue executor on ${backend}, ${sizes.queueRuns} runs`)
      const queue = await measureQueueWorkers(testApp.db, {
        backend,
        runs: sizes.queueRuns,
        samples: sizes.queueSamples,
      })
      cell(
        `queue (${backend}): runs/s driven by 1 worker → 2 workers (3 model calls ≤ 20 ms each)`,
        '',
        name,
        `${formatNumber(queue.one)} → ${formatNumber(queue.two)} (${formatNumber(queue.two / queue.one)}×)`
      )
      cell(
        `queue (${backend}): settle → resume / the queue's empty-job round trip (ms)`,
        '≤ 1.5×',
        name,
        `${formatNumber(queue.ratio)}× (${formatSpread(queue.resume)} vs ${formatSpread(queue.roundTrip)})`
      )
    }

    if (only.has('page')) {
      console.error(`${name}: inbox page at ${sizes.pageSizes.join(', ')} rows`)
      const pages = await measureInboxPage(testApp.db, {
        sizes: sizes.pageSizes,
        repetitions: sizes.pageRepetitions,
        warmup: sizes.pageRepetitions,
      })
      for (const page of pages) {
        cell(
          `inbox.list pending / hand-written SQL at ${page.size.toLocaleString('en')} rows`,
          '≤ 1.5×',
          name,
          `${formatSpread(page.pending.ratio, '×')}; ${formatNumber(page.pending.inbox.median)} ms`
        )
        // The goal of the settled history is an indexed read (tests/persistence/index_plans.spec.ts)
        cell(
          `inbox.list settled / hand-written SQL at ${page.size.toLocaleString('en')} rows`,
          'indexed',
          name,
          `${formatSpread(page.settled.ratio, '×')}; ${formatNumber(page.settled.inbox.median)} ms`
        )
      }
      const [smallest, largest] = [pages[0], pages.at(-1)!]
      cell(
        `first pending page, ${largest.size.toLocaleString('en')} vs ${smallest.size.toLocaleString('en')} rows`,
        '≤ 1.3×',
        name,
        `${formatNumber(largest.pending.inbox.median / smallest.pending.inbox.median)}×`
      )
    }

    // A million rows deleted by the page group: MySQL purges them in the background, slowing every write and read after
    if (only.has('page') && only.has('console')) await purged(testApp.db)

    if (only.has('console')) {
      const consoleRows = Number(values['console-rows'] ?? sizes.consoleRows)
      console.error(`${name}: console queries at ${consoleRows.toLocaleString('en')} rows`)
      const queries = await measureConsoleQueries(testApp.db, {
        rows: consoleRows,
        repetitions: quick ? 5 : 20,
      })
      for (const query of queries) {
        // The cell says outright where a median misses the goal or the plan is no index's
        const met = query.ms.median <= 50 ? 'met' : 'MISSED'
        cell(
          `console: ${query.name} at ${consoleRows.toLocaleString('en')} rows (ms; index-backed)`,
          'median ≤ 50 ms, index-backed',
          name,
          `${formatSpread(query.ms)} ${met}; ${query.indexed ? 'indexed' : 'NOT INDEXED'}`
        )
        if (!query.indexed) console.error(`${name} ${query.name} plan:\n${query.plan}`)
      }
    }
    // The settle comes next, on the same database
    if ((only.has('page') || only.has('console')) && only.has('settle')) await purged(testApp.db)
  } finally {
    await testApp.terminate()
  }

  // The HTTP figures boot their own web app on the same database
  for (const executor of only.has('settle') ? (['handoff', 'inline'] as const) : []) {
    console.error(`${name}: HTTP settle of ${sizes.settleRows} rows, concurrency 10, ${executor}`)
    const settle = await measureHttpSettle({
      rows: sizes.settleRows,
      repetitions: sizes.repetitions,
      concurrency: 10,
      executor,
    })
    if (executor === 'handoff') {
      cell(
        'HTTP settle / trivial JSON route, concurrency 10 (req/s; resume handed to a queue)',
        '',
        name,
        `${formatSpread(settle.ratio, '×')} (${formatNumber(settle.settle.median)} vs ${formatNumber(settle.trivial.median)})`
      )
      cell(
        'ceiling: one conditional UPDATE through Lucid (no read, no audit) / trivial route, the same way (req/s)',
        '',
        name,
        `${formatSpread(settle.ceiling, '×')} (${formatNumber(settle.updateOnly.median)} vs ${formatNumber(settle.trivial.median)})`
      )
      cell(
        'HTTP settle as a fraction of that ceiling (settle / one-UPDATE route, per round)',
        '≥ 0.8',
        name,
        formatSpread(settle.ofCeiling)
      )
      cell(
        'HTTP settle / a settle route by hand (SELECT by id + conditional UPDATE), the same way (req/s)',
        '',
        name,
        `${formatSpread(settle.handRatio, '×')} (${formatNumber(settle.settle.median)} vs ${formatNumber(settle.byHand.median)})`
      )
      cell(
        'the settle route by hand as a fraction of the ceiling: the most a settle that reads its row before writing reaches',
        '',
        name,
        formatSpread(settle.handOfCeiling)
      )
    } else {
      cell(
        'the same, runs resumed inline in the web process',
        '',
        name,
        `${formatSpread(settle.ratio, '×')} (${formatNumber(settle.settle.median)} vs ${formatNumber(settle.trivial.median)})`
      )
    }
  }
}

console.log(
  `\nadonis-agent-inbox bench${quick ? ' (quick)' : ''}, ${new Date().toISOString().slice(0, 10)}: median (min–max) of interleaved repetitions\n`
)
console.log(table(Object.values(rows), columns))
await releaseRedisDb()
