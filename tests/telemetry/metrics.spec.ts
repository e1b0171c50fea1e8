/*
 * The metrics (src/telemetry/) match the database after a scripted day: a
 * real OpenTelemetry MeterProvider is registered as the global one, the
 * app boots (the provider starts the metrics with the runtime), 1,000
 * rows are opened and settled through the inbox's own paths — answers,
 * skips, approvals and rejections on several channels, a quorum's votes,
 * rows expired by the sweep, some left pending — and runs are driven,
 * settled, resumed and recovered from a dead process's lapsed lease. Then
 * what the reader collects must equal what COUNT(*) and SUM() say on the
 * tables: the counters, the histograms' counts and sums, the gauges.
 */

import { test } from '@japa/runner'
import { metrics } from '@opentelemetry/api'
import {
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics'
import { DateTime } from 'luxon'
import type { Database } from '@adonisjs/lucid/database'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createRun, DEPLOY_QUESTIONS, rowsAgent } from '../helpers/rows.ts'
import { ask, DB_QUESTION, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { Agents } from '../../src/runtime/agents.ts'

/** A reader the test collects from when it wants */
class CollectingReader extends MetricReader {
  protected async onForceFlush() {}
  protected async onShutdown() {}
}

type Attrs = Record<string, unknown>

async function collect(reader: MetricReader): Promise<Map<string, MetricData>> {
  const { resourceMetrics } = await reader.collect()
  const byName = new Map<string, MetricData>()
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric)
  }
  return byName
}

/** A metric's points as `key → value`, the key made of the named attributes */
function pointsBy<T>(
  metric: MetricData | undefined,
  names: string[],
  value: (point: DataPoint<any>) => T
) {
  const points = new Map<string, T>()
  for (const point of (metric?.dataPoints ?? []) as DataPoint<any>[]) {
    const key = names.map((name) => String((point.attributes as Attrs)[name] ?? '')).join('|')
    points.set(key, value(point))
  }
  return points
}

/** The sum of a counter's points by the named attributes */
function counted(metric: MetricData | undefined, names: string[]) {
  const totals = new Map<string, number>()
  for (const [key, value] of pointsBy(metric, names, (point) => point.value as number)) {
    totals.set(key, (totals.get(key) ?? 0) + value)
  }
  return Object.fromEntries([...totals].sort())
}

/** A histogram's count and sum over all its points */
function histogramTotals(metric: MetricData | undefined) {
  let count = 0
  let sum = 0
  for (const point of (metric?.dataPoints ?? []) as DataPoint<Histogram>[]) {
    count += point.value.count
    sum += point.value.sum ?? 0
  }
  return { count, sum }
}

/** Rows of a `group by` as `key → count`, the key made of the columns */
function grouped(rows: Record<string, unknown>[], columns: string[]): Record<string, number> {
  return Object.fromEntries(
    rows
      .map((row) => [
        columns.map((column) => String(row[column] ?? '')).join('|'),
        Number(row.total),
      ])
      .sort()
  )
}

const ASKER = defineAgent({
  name: 'asker',
  // By turn: any number of runs, each asks once and then answers
  model: scriptedModel([[ask('q1', DB_QUESTION)], [say('On PostgreSQL.')]], { by: 'turn' }),
  instructions: 'Ask which database.',
})

