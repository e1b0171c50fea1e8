/*
 * Traces across a pause (docs/guides/operating.md, "Traces"). A run with
 * an intake, a question and an approval is started and settled over HTTP
 * by this process (the web side, its spans kept by the SDK's in-memory
 * exporter, each request under a server span as `@adonisjs/otel` opens
 * one) and driven by a `node ace queue:work` worker in another process,
 * whose spans come through the real OTLP/HTTP exporter to a receiver
 * written here. Each drive that resumes the run links to the drive that
 * opened the row it reads and to the settle that answered it; the AI SDK's
 * spans are children of a step; the answer's marker is in no attribute.
 */

import { test } from '@japa/runner'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { context, SpanKind, trace } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { defineConfig as defineRedisConfig } from '@adonisjs/redis'
import { defineConfig as defineQueueConfig, drivers } from '@adonisjs/queue'
import { defineConfig as defineLockConfig, stores } from '@adonisjs/lock'
import { DateTime } from 'luxon'
import { createHttpApp } from '../helpers/http.ts'
import { createAskRow } from '../helpers/rows.ts'
import { prepareClusterTables, reply, startWorker, REDIS } from '../helpers/cluster.ts'
import { defineConfig } from '../../src/define_config.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { crashAgent, ANSWER } from '../fixtures/crash_agent.ts'
import {
  exportTraces,
  traceInMemory,
  TRACE_INTAKE,
  TRACED_AGENT,
} from '../fixtures/traced_process.ts'

/** What the person types in the intake: no span may carry it */
const MARKER = 'zebra-marker-7731'

/** A span as it arrived over OTLP/HTTP (JSON), flattened */
type Received = {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  scope: string
  attributes: Record<string, unknown>
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[]
}

type OtlpValue = Record<string, unknown> & { arrayValue?: { values: OtlpValue[] } }
type OtlpKeyValue = { key: string; value: OtlpValue }

/** An OTLP JSON AnyValue as a plain value */
function valueOf(value: OtlpValue): unknown {
  if (value.arrayValue) return value.arrayValue.values.map(valueOf)
  const [only] = Object.values(value)
  return typeof only === 'string' && 'intValue' in value ? Number(only) : only
}

function attributesOf(list: OtlpKeyValue[] = []) {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]))
}

/**
 * A loopback OTLP/HTTP receiver: decodes each export by its content type
 * (the exporter sends JSON) and answers as a collector does.
 */
async function otlpReceiver() {
  const spans: Received[] = []
  const contentTypes = new Set<string>()
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const type = String(request.headers['content-type'])
      contentTypes.add(type)
      if (request.url !== '/v1/traces' || !type.startsWith('application/json')) {
        response.writeHead(415).end()
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              scope: scope.scope?.name,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map((link: any) => ({
                traceId: link.traceId,
                spanId: link.spanId,
                attributes: attributesOf(link.attributes),
              })),
            })
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined) {
  const began = Date.now()
  while (Date.now() - began < 30_000) {
    const value = await check()
    if (value !== undefined) return value
    await sleep(50)
  }
  throw new Error(`Still waiting for ${what}`)
}

const pendingRow = (runId: string, kind: string) =>
  until(`a pending ${kind} row`, async () => {
    const row = await ToolCall.query()
      .where('run_id', runId)
      .where('kind', kind)
      .where('status', 'pending')
      .first()
    return row ?? undefined
  })

/** The web side's app, as tests/fixtures/cluster_app.ts's web role with Redis */
async function webApp() {
  const agent = crashAgent({
    modelLog: '/dev/null',
    actionLog: '/dev/null',
    name: TRACED_AGENT,
    intake: TRACE_INTAKE,
  })
  const agents = defineConfig({
    agents: [agent],
    executor: 'queue',
    leaseTtl: 3000,
    recoverOnStart: false,
    recoverInterval: 0,
    sweepInterval: 0,
    inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
  })
  return createHttpApp({
    providers: [
      () => import('@adonisjs/redis/redis_provider'),
      () => import('@adonisjs/queue/queue_provider'),
      () => import('@adonisjs/lock/lock_provider'),
    ],
    config: {
      redis: defineRedisConfig({ connection: 'main', connections: { main: REDIS } }),
      queue: defineQueueConfig({
        default: 'redis',
        adapters: { redis: drivers.redis() },
        locations: [],
      }),
      lock: defineLockConfig({ default: 'shared', stores: { shared: stores.redis({}) } }),
    },
    agents,
    preload: async (app) => {
      // The server span `@adonisjs/otel` opens around each request
      const router = await app.container.make('router')
      router.use([
        async () => ({
          default: class {
            handle(ctx: any, next: () => Promise<void>) {
              const tracer = trace.getTracer('http')
              const name = `${ctx.request.method()} ${ctx.request.url()}`
              return tracer.startActiveSpan(name, { kind: SpanKind.SERVER }, async (span) => {
                try {
                  await next()
                } finally {
                  span.end()
                }
              })
            }
          },
        }),
      ])
    },
  })
}

