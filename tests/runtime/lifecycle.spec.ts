/*
 * A run's life besides asking: provider failures and retries that reuse
 * earlier answers (docs/design.md §4.5), cancellation with late replies (§8.4),
 * tool calls the runtime refuses (unknown tool, bad input) and the step
 * limit, the reserved ask tool name at definition and at boot (§4.6),
 * and the events a run emits on its way.
 */

import { mkdir, rm, writeFile } from 'node:fs/promises'
import { test } from '@japa/runner'
import { IgnitorFactory } from '@adonisjs/core/factories'
import vine from '@vinejs/vine'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  ask,
  call,
  createAgents,
  DB_QUESTION,
  deployTools,
  eventRecorder,
  failWith,
  providerError,
  rowsOf,
  say,
  scriptedModel,
  toolResultOf,
  toolResults,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { defineAgent, type AgentOptions } from '../../src/runtime/define_agent.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import {
  E_CANCELLED,
  E_NOT_RETRYABLE,
  E_RESERVED_TOOL_NAME,
  RUN_FAILURES,
} from '../../src/errors.ts'
import type { EventSink } from '../../src/events.ts'
import { strandedRuns } from '../../src/runtime/stranded.ts'

/**
 * A scripted model, the deploy tools and a factory of fresh runtimes
 * around one agent, all reporting to one events recorder.
 */
function setup(steps: ScriptStep[], options: Partial<AgentOptions> = {}) {
  const model = scriptedModel(steps)
  const tools = deployTools()
  const events = eventRecorder()
  const runtime = () =>
    createAgents({
      events: events as EventSink,
      agents: [
        defineAgent({
          name: 'deployer',
          model,
          instructions: 'Deploy safely.',
          tools: [tools.deploy, tools.readLogs],
          ...options,
        }),
      ],
    })
  return { model, runtime, events: events.names, executions: tools.executions }
}

