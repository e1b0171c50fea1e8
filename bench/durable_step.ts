/*
 * What one durable step costs: a run of read-tool steps driven through the
 * package, against its floor measured in the same run on the same
 * connection: one INSERT+COMMIT of a 1 KB row (the least a durable step
 * must write) plus one step of the plain AI SDK loop with the same mock
 * model (what any agent pays without durability). Also counts the SQL
 * statements a step makes, and how a step's cost grows with the run's
 * length (the last steps of a long run against its first ones).
 */

import { performance } from 'node:perf_hooks'
import vine from '@vinejs/vine'
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai'
import type { Database } from '@adonisjs/lucid/database'
import { call, say, scriptedModel } from '../src/testing/scripted_model.ts'
import { Agents, type AgentsOptions } from '../src/runtime/agents.ts'
import { defineAgent } from '../src/runtime/define_agent.ts'
import { defineTool } from '../src/runtime/define_tool.ts'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { sqlDiagnostics } from '../src/persistence/driver_statements.ts'
import { isBetterSqlite, sqliteWrite } from '../src/persistence/sqlite_writes.ts'
import { pgNamed } from '../src/persistence/pg_writes.ts'
import { isMysql2, mysqlRows } from '../src/persistence/mysql_writes.ts'
import { spread, type Spread } from './stats.ts'
import { tracingOn } from './tracing.ts'

const PAYLOAD = 'x'.repeat(1024)

/**
 * A model that calls the read tool `steps` times, then answers. Unlike the
 * AI SDK's mock it wraps, it keeps no call's options, as a real provider
 * keeps no prompt: each holds the whole conversation, so a long run's
 * recorded prompts grew the heap with the square of its length (150 MB over
 * 1,000 steps) and slowed every later step's work, the package's and the
 * plain loops' alike.
 */
function stepperModel(steps: number) {
  const model = scriptedModel(
    [
      ...Array.from({ length: steps }, (_, index) => () => [
        call(`call_${index + 1}`, 'lookup', { key: `k${index + 1}` }),
      ]),
      () => [say('done')],
    ],
    { by: 'turn' }
  )
  Object.defineProperty(model, 'doGenerateCalls', { get: () => [] })
  return model
}

const lookup = async ({ key }: { key: string }) => `value of ${key}`

/**
 * The plain AI SDK loop of `steps` lookups: the same model and tool,
 * nothing saved.
 */
function plainLoop(model: ReturnType<typeof stepperModel>, steps: number) {
  return generateText({
    model,
    prompt: 'Look up every key',
    tools: { lookup: lookupTool() },
    stopWhen: stepCountIs(steps + 1),
  })
}

/** The read tool as a plain AI SDK tool */
function lookupTool() {
  return tool({
    description: 'Look up a key',
    inputSchema: jsonSchema<{ key: string }>({
      type: 'object',
      properties: { key: { type: 'string' } },
      required: ['key'],
    }),
    execute: lookup,
  })
}

/**
 * A runtime with one agent, `stepper`, playing `stepperModel(steps)`.
 */
export function stepperAgents(steps: number, onCheckpoint?: AgentsOptions['onCheckpoint']) {
  return new Agents({
    agents: [
      defineAgent({
        name: 'stepper',
        model: stepperModel(steps),
        instructions: 'Look up every key',
        maxSteps: steps + 1,
        tools: [
          defineTool({
            name: 'lookup',
            description: 'Look up a key',
            kind: 'read',
            input: vine.object({ key: vine.string() }),
            handle: lookup,
          }),
        ],
      }),
    ],
    onCheckpoint,
  })
}

/**
 * Counts the SQL statements sent on the connection while `work` runs, and
 * the commits among them (a statement outside a transaction commits by
 * itself): those knex sends, and those the SQLite checkpoint runs on the
 * driver itself (src/persistence/sqlite_writes.ts).
 */
