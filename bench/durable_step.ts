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
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import type { Database } from '@adonisjs/lucid/database'
import { call, say, scriptedModel } from '../src/testing/scripted_model.ts'
import { Agents, type AgentsOptions } from '../src/runtime/agents.ts'
import { defineAgent } from '../src/runtime/define_agent.ts'
import { defineTool } from '../src/runtime/define_tool.ts'
import { sqlChannel } from '../src/persistence/sqlite_writes.ts'
import { spread, type Spread } from './stats.ts'

const PAYLOAD = 'x'.repeat(1024)

/** A model that calls the read tool `steps` times, then answers */
function stepperModel(steps: number) {
  return scriptedModel(
    [
      ...Array.from({ length: steps }, (_, index) => () => [
        call(`call_${index + 1}`, 'lookup', { key: `k${index + 1}` }),
      ]),
      () => [say('done')],
    ],
    { by: 'turn' }
  )
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
  sqlChannel.subscribe(published)
  try {
    const result = await work()
    return { result, statements, commits }
  } finally {
    knex.removeListener('query', listener)
    sqlChannel.unsubscribe(published)
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
    statementsPerStep: counted.statements / (steps + 1),
    commitsPerStep: counted.commits / (steps + 1),
  }
}

/**
 * How a step's cost grows with the run's length. The plain AI SDK loop
 * grows too (every model call resends, and the SDK converts, the whole
 * conversation), so both are measured in the same run: the median of
 * steps 2–21 against the median of the last twenty, for the package, for
 * the plain loop, and for the package's own share (package − plain).
 */
export async function measureGrowth(options: { steps: number }) {
  const window = 20
  const median = (durations: number[], from: number, to?: number) =>
    spread(durations.slice(from, to)).median

  const packageMarks: number[] = []
  const agents = stepperAgents(options.steps, (point) => {
    if (point === 'after-response-saved') packageMarks.push(performance.now())
  })
  await agents.start('stepper', { input: 'Look up every key', owner: null })
  await agents.idle()

  const plainMarks: number[] = []
  await generateText({
    model: stepperModel(options.steps),
    prompt: 'Look up every key',
    tools: { lookup: lookupTool() },
    stopWhen: stepCountIs(options.steps + 1),
    onStepFinish: () => {
      plainMarks.push(performance.now())
    },
  })

  const figures = (marks: number[]) => {
    const durations = marks.slice(1).map((mark, index) => mark - marks[index])
    return { early: median(durations, 1, 1 + window), late: median(durations, -window) }
  }
  const durable = figures(packageMarks)
  const plain = figures(plainMarks)
  const own = {
    early: Math.max(durable.early - plain.early, 0.001),
    late: Math.max(durable.late - plain.late, 0.001),
  }
  return {
    durable: { ...durable, ratio: durable.late / durable.early },
    plain: { ...plain, ratio: plain.late / plain.early },
    own: { ...own, ratio: own.late / own.early },
  }
}

/**
 * Many runs at once: `runs` runs of `steps` read steps each, started
 * together and driven by the inline executor, against as many plain AI SDK
 * loops run together. Wall time and this process's CPU time of each.
 */
export async function measureConcurrentRuns(options: { runs: number; steps: number }) {
  const plainModel = stepperModel(options.steps)
  let started = performance.now()
  let cpu = process.cpuUsage()
  await Promise.all(
    Array.from({ length: options.runs }, () => plainLoop(plainModel, options.steps))
  )
  const plain = { wall: performance.now() - started, cpu: cpuMs(process.cpuUsage(cpu)) }

  const agents = stepperAgents(options.steps)
  started = performance.now()
  cpu = process.cpuUsage()
  const runs = await Promise.all(
    Array.from({ length: options.runs }, () =>
      agents.start('stepper', { input: 'Look up every key', owner: null })
    )
  )
  await agents.idle()
  const durable = { wall: performance.now() - started, cpu: cpuMs(process.cpuUsage(cpu)) }
  for (const run of runs) {
    const finished = await agents.run(run.id)
    if (finished?.status !== 'completed') throw new Error(`A run ended ${finished?.status}`)
  }
  return { plain, durable, wallRatio: durable.wall / plain.wall, cpuRatio: durable.cpu / plain.cpu }
}

function cpuMs(usage: NodeJS.CpuUsage) {
  return (usage.user + usage.system) / 1000
}