test.group(`Runtime lifecycle | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('a retried run gets its earlier answer from memory after {code}')
    .with([
      { code: 'E_PROVIDER_RETRYABLE', retryable: true, attempts: 3 },
      { code: 'E_PROVIDER', retryable: false, attempts: 1 },
    ])
    .run(async ({ assert }, { code, retryable, attempts }) => {
      // The SDK retries a retryable error twice itself before giving up
      const failing = Array.from({ length: attempts }, () => failWith(providerError(retryable)))
      const reworded = { questions: [{ ...DB_QUESTION.questions[0], defaults: ['mysql'] }] }
      const { model, runtime, events } = setup([
        [ask('c1', DB_QUESTION)],
        ...failing,
        [ask('c1', reworded)],
        [say('Using MySQL.')],
      ])
      const first = runtime()
      const run = await first.start('deployer', { input: 'set up a db', owner: 'user:1' })
      await first.idle()
      const [asked] = await rowsOf(run.id)

      const answering = runtime()
      await answering.inbox.settle(
        asked.id,
        { answers: { db: ['mysql'] } },
        { by: 'user:1', via: 'api' }
      )
      await answering.idle()

      await run.refresh()
      assert.equal(run.status, 'failed')
      assert.equal(run.errorCode, code)
      assert.include(run.error, retryable ? 'Overloaded, try again' : 'Invalid API key')
      assert.lengthOf(model.doGenerateCalls, 1 + attempts)
      assert.equal(events.at(-1), 'agents:run:failed')

      // Replayed by a fresh runtime: the same question is not asked again
      const retrying = runtime()
      await retrying.retry(run.id)
      await retrying.idle()

      await run.refresh()
      assert.equal(run.status, 'completed')
      assert.equal(run.attempt, 2)
      assert.isNull(run.errorCode)
      assert.deepEqual(run.result, { text: 'Using MySQL.' })
      assert.lengthOf(model.doGenerateCalls, attempts + 3)
      const replayed = model.doGenerateCalls[1 + attempts]
      assert.deepEqual(toolResults(replayed), [], 'the replay starts from the input again')
      const answer = toolResultOf(model.doGenerateCalls[2 + attempts], 'c1')
      assert.include(answer.value, 'The person answered your questions.')
      assert.include(answer.value, 'Answer: MySQL')

      const rows = await rowsOf(run.id)
      assert.deepEqual(
        rows.map((row) => [row.attempt, row.toolCallId, row.status, row.answeredVia]),
        [
          [1, 'c1', 'answered', 'api'],
          [2, 'c1', 'answered', 'memory'],
        ]
      )
      assert.equal(rows[1].answeredBy, 'user:1')
      assert.deepEqual(rows[1].outcome, rows[0].outcome)
      assert.lengthOf(
        events.filter((name) => name === 'agents:row:created'),
        1,
        'only the first ask waited for a person'
      )
    })

  test('only a failed run can be retried: others get E_NOT_RETRYABLE', async ({ assert }) => {
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Using PostgreSQL.')]])
    const agents = runtime()
    const run = await agents.start('deployer', { input: 'set up a db', owner: 'user:1' })
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'waiting')

    const waiting = await agents.retry(run.id).catch((caught) => caught)
    assert.instanceOf(waiting, E_NOT_RETRYABLE)
    assert.equal(waiting.code, 'E_NOT_RETRYABLE')
    assert.equal(waiting.status, 409)
    assert.include(waiting.message, `Run ${run.id} is waiting`)
    assert.include(waiting.message, 'only a failed run can be retried')

    const [asked] = await rowsOf(run.id)
    await agents.inbox.settle(asked.id, { skip: true }, { by: 'user:1', via: 'api' })
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')

    const completed = await agents.retry(run.id).catch((caught) => caught)
    assert.instanceOf(completed, E_NOT_RETRYABLE)
    assert.include(completed.message, 'is completed')
    await run.refresh()
    assert.equal(run.attempt, 1, 'a refused retry leaves the run as it was')
    assert.lengthOf(model.doGenerateCalls, 2)
  })

  test('a cancelled run cancels its pending row; a late reply gets E_CANCELLED', async ({
    assert,
  }) => {
    const { model, runtime, events } = setup([[ask('c1', DB_QUESTION)]])
    const first = runtime()
    const run = await first.start('deployer', { input: 'set up a db', owner: 'user:1' })
    await first.idle()

    const cancelled = await runtime().cancel(run.id)
    assert.equal(cancelled.status, 'cancelled')
    assert.isNotNull(cancelled.finishedAt)
    const [row] = await rowsOf(run.id)
    assert.equal(row.status, 'cancelled')
    assert.equal(events.at(-1), 'agents:run:cancelled')

    const late = runtime()
    const error = await late.inbox
      .settle(row.id, { answers: { db: ['mysql'] } }, { by: 'user:1', via: 'web' })
      .catch((caught) => caught)
    assert.instanceOf(error, E_CANCELLED)
    assert.equal(error.code, 'E_CANCELLED')
    assert.equal(error.status, 410)
    await late.idle()

    await run.refresh()
    assert.equal(run.status, 'cancelled')
    await row.refresh()
    assert.equal(row.status, 'cancelled')
    assert.isNull(row.outcome)
    assert.lengthOf(model.doGenerateCalls, 1)
  })

  test('a cancelled run never runs the action that waited for approval', async ({ assert }) => {
    const { model, runtime, executions } = setup([[call('d1', 'deploy', { branch: 'main' })]])
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship main', owner: 'user:1' })
    await first.idle()

    await runtime().cancel(run.id)
    const [row] = await rowsOf(run.id)
    const late = runtime()
    const error = await late.inbox
      .settle(row.id, { approved: true }, { by: 'user:1', via: 'web' })
      .catch((caught) => caught)
    assert.instanceOf(error, E_CANCELLED)
    await late.driver.drive(run.id)
    await late.idle()

    assert.deepEqual(executions, [])
    await run.refresh()
    assert.equal(run.status, 'cancelled')
    assert.lengthOf(model.doGenerateCalls, 1)
  })

  test('a run cancelled while its tool runs is not sent to the model again', async ({ assert }) => {
    const model = scriptedModel([
      [call('w1', 'watch', {})],
      [say('This step must never be asked for.')],
    ])
    const canceller = createAgents({ agents: [] })
    const watch = defineTool({
      name: 'watch',
      description: 'Watch the deploy',
      kind: 'read',
      input: vine.object({}),
      // A person cancels the run (through another runtime) while this runs
      handle: async (_input, context) => {
        await canceller.cancel(context.runId)
        return 'watched'
      },
    })
    const events = eventRecorder()
    const agents = createAgents({
      events: events as EventSink,
      agents: [defineAgent({ name: 'watcher', model, instructions: 'Watch.', tools: [watch] })],
    })
    const run = await agents.start('watcher', { input: 'watch', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'cancelled')
    assert.isNull(run.result)
    assert.lengthOf(model.doGenerateCalls, 1)
    const [row] = await rowsOf(run.id)
    assert.equal(row.execution, 'succeeded', 'the call that was running finished')
    assert.notInclude(events.names, 'agents:run:completed')
  })

  test('unknown tools and invalid input go back to the model and the run continues', async ({
    assert,
  }) => {
    const { model, runtime, executions } = setup([
      [
        call('u1', 'launch_rockets', { count: 3 }),
        call('u2', 'deploy', '{"branch": "main"'),
        call('u3', 'deploy', { branch: '' }),
      ],
      [call('r1', 'read_logs', { service: 'api' })],
      [say('The api is quiet; nothing was deployed.')],
    ])
    const agents = runtime()
    const run = await agents.start('deployer', { input: 'ship main', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(executions, [])
    assert.lengthOf(model.doGenerateCalls, 3)

    const errors = toolResults(model.doGenerateCalls[1])
    assert.deepEqual(
      errors.map((result) => [result.toolCallId, result.type]),
      [
        ['u1', 'error-text'],
        ['u2', 'error-text'],
        ['u3', 'error-text'],
      ]
    )
    assert.include(errors[0].value, "unavailable tool 'launch_rockets'")
    assert.include(errors[1].value, 'Invalid input for tool deploy')
    assert.include(errors[1].value, 'JSON parsing failed')
    assert.include(errors[2].value, 'Invalid input for tool "deploy":\nbranch: ')
    assert.include(errors[2].value, 'Nothing was run. Fix the input and call the tool again.')

    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.toolCallId, row.kind, row.status]),
      [['r1', 'read', 'auto']],
      'refused calls leave no row and nothing pending'
    )
    assert.equal(toolResultOf(model.doGenerateCalls[2], 'r1').value, 'api: all quiet')
  })

  test('a run that reaches maxSteps fails with E_MAX_STEPS', async ({ assert }) => {
    const { model, runtime } = setup(
      [[call('r1', 'read_logs', { service: 'api' })], [call('r2', 'read_logs', { service: 'db' })]],
      { maxSteps: 2 }
    )
    const agents = runtime()
    const run = await agents.start('deployer', { input: 'watch logs', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'failed')
    assert.equal(run.errorCode, 'E_MAX_STEPS')
    assert.equal(run.errorCode, RUN_FAILURES.maxSteps)
    assert.include(run.error, 'limit of 2 model calls')
    assert.isNotNull(run.finishedAt)
    assert.lengthOf(model.doGenerateCalls, 2)
    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.toolCallId, row.execution]),
      [
        ['r1', 'succeeded'],
        ['r2', 'succeeded'],
      ]
    )
  })

  test('a tool named like the ask tool is refused at definition and at boot', async ({
    assert,
  }) => {
    const reserved = defineTool({
      name: 'ask',
      description: 'Ask something',
      kind: 'read',
      input: vine.object({}),
      handle: () => null,
    })
    const definition = () =>
      defineAgent({ name: 'nosy', model: 'test-model', instructions: 'x', tools: [reserved] })
    assert.throws(
      definition,
      /reserved for the built-in ask tool\. Rename the tool of agent "nosy"/
    )
    const error = (() => {
      try {
        definition()
      } catch (caught) {
        return caught
      }
    })()
    assert.instanceOf(error, E_RESERVED_TOOL_NAME)
    assert.equal((error as InstanceType<typeof E_RESERVED_TOOL_NAME>).code, 'E_RESERVED_TOOL_NAME')

    // An app whose config/agents.ts defines such an agent does not boot
    const root = new URL(`../../tmp/reserved-app-${process.pid}/`, import.meta.url)
    const source = (path: string) => new URL(`../../src/${path}`, import.meta.url).href
    await mkdir(new URL('config/', root), { recursive: true })
    await writeFile(
      new URL('config/agents.ts', root),
      [
        `import vine from '@vinejs/vine'`,
        `import { defineConfig } from '${source('define_config.ts')}'`,
        `import { defineAgent } from '${source('runtime/define_agent.ts')}'`,
        `import { defineTool } from '${source('runtime/define_tool.ts')}'`,
        ``,
        `const ask = defineTool({ name: 'ask', description: 'Ask', kind: 'read', input: vine.object({}), handle: () => null })`,
        `export default defineConfig({`,
        `  agents: [defineAgent({ name: 'nosy', model: 'test-model', instructions: 'x', tools: [ask] })],`,
        `})`,
      ].join('\n')
    )
    try {
      const app = new IgnitorFactory()
        .merge({
          rcFileContents: { providers: [() => import('../../providers/agent_inbox_provider.ts')] },
        })
        .create(root, { importer: (filePath) => import(filePath) })
        .createApp('console')
      await app.init()
      const booting = await app.boot().catch((caught) => caught)
      assert.instanceOf(booting, E_RESERVED_TOOL_NAME)
      assert.equal(app.getState(), 'initiated', 'the app never booted')
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })

  test('an executor that drives elsewhere gets the run before the resumed event reads it', async ({
    assert,
  }) => {
    const { runtime, events } = setup([[ask('c1', DB_QUESTION)], [say('Using MySQL.')]])
    const first = runtime()
    const run = await first.start('deployer', { input: 'set up a db', owner: 'user:1' })
    await first.idle()

    // A queue's stand-in: it notes the hand-off in the event list; its "worker" drives on idle()
    const elsewhere = createAgents({
      events: { emit: async (name: string) => void events.push(name) } as EventSink,
      agents: [
        defineAgent({
          name: 'deployer',
          model: scriptedModel([[say('Using MySQL.')]]),
          instructions: 'Deploy safely.',
        }),
      ],
      executor: (driver) => {
        const queued: string[] = []
        return {
          drivesElsewhere: true,
          resume: (runId) => {
            events.push(`resume ${runId === run.id ? 'run' : runId}`)
            queued.push(runId)
          },
          idle: async () => {
            for (const runId of queued.splice(0)) await driver.drive(runId)
          },
        }
      },
    })
    events.length = 0
    const [row] = await rowsOf(run.id)
    await elsewhere.inbox.settle(row.id, { skip: true }, { by: 'user:1', via: 'api' })
    await elsewhere.idle()
    assert.deepEqual(events.slice(0, 3), ['agents:row:settled', 'resume run', 'agents:run:resumed'])
    await run.refresh()
    assert.equal(run.status, 'completed')
  })

  test('a recovery pass that read the run as its row was created does not make it wait twice', async ({
    assert,
  }) => {
    /*
     * The sweep tick's recovery reads the runs it resumes in one query and
     * drives them after: read right after a row was created, the run was
     * still `running` under this process's lease, and by its turn the run
     * waits on that row. Its drive must find nothing to do.
     */
    const model = scriptedModel([[ask('c1', DB_QUESTION)], [say('Using MySQL.')]])
    const events: string[] = []
    const readByTheTick: string[] = []
    let agents: ReturnType<typeof createAgents> | undefined
    const sink: EventSink = {
      emit: async (name) => {
        events.push(name)
        if (name !== 'agents:row:created') return
        for (const { id } of await strandedRuns(agents!.driver.owner)) readByTheTick.push(id)
      },
    }
    agents = createAgents({
      events: sink,
      agents: [defineAgent({ name: 'deployer', model, instructions: 'Deploy safely.' })],
    })
    const run = await agents.start('deployer', { input: 'set up a db', owner: 'user:1' })
    await agents.idle()
    assert.include(readByTheTick, run.id, 'the tick read the run while its drive held it')

    // The tick's resumes, now that the run waits
    for (const runId of readByTheTick) await agents.executor.resume(runId, 'recover')
    await agents.idle()
    assert.deepEqual(events, ['agents:run:started', 'agents:row:created', 'agents:run:waiting'])
    assert.lengthOf(model.doGenerateCalls, 1, 'the model was not called again')
    await run.refresh()
    assert.equal(run.status, 'waiting')
    assert.isNull(run.leaseOwner)
    const [row] = await rowsOf(run.id)
    assert.equal(row.status, 'pending')

    await agents.inbox.settle(row.id, { answers: { db: ['mysql'] } }, { by: 'user:1', via: 'api' })
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(events.slice(3), [
      'agents:row:settled',
      'agents:run:resumed',
      'agents:run:completed',
    ])
  })

  test('a run that asks and completes emits its events in order', async ({ assert }) => {
    const { runtime, events } = setup([[ask('c1', DB_QUESTION)], [say('Using MySQL.')]])
    const first = runtime()
    const run = await first.start('deployer', { input: 'set up a db', owner: 'user:1' })
    await first.idle()
    assert.deepEqual(events, ['agents:run:started', 'agents:row:created', 'agents:run:waiting'])

    const fresh = runtime()
    const [row] = await rowsOf(run.id)
    await fresh.inbox.settle(row.id, { answers: { db: ['mysql'] } }, { by: 'user:1', via: 'api' })
    await fresh.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(events, [
      'agents:run:started',
      'agents:row:created',
      'agents:run:waiting',
      'agents:row:settled',
      'agents:run:resumed',
      'agents:run:completed',
    ])
  })
})