async function countStatements<T>(db: Database, work: () => Promise<T>) {
  const knex = db.connection().getWriteClient()
  let statements = 0
  let commits = 0
  let inTransaction = 0
  const listener = (query: { sql: string }) => {
    const sql = query.sql.trim().toLowerCase()
    if (sql.startsWith('begin') || sql.startsWith('start transaction')) {
      inTransaction++
      return
    }
    if (sql.startsWith('commit')) {
      inTransaction = Math.max(0, inTransaction - 1)
      commits++
      return
    }
    if (sql.startsWith('rollback')) {
      inTransaction = Math.max(0, inTransaction - 1)
      return
    }
    statements++
    if (inTransaction === 0 && !sql.startsWith('select')) commits++
  }
  const published = (message: unknown) => listener(message as { sql: string })
  knex.on('query', listener)
  sqlDiagnostics.subscribe(published)
  try {
    const result = await work()
    return { result, statements, commits }
  } finally {
    knex.removeListener('query', listener)
    sqlDiagnostics.unsubscribe(published)
  }
}

export type StepFigures = {
  /** ms per step through the package */
  packageStep: Spread
  /** ms of one INSERT+COMMIT of a 1 KB row */
  insertFloor: Spread
  /** ms per step of the plain AI SDK loop */
  plainStep: Spread
  /** package step / (insert floor + plain step), per repetition */
  ratio: Spread
  /** ms per step through the package with tracing on (bench/tracing.ts) */
  tracedStep: Spread
  /** traced step / untraced step, per repetition */
  tracedRatio: Spread
  /** spans per step with tracing on */
  spansPerStep: number
  statementsPerStep: number
  commitsPerStep: number
}

/**
 * Interleaves `repetitions` rounds of the three measurements over a run of
 * `steps` steps.
 */
export async function measureDurableStep(
  db: Database,
  options: { steps: number; repetitions: number }
): Promise<StepFigures> {
  const { steps, repetitions } = options
  await db.connection().schema.dropTableIfExists('bench_floor')
  await db.connection().schema.createTable('bench_floor', (table) => {
    table.increments('id')
    table.text('payload').notNullable()
  })

  const packageSamples: number[] = []
  const floorSamples: number[] = []
  const plainSamples: number[] = []
  const ratios: number[] = []
  const tracedSamples: number[] = []
  const tracedRatios: number[] = []
  let spansPerStep = 0
  let counted = { statements: 0, commits: 0 }

  for (let round = 0; round < repetitions; round++) {
    // The floor: one autocommitted insert of a 1 KB row, `steps` times
    let started = performance.now()
    for (let index = 0; index < steps; index++) {
      await db.table('bench_floor').insert({ payload: PAYLOAD })
    }
    const floor = (performance.now() - started) / steps

    // The plain AI SDK loop: the same model and tool, nothing saved
    started = performance.now()
    await plainLoop(stepperModel(steps), steps)
    const plain = (performance.now() - started) / (steps + 1)

    // Through the package: a durable run of the same steps
    const agents = stepperAgents(steps)
    started = performance.now()
    const { statements, commits } = await countStatements(db, async () => {
      const run = await agents.start('stepper', { input: 'Look up every key', owner: null })
      await agents.idle()
      const finished = await agents.run(run.id)
      if (finished?.status !== 'completed') {
        throw new Error(`The bench run ended ${finished?.status}: ${finished?.error}`)
      }
    })
    const durable = (performance.now() - started) / (steps + 1)
    counted = { statements, commits }

    // The same run with tracing on: a real SDK provider, an in-memory exporter
    const tracing = tracingOn()
    const traced = stepperAgents(steps)
    started = performance.now()
    const tracedRun = await traced.start('stepper', { input: 'Look up every key', owner: null })
    await traced.idle()
    const tracedStep = (performance.now() - started) / (steps + 1)
    spansPerStep = tracing.spans() / (steps + 1)
    await tracing.off()
    const tracedEnd = await traced.run(tracedRun.id)
    if (tracedEnd?.status !== 'completed') {
      throw new Error('The traced bench run did not complete')
    }
    tracedSamples.push(tracedStep)
    tracedRatios.push(tracedStep / durable)

    floorSamples.push(floor)
    plainSamples.push(plain)
    packageSamples.push(durable)
    ratios.push(durable / (floor + plain))
  }

  return {
    packageStep: spread(packageSamples),
    insertFloor: spread(floorSamples),
    plainStep: spread(plainSamples),
    ratio: spread(ratios),
    tracedStep: spread(tracedSamples),
    tracedRatio: spread(tracedRatios),
    spansPerStep,
    statementsPerStep: counted.statements / (steps + 1),
    commitsPerStep: counted.commits / (steps + 1),
  }
}

