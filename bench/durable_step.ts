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
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import vine from '@vinejs/vine'
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai'
import type { Database } from '@adonisjs/lucid/database'
import { call, say, scriptedModel } from '../src/testing/scripted_model.ts'
import { Agents, type AgentsOptions } from '../src/runtime/agents.ts'
import { defineAgent } from '../src/runtime/define_agent.ts'
import { defineTool } from '../src/runtime/define_tool.ts'
import { sqlDiagnostics } from '../src/persistence/driver_statements.ts'
import { spread, type Spread } from './stats.ts'
import {
  captureStatements,
  deleteRunRows,
  replayStatements,
  runRowsDigest,
  type Captured,
} from './statement_replay.ts'
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
export function stepperModel(steps: number) {
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
export function plainLoop(model: ReturnType<typeof stepperModel>, steps: number) {
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
  /** ms per step of the AI SDK's manual loop (one generateText call a step) */
  manualStep: Spread
  /** package step / (insert floor + manual loop step), per repetition */
  manualRatio: Spread
  /** ms per step of the run's own statements, sent again alone (./statement_replay.ts) */
  statementsAlone: Spread
  /** package step / (its statements alone + manual loop step), per repetition */
  leastRatio: Spread
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
  const manualSamples: number[] = []
  const manualRatios: number[] = []
  const ratios: number[] = []
  const tracedSamples: number[] = []
  const tracedRatios: number[] = []
  let spansPerStep = 0
  let counted = { statements: 0, commits: 0 }
  const statementSamples: number[] = []
  const leastRatios: number[] = []

  // One run more, not timed: its statements, sent again alone in each round
  const kept = await captureStatements(db, async () => {
    const agents = stepperAgents(steps)
    const run = await agents.start('stepper', { input: 'Look up every key', owner: null })
    await agents.idle()
    return run.id
  })
  const client = db.connection()
  const runIds = [kept.result]
  const digest = await runRowsDigest(client, runIds)

  for (let round = 0; round < repetitions; round++) {
    // The run's own statements alone
    await deleteRunRows(client, runIds)
    collectGarbage()
    let started = performance.now()
    await replayStatements(client, kept.captured)
    const alone = (performance.now() - started) / (steps + 1)
    const replayed = await runRowsDigest(client, runIds)
    if (replayed !== digest) throw new Error(`The replay wrote ${replayed}, the run had ${digest}`)

    // The floor: one autocommitted insert of a 1 KB row, `steps` times
    collectGarbage()
    started = performance.now()
    for (let index = 0; index < steps; index++) {
      await db.table('bench_floor').insert({ payload: PAYLOAD })
    }
    const floor = (performance.now() - started) / steps

    // The plain AI SDK loop: the same model and tool, nothing saved
    collectGarbage()
    started = performance.now()
    await plainLoop(stepperModel(steps), steps)
    const plain = (performance.now() - started) / (steps + 1)

    // The AI SDK's manual loop: one generateText call a step, as the package calls the model
    collectGarbage()
    started = performance.now()
    await manualLoop(steps, () => {})
    const manual = (performance.now() - started) / (steps + 1)

    // Through the package: a durable run of the same steps
    const agents = stepperAgents(steps)
    collectGarbage()
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
    collectGarbage()
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
    manualSamples.push(manual)
    manualRatios.push(durable / (floor + manual))
    statementSamples.push(alone)
    leastRatios.push(durable / (alone + manual))
    packageSamples.push(durable)
    ratios.push(durable / (floor + plain))
  }

  return {
    packageStep: spread(packageSamples),
    insertFloor: spread(floorSamples),
    plainStep: spread(plainSamples),
    ratio: spread(ratios),
    manualStep: spread(manualSamples),
    manualRatio: spread(manualRatios),
    statementsAlone: spread(statementSamples),
    leastRatio: spread(leastRatios),
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
export async function manualLoop(steps: number, mark: () => void, model = stepperModel(steps)) {
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
 * loops run together; and the least such a crowd can cost, measured in the
 * same round: the AI SDK's manual loop (one `generateText` a step, as a
 * loop that saves each response before acting on it must call the model)
 * plus the runs' own statements, those the round not counted sent, sent
 * again with nothing around them (./statement_replay.ts). Wall time and
 * this process's CPU time of each, over `repetitions` interleaved rounds
 * after one not counted.
 */
export async function measureConcurrentRuns(
  db: Database,
  options: { runs: number; steps: number; repetitions: number }
) {
  const client = db.connection()
  const many = <T>(work: () => Promise<T>) =>
    timed(() => Promise.all(Array.from({ length: options.runs }, work)))
  const samples = {
    wall: [] as number[],
    cpu: [] as number[],
    manualCpu: [] as number[],
    replayCpu: [] as number[],
    leastCpu: [] as number[],
  }
  const walls = { plain: [] as number[], durable: [] as number[], replay: [] as number[] }
  let statementsPerRun = 0
  let replay: { captured: Captured[]; runIds: string[]; digest: string } | undefined
  for (let round = -1; round < options.repetitions; round++) {
    const plainModel = stepperModel(options.steps)
    const plain = await many(() => plainLoop(plainModel, options.steps))
    const manualModel = stepperModel(options.steps)
    const manual = await many(() => manualLoop(options.steps, () => {}, manualModel))

    const agents = stepperAgents(options.steps)
    let runIds: string[] = []
    const crowd = () =>
      timed(async () => {
        const runs = await Promise.all(
          Array.from({ length: options.runs }, () =>
            agents.start('stepper', { input: 'Look up every key', owner: null })
          )
        )
        runIds = runs.map((run) => run.id)
        await agents.idle()
      })
    // The round not counted keeps its statements for the replay
    const kept = replay
      ? { result: await crowd(), captured: [] }
      : await captureStatements(db, crowd)
    const durable = kept.result
    for (const id of runIds) {
      const finished = await agents.run(id)
      if (finished?.status !== 'completed') throw new Error(`A run ended ${finished?.status}`)
    }
    if (!replay) {
      replay = { captured: kept.captured, runIds, digest: await runRowsDigest(client, runIds) }
      // Those that read or write: not BEGIN, COMMIT or a savepoint
      const counted = kept.captured.filter(({ sql }) =>
        /^\s*(insert|update|delete|select|with)\b/i.test(sql)
      )
      statementsPerRun = counted.length / options.runs
    }

    await deleteRunRows(client, replay.runIds)
    const replayed = await timed(() => replayStatements(client, replay!.captured))
    const digest = await runRowsDigest(client, replay.runIds)
    if (digest !== replay.digest) {
      throw new Error(`The replay wrote ${digest}, the runs had written ${replay.digest}`)
    }
    if (round < 0) continue
    samples.wall.push(durable.wall / plain.wall)
    samples.cpu.push(durable.cpu / plain.cpu)
    samples.manualCpu.push(manual.cpu / plain.cpu)
    samples.replayCpu.push(replayed.cpu / plain.cpu)
    samples.leastCpu.push((manual.cpu + replayed.cpu) / plain.cpu)
    walls.plain.push(plain.wall)
    walls.durable.push(durable.wall)
    walls.replay.push(replayed.wall)
  }
  return {
    wallRatio: spread(samples.wall),
    cpuRatio: spread(samples.cpu),
    /** The manual loops' CPU / the plain loops' */
    manualCpuRatio: spread(samples.manualCpu),
    /** The runs' own statements sent again alone, CPU / the plain loops' */
    replayCpuRatio: spread(samples.replayCpu),
    /** (manual loops + the statements alone) / plain loops, CPU: the least the durable crowd can cost */
    leastCpuRatio: spread(samples.leastCpu),
    plainWall: spread(walls.plain),
    durableWall: spread(walls.durable),
    replayWall: spread(walls.replay),
    statementsPerRun,
  }
}

/**
 * A full garbage collection, so that what one measurement left behind is
 * not collected, and counted, in the next (a crowd leaves hundreds of
 * megabytes: the plain loops after it took 250 to 500 ms of CPU by turns).
 */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
})()

/** The wall and CPU milliseconds `work` took, from a collected heap */
async function timed<T>(work: () => Promise<T>) {
  collectGarbage()
  const started = performance.now()
  const cpu = process.cpuUsage()
  await work()
  return { wall: performance.now() - started, cpu: cpuMs(process.cpuUsage(cpu)) }
}

function cpuMs(usage: NodeJS.CpuUsage) {
  return (usage.user + usage.system) / 1000
}
