/*
 * A run outlives a deploy (docs/guides/deploying_while_runs_wait.md). A
 * run starts on deploy A and waits on a row; A stops — its runtime is
 * dropped, as a SIGTERM leaves it, or its process is SIGKILLed while an
 * approved action runs (a worker process, tests/fixtures/agent_worker.ts)
 * — and deploy B starts on the same database with changed agent
 * definitions: a new runtime in this process around the same scripted
 * model. Then the row is settled. Each test is one change of the table in
 * the guide: B never runs what its definitions refuse, every row ends in a
 * state that says what became of it, the model is told, and a run that
 * cannot go on ends visibly with its rows closed.
 */

import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import type { SchemaTypes } from '@vinejs/vine/types'
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { dbName } from '../helpers/database.ts'
import { lines, runWorker, useAppWithFiles } from '../helpers/crash_workers.ts'
import {
  call,
  createAgents,
  promptText,
  rowsOf,
  say,
  scriptedModel,
  toolResultOf,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { AGENT_NAME, ANSWER, crashAgent } from '../fixtures/crash_agent.ts'
import { INTAKE } from '../fixtures/deploy_agents.ts'
import { defineAgent, type AgentOptions } from '../../src/runtime/define_agent.ts'
import { defineTool, type ToolDefinition } from '../../src/runtime/define_tool.ts'
import type { RunExecutor } from '../../src/runtime/executor.ts'
import { isFinished } from '../../src/persistence/models/agent_run.ts'
import { InboxEvent } from '../../src/persistence/models/inbox_event.ts'
import { E_CANCELLED, E_UNKNOWN_AGENT } from '../../src/errors.ts'

const FILES = new URL(`../../tmp/across-deploys-${process.pid}/`, import.meta.url)

/** What each deploy's `deploy` action ran, across both deploys */
type Ran = Array<{ deploy: string; args: unknown }>

/**
 * The `deploy` action as one deploy of the app defines it: its input
 * schema, and a handler that notes which deploy ran it with what.
 */
function deployAction(deploy: string, ran: Ran, input: SchemaTypes) {
  return defineTool({
    name: 'deploy',
    description: 'Deploy to production',
    kind: 'action',
    input,
    handle: async (args: unknown) => {
      ran.push({ deploy, args })
      return `deployed by ${deploy}`
    },
  })
}

const BRANCH = () => vine.object({ branch: vine.string() })

/** The deployer agent as one deploy defines it */
function deployer(
  model: ReturnType<typeof scriptedModel>,
  tools: ToolDefinition[],
  more: Partial<AgentOptions> = {}
) {
  return defineAgent({ name: 'deployer', model, instructions: 'Deploy safely.', tools, ...more })
}

/** One model for every run of a test: each run's turn picks its step */
function modelOf(steps: ScriptStep[]) {
  return scriptedModel(steps, { by: 'turn' })
}

/** The model calls of the run started with `input`, in order */
function callsOf(model: ReturnType<typeof scriptedModel>, input: string) {
  return model.doGenerateCalls.filter((options: LanguageModelV4CallOptions) => {
    const first = options.prompt.find((message) => message.role === 'user')
    const part = first?.content[0]
    return part?.type === 'text' && part.text === input
  })
}

/** A deploy that settles rows but never drives a run: deploy A, stopped right after a settle */
const noExecutor = (): RunExecutor => ({ resume() {}, idle: async () => {} })

/**
 * Starts a run on deploy A and lets it reach its wait. Returns the run and
 * its rows then.
 */
async function waitingOnA(agents: ReturnType<typeof createAgents>, input: string) {
  const run = await agents.start('deployer', { input, owner: 'user:1' })
  await agents.idle()
  await run.refresh()
  if (run.status !== 'waiting') throw new Error(`The run should wait; it is ${run.status}`)
  return { run, rows: await rowsOf(run.id) }
}

test.group(`Runtime across deploys | ${dbName()}`, (group) => {
  useAppWithFiles(group, FILES)

  test('the approved action’s tool was removed: the row ends tool-removed, nothing runs, the model is told', async ({
    assert,
  }) => {
    const ran: Ran = []
    const model = modelOf([[call('d1', 'deploy', { branch: 'main' })], [say('Not deployed.')]])
    const a = createAgents({ agents: [deployer(model, [deployAction('A', ran, BRANCH())])] })
    const { run, rows } = await waitingOnA(a, 'ship main')
    const [row] = rows
    assert.equal(row.status, 'pending')

    // Approved on A, which stops before driving it (B refuses to approve it: E_TOOL_REMOVED)
    const stopping = createAgents({
      agents: [deployer(model, [deployAction('A', ran, BRANCH())])],
      executor: noExecutor,
    })
    await stopping.inbox.settle(row.id, { approved: true }, { by: 'user:1', via: 'web' })
    // Deploy B defines the agent without the tool, and drives the run
    const b = createAgents({ agents: [deployer(model, [])] })
    await b.driver.drive(run.id)
    await b.idle()

    assert.deepEqual(ran, [])
    await Promise.all([run.refresh(), row.refresh()])
    assert.equal(run.status, 'completed')
    assert.equal(row.status, 'approved')
    assert.equal(row.execution, 'tool-removed')
    assert.isNotNull(row.executedAt)
    assert.include((row.result as { error: string }).error, 'no longer exists')
    const told = toolResultOf(callsOf(model, 'ship main')[1], 'd1')
    assert.equal(told.type, 'error-text')
    assert.include(told.value, 'The person approved the call to "deploy".')
    assert.include(
      told.value,
      'The "deploy" call was not run: the tool "deploy" no longer exists in this version of the app'
    )
    assert.notInclude(told.value, 'There is no tool named')
    const entries = await InboxEvent.query().where('row_id', row.id).orderBy('id', 'asc')
    assert.deepEqual(
      entries.map((entry) => entry.type),
      ['created', 'settled', 'not-run']
    )
    assert.equal(entries[2].data?.execution, 'tool-removed')

    // Driven again, nothing changes
    assert.equal(await b.driver.drive(run.id), 'completed')
    assert.lengthOf(callsOf(model, 'ship main'), 2)
  })

  test('the rejected action’s tool was removed: the rejection and its reason reach the model', async ({
    assert,
  }) => {
    const ran: Ran = []
    const model = modelOf([[call('d1', 'deploy', { branch: 'main' })], [say('Not deployed.')]])
    const a = createAgents({ agents: [deployer(model, [deployAction('A', ran, BRANCH())])] })
    const { run, rows } = await waitingOnA(a, 'ship main on friday')

    const b = createAgents({ agents: [deployer(model, [])] })
    await b.inbox.settle(
      rows[0].id,
      { approved: false, reason: 'Not on a Friday' },
      { by: 'user:1', via: 'web' }
    )
    await b.idle()

    assert.deepEqual(ran, [])
    await Promise.all([run.refresh(), rows[0].refresh()])
    assert.equal(run.status, 'completed')
    assert.equal(rows[0].status, 'rejected')
    assert.isNull(rows[0].execution)
    const told = toolResultOf(callsOf(model, 'ship main on friday')[1], 'd1')
    assert.include(told.value, 'The person rejected the call to "deploy", so it was not run.')
    assert.include(told.value, '```untrusted\nNot on a Friday\n```')
    assert.include(told.value, 'The tool "deploy" has also been removed from this version')
  })

  test('the tool’s input schema changed: args it refuses or would drop never run; compatible ones do', async ({
    assert,
  }) => {
    const ran: Ran = []
    const model = modelOf([[call('d1', 'deploy', { branch: 'main' })], [say('Done.')]])
    const a = createAgents({ agents: [deployer(model, [deployAction('A', ran, BRANCH())])] })
    const refused = await waitingOnA(a, 'refused')
    const dropped = await waitingOnA(a, 'dropped')
    const edited = await waitingOnA(a, 'edited')
    const compatible = await waitingOnA(a, 'compatible')

    // A settles them (the edit checked against A's schema) and stops before driving anything;
    // a later deploy refuses such approvals itself (E_ARGS_OUTDATED, tests/http/changed_rows.spec.ts)
    const stopping = createAgents({
      agents: [deployer(model, [deployAction('A', ran, BRANCH())])],
      executor: noExecutor,
    })
    await stopping.inbox.settle(
      edited.rows[0].id,
      { approved: true, editedInput: { branch: 'release' } },
      { by: 'user:1', via: 'web' }
    )
    for (const waiting of [refused, dropped]) {
      await stopping.inbox.settle(
        waiting.rows[0].id,
        { approved: true },
        { by: 'user:1', via: 'web' }
      )
    }

    // B: `{ branch }` became a required `{ ref }`
    const b = createAgents({
      agents: [deployer(model, [deployAction('B', ran, vine.object({ ref: vine.string() }))])],
    })
    await b.driver.drive(refused.run.id)
    await b.driver.drive(edited.run.id)
    await b.idle()
    // B': `branch` left out of an otherwise valid schema; Vine would drop it
    const optional = vine.object({ ref: vine.string().optional() })
    const c = createAgents({ agents: [deployer(model, [deployAction('C', ran, optional)])] })
    await c.driver.drive(dropped.run.id)
    await c.idle()
    // B'': a new optional field: the args still fit, and run as approved
    const force = vine.object({ branch: vine.string(), force: vine.boolean().optional() })
    const d = createAgents({ agents: [deployer(model, [deployAction('D', ran, force)])] })
    await d.inbox.settle(compatible.rows[0].id, { approved: true }, { by: 'user:1', via: 'web' })
    await d.idle()

    assert.deepEqual(ran, [{ deploy: 'D', args: { branch: 'main' } }])
    for (const [input, waiting, path] of [
      ['refused', refused, 'ref'],
      ['edited', edited, 'ref'],
      ['dropped', dropped, 'branch'],
    ] as const) {
      const [row] = await rowsOf(waiting.run.id)
      await waiting.run.refresh()
      assert.equal(waiting.run.status, 'completed', input)
      assert.equal(row.status, 'approved', input)
      assert.equal(row.execution, 'invalid-args', input)
      const result = row.result as { error: string; issues: { path: string }[] }
      assert.include(result.error, 'no longer fit the input schema of tool "deploy"', input)
      assert.deepEqual(
        result.issues.map((issue) => issue.path),
        [path],
        input
      )
      const told = toolResultOf(callsOf(model, input)[1], 'd1')
      assert.equal(told.type, 'error-text', input)
      assert.include(told.value, 'The person approved the call to "deploy".', input)
      assert.include(
        told.value,
        'The "deploy" call was not run: its args no longer fit the tool\'s input schema',
        input
      )
      assert.include(told.value, `\n${path}: `, input)
      assert.include(told.value, 'call "deploy" again with args that fit its current schema', input)
    }
    const [compatibleRow] = await rowsOf(compatible.run.id)
    assert.equal(compatibleRow.execution, 'succeeded')
    assert.include(toolResultOf(callsOf(model, 'compatible')[1], 'd1').value, 'deployed by D')
  })

  test('a tool whose schema did not change runs what was approved, even args it would not validate twice', async ({
    assert,
  }) => {
    // A transform's output is what is stored and approved; the same schema refuses it as input
    const ran: Ran = []
    const listed = () =>
      vine.object({ hosts: vine.string().transform((value) => value.split(',')) })
    const model = modelOf([[call('d1', 'deploy', { hosts: 'web-1,web-2' })], [say('Done.')]])
    const a = createAgents({ agents: [deployer(model, [deployAction('A', ran, listed())])] })
    const waiting = await waitingOnA(a, 'listed')
    // The next deploy defines the tool as it was: the approval runs there
    const b = createAgents({ agents: [deployer(model, [deployAction('B', ran, listed())])] })
    await b.inbox.settle(waiting.rows[0].id, { approved: true }, { by: 'user:1', via: 'web' })
    await b.idle()

    assert.deepEqual(ran, [{ deploy: 'B', args: { hosts: ['web-1', 'web-2'] } }])
    const [row] = await rowsOf(waiting.run.id)
    assert.equal(row.execution, 'succeeded')
  })

  test('an edit approved under a changed schema runs as edited; a deploy that changes it again checks it again', async ({
    assert,
  }) => {
    // B's schema transforms its input: the edit B validated is stored as its output, which B refuses as input
    const ran: Ran = []
    const listed = () =>
      vine.object({ hosts: vine.string().transform((value) => value.split(',')) })
    const model = modelOf([[call('d1', 'deploy', { branch: 'main' })], [say('Done.')]])
    const a = createAgents({ agents: [deployer(model, [deployAction('A', ran, BRANCH())])] })
    const runs = await waitingOnA(a, 'edited-in-b')
    const again = await waitingOnA(a, 'edited-in-b-run-in-c')

    const b = createAgents({ agents: [deployer(model, [deployAction('B', ran, listed())])] })
    await b.inbox.settle(
      runs.rows[0].id,
      { approved: true, editedInput: { hosts: 'web-1,web-2' } },
      { by: 'user:1', via: 'web' }
    )
    await b.idle()
    // Settled on B, which stops before driving it; C takes the list as a list
    const stopping = createAgents({
      agents: [deployer(model, [deployAction('B', ran, listed())])],
      executor: noExecutor,
    })
    await stopping.inbox.settle(
      again.rows[0].id,
      { approved: true, editedInput: { hosts: 'web-3' } },
      { by: 'user:1', via: 'web' }
    )
    const list = vine.object({ hosts: vine.array(vine.string()).minLength(2) })
    const c = createAgents({ agents: [deployer(model, [deployAction('C', ran, list)])] })
    await c.driver.drive(again.run.id)
    await c.idle()

    assert.deepEqual(ran, [{ deploy: 'B', args: { hosts: ['web-1', 'web-2'] } }])
    const [row] = await rowsOf(runs.run.id)
    assert.equal(row.execution, 'succeeded')
    const [checkedAgain] = await rowsOf(again.run.id)
    assert.equal(checkedAgain.execution, 'invalid-args')
    const result = checkedAgain.result as { issues: { path: string }[] }
    assert.deepEqual(
      result.issues.map((issue) => issue.path),
      ['hosts']
    )
  })

  test('an approved action was running when A was killed, its tool removed in B: interrupted, and the model is told', async ({
    assert,
  }) => {
    const files = {
      modelLog: fileURLToPath(new URL('killed-model.log', FILES)),
      actionLog: fileURLToPath(new URL('killed-action.log', FILES)),
    }
    const a = createAgents({ agents: [crashAgent(files)] })
    const run = await a.start(AGENT_NAME, { input: 'killed', owner: 'user:1' })
    await a.idle()
    const [askRow] = await rowsOf(run.id)
    await a.inbox.settle(askRow.id, ANSWER, { by: 'user:1', via: 'api' })
    await a.idle()
    const [, actionRow] = await rowsOf(run.id)
    assert.equal(actionRow.status, 'pending')

    // A's process approves the action and is killed while it runs
    const exit = await runWorker('settle', [run.id], {
      MODEL_LOG: files.modelLog,
      ACTION_LOG: files.actionLog,
      CRASH_AT: 'during-execute',
    })
    assert.equal(exit.signal, 'SIGKILL')
    await actionRow.refresh()
    assert.equal(actionRow.execution, 'running')
    const ranOnce = lines(files.actionLog).filter((line) => line.startsWith(`${run.id} `))
    assert.lengthOf(ranOnce, 1)

    // B, without the action: its recovery takes the run once A's lease lapsed
    const b = createAgents({ agents: [crashAgent({ ...files, withoutPaint: true })] })
    for (let poll = 0; poll < 100 && !isFinished(run.status); poll++) {
      if (poll > 0) await sleep(100)
      await b.recover()
      await b.idle()
      await run.refresh()
    }
    assert.equal(run.status, 'completed')
    await actionRow.refresh()
    assert.equal(actionRow.status, 'approved')
    assert.equal(actionRow.execution, 'interrupted')
    assert.deepEqual(
      lines(files.actionLog).filter((line) => line.startsWith(`${run.id} `)),
      ranOnce,
      'never run again'
    )
    const text = (run.result as { text: string }).text
    assert.include(
      text,
      'Paint result (error-text): The person approved the call to "paint".\nThe "paint" call was interrupted by a process restart while it ran. It may or may not have taken effect'
    )
    assert.include(text, 'The tool "paint" no longer exists in this version of the app')
    const entries = await InboxEvent.query().where('row_id', actionRow.id)
    assert.include(
      entries.map((entry) => entry.type),
      'interrupted'
    )
  }).timeout(60_000)

  test('the agent was renamed: a settle is refused, the run ends failed and its rows are closed', async ({
    assert,
  }) => {
    const ran: Ran = []
    const model = modelOf([[call('d1', 'deploy', { branch: 'main' })]])
    const a = createAgents({ agents: [deployer(model, [deployAction('A', ran, BRANCH())])] })
    const settled = await waitingOnA(a, 'settled on B')
    const driven = await waitingOnA(a, 'driven on B')

    // B knows the agent by another name only
    const shipper = defineAgent({
      name: 'shipper',
      model,
      instructions: 'Ship.',
      tools: [deployAction('B', ran, BRANCH())],
    })
    const b = createAgents({ agents: [shipper] })
    const refusal = await b.inbox
      .settle(settled.rows[0].id, { approved: true }, { by: 'user:1', via: 'web' })
      .catch((error) => error)
    assert.instanceOf(refusal, E_UNKNOWN_AGENT)
    assert.equal(refusal.status, 410)
    assert.equal(refusal.code, 'E_UNKNOWN_AGENT')
    await b.idle()
    await Promise.all([settled.run.refresh(), settled.rows[0].refresh()])
    assert.equal(settled.run.status, 'failed')
    assert.equal(settled.run.errorCode, 'E_UNKNOWN_AGENT')
    assert.include(settled.run.error ?? '', 'No agent named "deployer"')
    assert.isNotNull(settled.run.finishedAt)
    assert.equal(settled.rows[0].status, 'cancelled')
    assert.isNull(settled.rows[0].reply, 'nothing was applied')
    const again = await b.inbox
      .settle(settled.rows[0].id, { approved: false }, { by: 'user:1', via: 'web' })
      .catch((error) => error)
    assert.instanceOf(again, E_CANCELLED)

    // Approved on A, which stopped before it drove the run: B's recovery ends it the same way
    const stopped = createAgents({
      agents: [deployer(model, [deployAction('A', ran, BRANCH())])],
      executor: noExecutor,
    })
    await stopped.inbox.settle(driven.rows[0].id, { approved: true }, { by: 'user:1', via: 'web' })
    assert.equal(await b.recover(), 1)
    await b.idle()
    await Promise.all([driven.run.refresh(), driven.rows[0].refresh()])
    assert.equal(driven.run.status, 'failed')
    assert.equal(driven.run.errorCode, 'E_UNKNOWN_AGENT')
    assert.equal(driven.rows[0].status, 'approved')
    assert.equal(
      driven.rows[0].execution,
      'tool-removed',
      'an approved row is not left without one'
    )
    assert.include(
      (driven.rows[0].result as { error: string }).error,
      'the agent "deployer" is no longer defined'
    )
    assert.deepEqual(ran, [])
    const pending = await b.inbox.list({ status: 'pending', ownerId: 'user:1' })
    assert.notInclude(
      pending.rows.map((row) => row.runId),
      settled.run.id
    )
  })

  test('the intake form was removed: the answers given still reach the model', async ({
    assert,
  }) => {
    const model = modelOf([[say('Deployed to production.')]])
    const a = createAgents({ agents: [deployer(model, [], { intake: INTAKE })] })
    const { run, rows } = await waitingOnA(a, 'ship it')
    assert.equal(rows[0].kind, 'intake')
    assert.lengthOf(callsOf(model, 'ship it'), 0)

    const b = createAgents({ agents: [deployer(model, [])] })
    await b.inbox.settle(
      rows[0].id,
      { answers: { env: ['production'] } },
      { by: 'user:1', via: 'web' }
    )
    await b.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    const [first] = callsOf(model, 'ship it')
    const prompt = promptText(first)
    assert.include(prompt, 'Intake form, answered before you started')
    assert.include(prompt, 'Answer: Production cluster')
  })

  test('an intake form was added while a run waits on an approval: no intake opens mid-run', async ({
    assert,
  }) => {
    const ran: Ran = []
    const model = modelOf([[call('d1', 'deploy', { branch: 'main' })], [say('Deployed.')]])
    const a = createAgents({ agents: [deployer(model, [deployAction('A', ran, BRANCH())])] })
    const { run, rows } = await waitingOnA(a, 'ship main today')

    const b = createAgents({
      agents: [deployer(model, [deployAction('B', ran, BRANCH())], { intake: INTAKE })],
    })
    await b.inbox.settle(rows[0].id, { approved: true }, { by: 'user:1', via: 'web' })
    await b.idle()

    await run.refresh()
    assert.equal(run.status, 'completed', run.error ?? '')
    assert.deepEqual(ran, [{ deploy: 'B', args: { branch: 'main' } }])
    const after = await rowsOf(run.id)
    assert.deepEqual(
      after.map((row) => [row.kind, row.status, row.execution]),
      [['action', 'approved', 'succeeded']]
    )
    const calls = callsOf(model, 'ship main today')
    assert.lengthOf(calls, 2)
    assert.include(toolResultOf(calls[1], 'd1').value, 'deployed by B')
    assert.notInclude(promptText(calls[1]), 'Intake form')

    // A run started on B asks it first
    const fresh = await b.start('deployer', { input: 'new run', owner: 'user:1' })
    await b.idle()
    const [intake] = await rowsOf(fresh.id)
    assert.equal(intake.kind, 'intake')
    await b.cancel(fresh.id)
  })
})