/**
 * The AI SDK's manual agent loop: one `generateText` step per call, the
 * conversation kept in an array and sent whole each time, as the package
 * sends it (rebuilt from the journal, one model call per step). Calls
 * `mark` after each step.
 */
async function manualLoop(steps: number, mark: () => void) {
  const model = stepperModel(steps)
  const messages: ModelMessage[] = [{ role: 'user', content: 'Look up every key' }]
  for (let step = 0; step <= steps; step++) {
    const result = await generateText({ model, messages, tools: { lookup: lookupTool() } })
    messages.push(...result.response.messages)
    mark()
  }
}

/**
 * How a step's cost grows with the run's length: the median of steps 2–21
 * against the median of the last twenty. Every model call resends, and the
 * AI SDK converts, the whole conversation, so `generateText` itself grows
 * with the run, in the package as in the AI SDK's manual agent loop (one
 * call per step, the conversation kept in an array: measured alongside).
 * The package's own share of a step is what is left once its
 * `generateText` call is taken out (timed by the driver's
 * `before-model-call` / `after-model-call` points): building the messages,
 * the read tools, the checkpoint. That share is what must stay flat.
 */
export async function measureGrowth(options: { steps: number }) {
  const window = 20
  const median = (durations: number[], from: number, to?: number) =>
    spread(durations.slice(from, to)).median
  const early = (durations: number[]) => median(durations, 1, 1 + window)
  const late = (durations: number[]) => median(durations, -window)
  const figure = (durations: number[]) => {
    const [first, last] = [early(durations), late(durations)]
    return { early: first, late: last, ratio: last / first }
  }

  // Per step: from one saved response to the next, and its model call
  const saved: number[] = []
  const calls: number[] = []
  let callStarted = 0
  const agents = stepperAgents(options.steps, (point) => {
    const now = performance.now()
    if (point === 'before-model-call') callStarted = now
    else if (point === 'after-model-call') calls.push(now - callStarted)
    else if (point === 'after-response-saved') saved.push(now)
  })
  await agents.start('stepper', { input: 'Look up every key', owner: null })
  await agents.idle()
  const steps = saved.slice(1).map((mark, index) => mark - saved[index])
  // The call of step i + 1 happened between saved[i] and saved[i + 1]
  const stepCalls = calls.slice(1, steps.length + 1)
  const own = steps.map((duration, index) => duration - stepCalls[index])

  const manualMarks: number[] = []
  await manualLoop(options.steps, () => manualMarks.push(performance.now()))
  const manual = manualMarks.slice(1).map((mark, index) => mark - manualMarks[index])

  return {
    durable: figure(steps),
    generateText: figure(stepCalls),
    manual: figure(manual),
    own: figure(own),
  }
}

/**
 * Many runs at once: `runs` runs of `steps` read steps each, started
 * together and driven by the inline executor, against as many plain AI SDK
 * loops run together, and against the least their database work can cost:
 * as many chains of one-row INSERTs at once, each chain as long as a run's
 * statements (counted), each INSERT prepared on the driver as the
 * package's own statements are (on SQLite in the turn's group commit).
 * Wall time and this process's CPU time of each, over `repetitions`
 * interleaved rounds after one not counted.
 */