test.group('Traces', () => {
  test('a run resumed by a worker in another process links to the drive that opened its row and to the settle', async ({
    assert,
    cleanup,
  }) => {
    const receiver = await otlpReceiver()
    cleanup(() => receiver.close())
    const { exporter, provider } = traceInMemory('web')
    cleanup(async () => {
      await provider.shutdown()
      trace.disable()
    })
    const http = await webApp()
    cleanup(() => http.terminate())
    await prepareClusterTables(http.db, 'redis')
    const worker = await startWorker({ OTLP_TRACES: receiver.url, RECOVER_ON_START: '0' })
    cleanup(() => worker.kill())

    const runtime = await http.app.container.make('agents.runtime')
    const run = await runtime.start(TRACED_AGENT, { input: 'shed', owner: 'user:1' })
    const intake = await pendingRow(run.id, 'intake')
    assert.equal(await reply(http.baseUrl, intake, { answers: { note: [MARKER] } }), 200)
    const ask = await pendingRow(run.id, 'ask')
    assert.equal(await reply(http.baseUrl, ask, ANSWER), 200)
    const approval = await pendingRow(run.id, 'action')
    assert.equal(await reply(http.baseUrl, approval, { approved: true }), 200)
    await until('the run to complete', async () => {
      const fresh = await AgentRun.findOrFail(run.id)
      return fresh.status === 'completed' ? true : undefined
    })

    // The worker's spans, over OTLP: four drives (each wait ends one), the last one completing
    const drives = await until('four drives exported', () => {
      const found = receiver.spans.filter(
        (span) =>
          span.scope === 'adonis-agent-inbox' && span.name === `invoke_agent ${TRACED_AGENT}`
      )
      const done = found.some((span) => span.attributes['agent_inbox.run.status'] === 'completed')
      return found.length >= 4 && done ? found : undefined
    })
    assert.deepEqual([...receiver.contentTypes], ['application/json'])
    assert.deepEqual(
      drives.map((span) => span.attributes['agent_inbox.run.status']),
      ['waiting', 'waiting', 'waiting', 'completed']
    )
    for (const drive of drives) {
      assert.equal(drive.attributes['gen_ai.agent.name'], TRACED_AGENT)
      assert.equal(drive.attributes['gen_ai.operation.name'], 'invoke_agent')
    }

    // This process's spans: the settles, each under its request's server span
    const local = exporter.getFinishedSpans()
    const idOf = (span: ReadableSpan) => span.spanContext().spanId
    const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
    const settles = local.filter((span) => span.name === 'agent_inbox.settle')
    assert.lengthOf(settles, 3)
    for (const settle of settles) {
      const parent = local.find((span) => idOf(span) === parentOf(settle))
      assert.equal(parent?.kind, SpanKind.SERVER, 'a settle is a child of its request span')
      assert.match(parent!.name, /^POST \/inbox\/rows\/.+\/reply$/)
    }
    const settleOf = (row: ToolCall) =>
      settles.find((span) => span.attributes['agent_inbox.row.id'] === row.id)!

    // Each resumed drive links to the drive that opened its row and to that row's settle
    for (const [index, row] of [intake, ask, approval].entries()) {
      const opener = drives[index]
      const resumed = drives[index + 1]
      const links = resumed.links.filter((link) => link.attributes['agent_inbox.row.id'] === row.id)
      assert.sameDeepMembers(
        links.map((link) => [link.attributes['agent_inbox.link'], link.spanId]),
        [
          ['opened', opener.spanId],
          ['settled', idOf(settleOf(row))],
        ],
        `the drive after the ${row.kind} links to its opener and its settle`
      )
      assert.equal(settleOf(row).spanContext().traceId !== opener.traceId, true)
    }

    // The waits, recorded at the settle, children of the drives that opened them
    const waits = local.filter((span) => span.name.startsWith('agent_inbox.wait'))
    assert.sameMembers(
      waits.map((span) => `${span.attributes['agent_inbox.row.kind']} ${parentOf(span)}`),
      [intake, ask, approval].map((row, index) => `${row.kind} ${drives[index].spanId}`)
    )
    for (const wait of waits) {
      assert.equal(wait.attributes['agent_inbox.via'], 'api')
      assert.isAbove(Number(wait.attributes['agent_inbox.time_to_decision_ms']), 0)
    }

    // The AI SDK's spans (its `gen_ai` tracer) hang under a step of the package
    const byId = new Map(receiver.spans.map((span) => [span.spanId, span]))
    const aiRoots = receiver.spans.filter(
      (span) => span.scope === 'gen_ai' && byId.get(span.parentSpanId!)?.scope !== 'gen_ai'
    )
    assert.lengthOf(aiRoots, 3, 'one generateText per step: ask, paint, final')
    for (const root of aiRoots) {
      assert.match(byId.get(root.parentSpanId!)!.name, /^agent_inbox\.step \d$/)
    }
    const tool = receiver.spans.find((span) => span.name === 'execute_tool paint')!
    assert.match(String(tool.attributes['agent_inbox.idempotency_key']), /.+/)
    assert.equal(tool.attributes['agent_inbox.execution.attempt'], 1)

    // The answer is in no attribute of either process (recording is off)
    const everything = JSON.stringify([
      receiver.spans,
      local.map((span) => [span.name, span.attributes, span.links, span.events]),
    ])
    assert.notInclude(everything, MARKER)
    assert.include(JSON.stringify(await ToolCall.findOrFail(intake.id)), MARKER)
  }).timeout(90_000)

  test('the OTLP/HTTP exporter delivers the package spans with their attributes; an expiry and a quorum’s last vote record their settle', async ({
    assert,
    cleanup,
  }) => {
    const receiver = await otlpReceiver()
    cleanup(() => receiver.close())
    const provider = exportTraces(receiver.url, 'sweeper')
    cleanup(async () => {
      await provider.shutdown()
      trace.disable()
    })
    const http = await webApp()
    cleanup(() => http.terminate())
    const runtime = await http.app.container.make('agents.runtime')
    // A question set an hour past its expiry: the sweep settles it on its defaults
    const due = await createAskRow({
      createdAt: DateTime.now().minus({ hours: 2 }),
      expiresAt: DateTime.now().minus({ hours: 1 }),
    })
    assert.equal(await runtime.sweep({ resume: false }), 1)
    await provider.forceFlush()
    const sweep = await until('the sweep span', () =>
      receiver.spans.find((span) => span.name === 'agent_inbox.sweep')
    )
    assert.equal(sweep.scope, 'adonis-agent-inbox')
    assert.match(sweep.traceId, /^[0-9a-f]{32}$/)
    assert.match(sweep.spanId, /^[0-9a-f]{16}$/)
    assert.strictEqual(sweep.attributes['agent_inbox.sweep.expired'], 1)
    // The wait the expiry ended: two hours long, linked to the sweep that ended it
    const wait = await until('the expired row’s wait span', () =>
      receiver.spans.find((span) => span.name === 'agent_inbox.wait ask')
    )
    assert.equal(wait.attributes['agent_inbox.row.id'], due.id)
    assert.equal(wait.attributes['agent_inbox.via'], 'expiry')
    assert.closeTo(Number(wait.attributes['agent_inbox.time_to_decision_ms']), 7_200_000, 60_000)
    assert.deepEqual(
      wait.links.map((link) => link.spanId),
      [sweep.spanId]
    )
    // The row keeps the sweep as its settle, for the drive that resumes the run to link to
    const expired = await ToolCall.findOrFail(due.id)
    assert.equal(expired.status, 'expired')
    assert.equal(expired.settledTrace, `00-${sweep.traceId}-${sweep.spanId}-01`)

    // A quorum's last vote settles the row under the vote's span (the request's), kept the same way
    const run = await AgentRun.create({
      agent: TRACED_AGENT,
      ownerId: 'ada',
      status: 'waiting',
      input: { task: 'shed' },
    })
    const voted = await runtime.inbox.open(
      run,
      { kind: 'action', toolName: 'paint', args: { color: 'red' }, summary: 'Paint the shed red' },
      {
        quorum: {
          stages: [{ approvers: ['grace'], quorum: 1 }],
          excludeRequester: false,
          requester: 'ada',
        },
      }
    )
    const request = trace.getTracer('test').startSpan('POST /inbox/rows/:id/reply')
    const settled = await context.with(trace.setSpan(context.active(), request), () =>
      runtime.inbox.settle(voted.id, { approved: true }, { by: 'grace', via: 'web' })
    )
    request.end()
    assert.equal(settled.status, 'approved')
    const { traceId, spanId } = request.spanContext()
    const approved = await ToolCall.findOrFail(voted.id)
    assert.equal(approved.settledTrace, `00-${traceId}-${spanId}-01`)
  })
})