test.group(`Telemetry | metrics match the database | ${dbName()}`, (group) => {
  let reader: CollectingReader
  let provider: MeterProvider
  let db: Database
  let agents: Agents
  let terminate: () => Promise<void>

  group.setup(async () => {
    reader = new CollectingReader()
    provider = new MeterProvider({ readers: [reader] })
    metrics.setGlobalMeterProvider(provider)
    const testApp = await createTestApp({
      agents: defineConfig({ agents: [rowsAgent(), ASKER], sweepInterval: 0 }),
    })
    db = testApp.db
    // Building the runtime starts the metrics, on the provider registered above
    agents = await testApp.app.container.make('agents.runtime')
    terminate = testApp.terminate
    return async () => {
      await terminate()
      await provider.shutdown()
      metrics.disable()
    }
  })

  test('a day of 1,000 rows: counters, histograms and gauges equal the tables', async ({
    assert,
  }) => {
    // The day's clock: settles happen at it, the sweep expires at it
    const start = DateTime.now()
    let clock = start
    const inbox = new Inbox({ now: () => clock })

    // 1,000 rows of 50 runs: asks, intakes and approvals, 60 of them expiring at noon
    const runs = []
    for (let index = 0; index < 50; index++) runs.push(await createRun(`user:${index % 5}`))
    const rows: ToolCall[] = []
    for (let index = 0; index < 1000; index++) {
      const run = runs[index % runs.length]
      const expiresAt = index % 16 === 0 && index < 950 ? start.plus({ hours: 12 }) : null
      const onExpiry = index % 32 === 0 ? 'reject' : 'defaults'
      const wait =
        index % 3 === 0
          ? ({
              kind: 'action',
              toolName: 'deploy',
              args: { branch: `b${index}` },
              summary: 'Deploy',
            } as const)
          : ({ kind: index % 3 === 1 ? 'ask' : 'intake', set: DEPLOY_QUESTIONS } as const)
      rows.push(await inbox.open(run, wait, { expiresAt, onExpiry }))
    }
    // Ten approvals need two of three approvers
    const quorum = {
      stages: [{ approvers: ['a', 'b', 'c'], quorum: 2 }],
      excludeRequester: false,
      requester: null,
    }
    for (let index = 0; index < 10; index++) {
      rows.push(
        await inbox.open(
          runs[index],
          { kind: 'action', toolName: 'deploy', args: { branch: 'q' }, summary: 'Deploy' },
          { quorum }
        )
      )
    }

    // Through the day, every ten minutes a person settles some: most rows, on four channels
    const vias = ['web', 'api', 'terminal', 'mail']
    let lost = 0
    for (const [index, row] of rows.entries()) {
      // Left to expire, or pending at night: the last row of each run (so none is stranded)
      if (row.expiresAt || (index >= 950 && index < 1000)) continue
      clock = start.plus({ minutes: 10 * (index % 60), seconds: index })
      const via = vias[index % vias.length]
      if (row.request?.approval) {
        await inbox.settle(row.id, { approved: true }, { by: 'a', via })
        await inbox.settle(row.id, { approved: index % 2 === 0 }, { by: 'b', via })
        continue
      }
      const reply =
        row.kind === 'action'
          ? { approved: index % 4 !== 0, reason: 'not now' }
          : index % 5 === 0
            ? { answers: {}, skip: true }
            : { answers: { db: ['mysql'] } }
      await inbox.settle(row.id, reply, { by: `user:${index % 5}`, via })
      // A second reply to a settled row loses (409): nothing more is counted
      if (index % 100 === 1) {
        await inbox.settle(row.id, reply, { by: 'late', via }).catch(() => lost++)
      }
    }
    assert.equal(lost, 10)
    // The sweep past noon expires what nobody answered
    clock = start.plus({ hours: 13 })
    const swept = await inbox.sweepExpired({ now: clock })
    assert.lengthOf(swept, rows.filter((row) => row.expiresAt).length)

    // Runs of the runtime: ten ask, six are answered and finish; one dead process's run is taken over
    const started = []
    for (let index = 0; index < 10; index++) {
      started.push(await agents.start('asker', { input: `go ${index}`, owner: 'user:1' }))
    }
    await agents.idle()
    for (const run of started.slice(0, 6)) {
      const [asked] = await ToolCall.query().where('run_id', run.id).where('status', 'pending')
      await agents.inbox.settle(asked.id, { answers: { db: ['pg'] } }, { by: 'user:1', via: 'web' })
    }
    await agents.idle()
    await AgentRun.create({
      agent: 'asker',
      ownerId: 'user:1',
      status: 'running',
      input: 'left behind',
      leaseOwner: 'dead-host:1:0',
      leaseExpiresAt: DateTime.now().minus({ minutes: 5 }),
    })
    assert.equal(await agents.recover(), 1)
    await agents.idle()

    const collectedAt = DateTime.now()
    const collected = await collect(reader)
    const metric = (name: string) => collected.get(name)

    // Rows opened: every row that waited, by kind and agent
    const opened = await db
      .from('agent_tool_calls')
      .join('agent_runs', 'agent_runs.id', 'agent_tool_calls.run_id')
      .whereIn('kind', ['ask', 'intake', 'action'])
      .groupBy('kind', 'agent_runs.agent')
      .select('kind', 'agent_runs.agent as agent')
      .count('* as total')
    assert.deepEqual(
      counted(metric('agent_inbox.rows.opened'), ['agent_inbox.kind', 'gen_ai.agent.name']),
      grouped(opened, ['kind', 'agent'])
    )
    assert.equal(
      opened.reduce((sum, row) => sum + Number(row.total), 0),
      1010 + 11,
      'the day’s rows and the runs’ questions'
    )

    // Rows settled, by kind, agent, tool, outcome and channel
    const settled = await db
      .from('agent_tool_calls')
      .join('agent_runs', 'agent_runs.id', 'agent_tool_calls.run_id')
      .whereNotNull('settled_at')
      .groupBy('kind', 'agent_runs.agent', 'tool_name', 'agent_tool_calls.status', 'answered_via')
      .select(
        'kind',
        'agent_runs.agent as agent',
        'tool_name',
        'agent_tool_calls.status as status',
        'answered_via'
      )
      .count('* as total')
    const attributes = [
      'agent_inbox.kind',
      'gen_ai.agent.name',
      'gen_ai.tool.name',
      'agent_inbox.outcome',
      'agent_inbox.via',
    ]
    assert.deepEqual(
      counted(metric('agent_inbox.rows.settled'), attributes),
      grouped(settled, ['kind', 'agent', 'tool_name', 'status', 'answered_via'])
    )

    // Time to decision: the histogram's count and sum are the settled rows' and their durations'
    const decided = await ToolCall.query()
      .whereNotNull('settled_at')
      .select('created_at', 'settled_at')
    const seconds = decided.reduce(
      (sum, row) => sum + (row.settledAt!.toMillis() - row.createdAt.toMillis()) / 1000,
      0
    )
    const decisions = histogramTotals(metric('agent_inbox.decision.duration'))
    assert.equal(decisions.count, decided.length)
    assert.closeTo(decisions.sum, seconds, 1e-6 * decided.length)
    assert.isAbove(decisions.sum, decided.length * 60, 'decisions took minutes to hours')

    // Pending rows and the oldest one's age, by kind
    const pending = await db
      .from('agent_tool_calls')
      .where('status', 'pending')
      .groupBy('kind')
      .select('kind')
      .count('* as total')
      .min('created_at as oldest')
    const gauge = (name: string) =>
      pointsBy(metric(name), ['agent_inbox.kind'], (point) => point.value as number)
    const counts = gauge('agent_inbox.rows.pending')
    for (const kind of ['ask', 'intake', 'action']) {
      const row = pending.find((item) => item.kind === kind)
      assert.equal(counts.get(kind), Number(row?.total ?? 0), `pending ${kind} rows`)
      const oldest = readCreatedAt(row?.oldest)
      const age = oldest ? (collectedAt.toMillis() - oldest.toMillis()) / 1000 : 0
      assert.closeTo(
        gauge('agent_inbox.rows.oldest_pending.age').get(kind)!,
        age,
        2,
        `oldest ${kind} row`
      )
    }
    assert.isAbove(counts.get('ask')!, 0)

    // Runs that have not finished, by status
    const live = await db.from('agent_runs').groupBy('status').select('status').count('* as total')
    const byStatus = pointsBy(
      metric('agent_inbox.runs'),
      ['agent_inbox.run.status'],
      (point) => point.value
    )
    for (const status of ['queued', 'running', 'waiting']) {
      const row = live.find((item) => item.status === status)
      assert.equal(byStatus.get(status), Number(row?.total ?? 0), `${status} runs`)
    }

    // Steps and tokens: each model response in a journal is a step of 10 input and 5 output tokens
    const [steps] = await db
      .from('agent_run_journal')
      .where('kind', 'model-response')
      .count('* as total')
    const stepCount = Number(steps.total)
    assert.equal(histogramTotals(metric('agent_inbox.step.duration')).count, stepCount)
    const tokens = pointsBy(
      metric('gen_ai.client.token.usage'),
      ['gen_ai.token.type', 'gen_ai.agent.name'],
      (point) => (point.value as Histogram).sum
    )
    assert.deepEqual(Object.fromEntries(tokens), {
      'input|asker': stepCount * 10,
      'output|asker': stepCount * 5,
    })

    // Recovery: the dead process's run, whose lapsed lease was taken over
    assert.deepEqual(counted(metric('agent_inbox.runs.recovered'), ['agent_inbox.run.status']), {
      running: 1,
    })
    assert.deepEqual(counted(metric('agent_inbox.lease.takeovers'), []), { '': 1 })
  }).timeout(60_000)
})

function readCreatedAt(value: unknown): DateTime | null {
  if (!value) return null
  return ToolCall.$createFromAdapterResult({ created_at: value })!.createdAt
}