export async function measureConcurrentRuns(
  db: Database,
  options: { runs: number; steps: number; repetitions: number }
) {
  const client = db.connection()
  await client.schema.dropTableIfExists('bench_crowd_floor')
  await client.schema.createTable('bench_crowd_floor', (table) => {
    table.increments('id')
    table.string('payload').notNullable()
  })
  const insert = preparedInsert(client)
  const samples = { wall: [] as number[], cpu: [] as number[], floorCpu: [] as number[] }
  const walls = { plain: [] as number[], durable: [] as number[], floor: [] as number[] }
  let statementsPerRun = 0
  for (let round = -1; round < options.repetitions; round++) {
    const plainModel = stepperModel(options.steps)
    const plain = await timed(() =>
      Promise.all(Array.from({ length: options.runs }, () => plainLoop(plainModel, options.steps)))
    )

    const agents = stepperAgents(options.steps)
    let runIds: string[] = []
    const counted = await countWrites(db, () =>
      timed(async () => {
        const runs = await Promise.all(
          Array.from({ length: options.runs }, () =>
            agents.start('stepper', { input: 'Look up every key', owner: null })
          )
        )
        runIds = runs.map((run) => run.id)
        await agents.idle()
      })
    )
    const durable = counted.result
    for (const id of runIds) {
      const finished = await agents.run(id)
      if (finished?.status !== 'completed') throw new Error(`A run ended ${finished?.status}`)
    }

    const chain = Math.round(counted.statements / options.runs)
    const floor = await timed(() =>
      Promise.all(
        Array.from({ length: options.runs }, async () => {
          for (let index = 0; index < chain; index++) await insert()
        })
      )
    )
    if (round < 0) continue
    statementsPerRun = counted.statements / options.runs
    samples.wall.push(durable.wall / plain.wall)
    samples.cpu.push(durable.cpu / plain.cpu)
    samples.floorCpu.push((plain.cpu + floor.cpu) / plain.cpu)
    walls.plain.push(plain.wall)
    walls.durable.push(durable.wall)
    walls.floor.push(floor.wall)
  }
  await client.schema.dropTableIfExists('bench_crowd_floor')
  return {
    wallRatio: spread(samples.wall),
    cpuRatio: spread(samples.cpu),
    /** (plain loops + the statements alone) / plain loops, CPU: the least the durable crowd can cost */
    floorCpuRatio: spread(samples.floorCpu),
    plainWall: spread(walls.plain),
    durableWall: spread(walls.durable),
    floorWall: spread(walls.floor),
    statementsPerRun,
  }
}

/** The wall and CPU milliseconds `work` took */
async function timed<T>(work: () => Promise<T>) {
  const started = performance.now()
  const cpu = process.cpuUsage()
  await work()
  return { wall: performance.now() - started, cpu: cpuMs(process.cpuUsage(cpu)) }
}

/**
 * Counts the statements that read or write (not BEGIN, COMMIT or a
 * savepoint) sent while `work` runs: knex's and those run on the driver.
 */
async function countWrites<T>(db: Database, work: () => Promise<T>) {
  const knex = db.connection().getWriteClient()
  let statements = 0
  const listener = (query: { sql: string }) => {
    if (/^\s*(insert|update|delete|select|with)\b/i.test(query.sql)) statements++
  }
  const published = (message: unknown) => listener(message as { sql: string })
  knex.on('query', listener)
  sqlDiagnostics.subscribe(published)
  try {
    return { result: await work(), statements }
  } finally {
    knex.removeListener('query', listener)
    sqlDiagnostics.unsubscribe(published)
  }
}

/** One short row into `bench_crowd_floor`, prepared on the driver as the package's writes are */
function preparedInsert(client: QueryClientContract): () => Promise<unknown> {
  const payload = 'x'.repeat(64)
  if (isBetterSqlite(client)) {
    const sql = 'insert into "bench_crowd_floor" ("payload") values (?)'
    return () => sqliteWrite(client, (writer) => writer.run(sql, [payload]))
  }
  if (client.dialect.name === 'postgres') {
    return () =>
      pgNamed(client, 'insert into "bench_crowd_floor" ("payload") values ($1)', [payload])
  }
  if (isMysql2(client)) {
    return () =>
      mysqlRows(client, 'insert into `bench_crowd_floor` (`payload`) values (?)', [payload])
  }
  return () => client.table('bench_crowd_floor').insert({ payload })
}

function cpuMs(usage: NodeJS.CpuUsage) {
  return (usage.user + usage.system) / 1000
}
