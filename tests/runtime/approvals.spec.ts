/*
 * Approvals end to end (docs/design.md §6.5): an action waits for a yes/no as a
 * pending row; approved, it runs exactly once with the args shown;
 * rejected, it never runs and the reason reaches the model; edited, the
 * edit is re-validated against the tool's Vine schema and the model is
 * told. A read tool runs at once and never waits.
 */

import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  call,
  createAgents,
  deployTools,
  rowsOf,
  say,
  scriptedModel,
  toolResultOf,
  toolResults,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { hashArgs } from '../../src/inbox/args_hash.ts'
import {
  AlreadySettledException,
  InvalidReplyException,
  ReplyMismatchException,
} from '../../src/errors.ts'
import type { DecisionOutcome } from '../../src/questions/types.ts'

/**
 * A scripted model, the deploy tools (shared, so executions are counted
 * across runtimes like effects on the outside world) and a factory of
 * fresh runtimes around one agent.
 */
function setup(steps: ScriptStep[]) {
  const model = scriptedModel(steps)
  const tools = deployTools()
  const runtime = () =>
    createAgents({
      agents: [
        defineAgent({
          name: 'deployer',
          model,
          instructions: 'Deploy safely.',
          tools: [tools.deploy, tools.readLogs],
        }),
      ],
    })
  return { model, runtime, executions: tools.executions }
}

test.group(`Runtime approvals | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('an approved action runs exactly once with the args shown', async ({ assert }) => {
    const { model, runtime, executions } = setup([
      [call('d1', 'deploy', { branch: 'main' })],
      [say('Deployed main.')],
    ])
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship main', owner: 'user:1' })
    await first.idle()

    await run.refresh()
    assert.equal(run.status, 'waiting')
    assert.deepEqual(executions, [], 'nothing runs before the approval')
    const [row] = await rowsOf(run.id)
    assert.equal(row.kind, 'action')
    assert.equal(row.status, 'pending')
    const { schema, ...shown } = row.request
    assert.deepEqual(shown, { args: { branch: 'main' }, summary: 'Deploy main to production' })
    // The digest of the input schema the args were validated with (calls/current_tool.ts)
    assert.match(schema, /^[\w-]{43}$/)
    assert.equal(row.argsHash, hashArgs({ branch: 'main' }))
    assert.isNull(row.execution)

    // Approved through one fresh runtime while another drives the run too:
    // the lease and the execution claim let the action run once
    const approver = runtime()
    const other = runtime()
    await approver.inbox.settle(row.id, { approved: true }, { by: 'user:1', via: 'web' })
    await other.driver.drive(run.id)
    await approver.idle()

    assert.deepEqual(executions, [{ branch: 'main', force: false }])
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(run.result, { text: 'Deployed main.' })
    assert.lengthOf(model.doGenerateCalls, 2)
    const result = toolResultOf(model.doGenerateCalls[1], 'd1')
    assert.equal(result.type, 'text')
    assert.include(result.value, 'The person approved the call to "deploy".')
    assert.include(result.value, '{"deployed":"main"}')
    assert.notInclude(result.value, 'edited')

    await row.refresh()
    assert.equal(row.status, 'approved')
    assert.equal(row.execution, 'succeeded')
    assert.deepEqual(row.result, { value: { deployed: 'main' } })

    // A second reply and a later drive change nothing
    const late = await runtime()
      .inbox.settle(row.id, { approved: true }, { by: 'user:2', via: 'api' })
      .catch((error) => error)
    assert.instanceOf(late, AlreadySettledException)
    assert.equal(late.status, 409)
    const again = runtime()
    await again.driver.drive(run.id)
    await again.recover()
    await again.idle()
    assert.lengthOf(executions, 1)
    assert.lengthOf(model.doGenerateCalls, 2)
  })

  test('an approved action whose schema makes a date runs, with the date, once', async ({
    assert,
  }) => {
    const ran: unknown[] = []
    const schedule = defineTool({
      name: 'schedule',
      description: 'Schedule a maintenance window',
      kind: 'action',
      input: vine.object({ at: vine.date({ formats: { utc: true } }), service: vine.string() }),
      handle: async (args) => {
        ran.push(args)
        return 'scheduled'
      },
    })
    const agents = createAgents({
      agents: [
        defineAgent({
          name: 'scheduler',
          model: scriptedModel([
            [call('s1', 'schedule', { at: '2027-01-05T10:00:00Z', service: 'api' })],
            [say('Scheduled.')],
          ]),
          instructions: 'Schedule.',
          tools: [schedule],
        }),
      ],
    })
    const run = await agents.start('scheduler', { input: 'window', owner: 'user:1' })
    await agents.idle()
    const [row] = await rowsOf(run.id)
    assert.equal(row.status, 'pending')
    await agents.inbox.settle(row.id, { approved: true }, { by: 'user:1', via: 'web' })
    await agents.idle()

    await Promise.all([run.refresh(), row.refresh()])
    assert.equal(row.execution, 'succeeded')
    assert.equal(run.status, 'completed')
    assert.lengthOf(ran, 1)
    const [args] = ran as { at: unknown; service: string }[]
    assert.equal(args.service, 'api')
    // As stored and approved: JSON, the date its ISO text (docs/guides/approvals.md)
    assert.equal(args.at, '2027-01-05T10:00:00.000Z')
  })

  test('a rejected action never runs and its reason reaches the model', async ({ assert }) => {
    const { model, runtime, executions } = setup([
      [call('d1', 'deploy', { branch: 'main', force: true })],
      [say('Not deployed: it is Friday.')],
    ])
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship main', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)

    // Answers sent to an approval are refused, never read as a rejection
    const fresh = runtime()
    const mismatch = await fresh.inbox
      .settle(row.id, { answers: { branch: ['main'] } }, { by: 'user:1', via: 'web' })
      .catch((error) => error)
    assert.instanceOf(mismatch, ReplyMismatchException)
    assert.equal(mismatch.status, 422)
    await row.refresh()
    assert.equal(row.status, 'pending')

    await fresh.inbox.settle(
      row.id,
      { approved: false, reason: 'Not on a Friday' },
      { by: 'user:1', via: 'web' }
    )
    await fresh.idle()

    assert.deepEqual(executions, [])
    await run.refresh()
    assert.equal(run.status, 'completed')
    const result = toolResultOf(model.doGenerateCalls[1], 'd1')
    assert.include(result.value, 'The person rejected the call to "deploy", so it was not run.')
    assert.include(result.value, 'Their reason follows.')
    assert.include(result.value, '```untrusted\nNot on a Friday\n```')

    await row.refresh()
    assert.equal(row.status, 'rejected')
    assert.isNull(row.execution)
    assert.isNull(row.result)
    assert.equal((row.outcome as DecisionOutcome).reason, 'Not on a Friday')
  })

  test('errors of edited args name their fields with dotted paths, like answers', async ({
    assert,
  }) => {
    const tag = defineTool({
      name: 'tag',
      description: 'Tag a release',
      kind: 'action',
      input: vine.object({ branch: vine.string(), items: vine.array(vine.string()) }),
      handle: async () => 'tagged',
    })
    const model = scriptedModel([[call('t1', 'tag', { branch: 'main', items: ['v1'] })]])
    const agents = createAgents({
      agents: [defineAgent({ name: 'tagger', model, instructions: 'Tag.', tools: [tag] })],
    })
    const run = await agents.start('tagger', { input: 'tag', owner: 'user:1' })
    await agents.idle()
    const [row] = await rowsOf(run.id)

    const error = await agents.inbox
      .settle(
        row.id,
        { approved: true, editedInput: { branch: 3, items: ['v2', 4] } },
        { by: 'user:1', via: 'api' }
      )
      .catch((caught) => caught)
    assert.instanceOf(error, InvalidReplyException)
    assert.sameMembers(
      (error as InvalidReplyException).errors.map((issue) => issue.path),
      ['editedInput.branch', 'editedInput.items.1']
    )
    await agents.cancel(run.id)
    await agents.idle()
  })

  test('edited args are re-validated, run as edited, and the model is told', async ({ assert }) => {
    const { model, runtime, executions } = setup([
      [call('d1', 'deploy', { branch: 'main' })],
      [say('Deployed release.')],
    ])
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship main', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)

    // An invalid edit is refused with field errors and leaves the row pending
    const refusing = runtime()
    const error = await refusing.inbox
      .settle(row.id, { approved: true, editedInput: { branch: '' } }, { by: 'user:1', via: 'web' })
      .catch((caught) => caught)
    assert.instanceOf(error, InvalidReplyException)
    assert.equal(error.status, 422)
    assert.equal(error.code, 'E_INVALID_REPLY')
    assert.deepEqual(
      (error as InvalidReplyException).errors.map((issue) => issue.path),
      ['editedInput.branch']
    )
    await refusing.idle()
    await row.refresh()
    assert.equal(row.status, 'pending')
    await run.refresh()
    assert.equal(run.status, 'waiting')
    assert.deepEqual(executions, [])
    assert.lengthOf(model.doGenerateCalls, 1)

    // A valid edit goes through, with the edited args
    const fresh = runtime()
    await fresh.inbox.settle(
      row.id,
      { approved: true, editedInput: { branch: 'release', force: true } },
      { by: 'user:1', via: 'web' }
    )
    await fresh.idle()

    assert.deepEqual(executions, [{ branch: 'release', force: true }])
    await run.refresh()
    assert.equal(run.status, 'completed')
    const result = toolResultOf(model.doGenerateCalls[1], 'd1')
    assert.include(result.value, 'The person approved the call to "deploy".')
    assert.include(result.value, 'The person edited the arguments before approving')
    // What comes back from args a person typed is fenced as untrusted, like their other text
    assert.include(result.value, '```untrusted\n{"deployed":"release"}\n```')

    await row.refresh()
    assert.equal(row.status, 'approved')
    assert.deepEqual(row.request.args, { branch: 'main' }, 'the row keeps what was shown')
    assert.deepEqual((row.outcome as DecisionOutcome).editedInput, {
      branch: 'release',
      force: true,
    })
    assert.deepEqual(row.result, { value: { deployed: 'release' } })
  })

  test('a read tool runs at once, with an audit row and nothing pending', async ({ assert }) => {
    const { model, runtime } = setup([
      [call('r1', 'read_logs', { service: 'api' })],
      [say('The api is quiet.')],
    ])
    const agents = runtime()
    const run = await agents.start('deployer', { input: 'check api', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(run.result, { text: 'The api is quiet.' })
    const rows = await rowsOf(run.id)
    assert.lengthOf(rows, 1)
    assert.equal(rows[0].kind, 'read')
    assert.equal(rows[0].status, 'auto')
    assert.equal(rows[0].execution, 'succeeded')
    assert.deepEqual(rows[0].request.args, { service: 'api' })
    assert.deepEqual(rows[0].result, { value: 'api: all quiet' })
    const pending = await agents.inbox.pending('user:1')
    assert.notInclude(
      pending.map((row) => row.runId),
      run.id
    )
    const result = toolResultOf(model.doGenerateCalls[1], 'r1')
    assert.deepEqual(result, {
      toolCallId: 'r1',
      toolName: 'read_logs',
      type: 'text',
      value: 'api: all quiet',
    })
  })

  test('calls of one step: approval per args, failures reported, waits taken in turn', async ({
    assert,
  }) => {
    const restarts: string[] = []
    const restart = defineTool({
      name: 'restart',
      description: 'Restart a service',
      kind: 'action',
      input: vine.object({ service: vine.string() }),
      needsApproval: ({ service }) => service === 'db',
      handle: async ({ service }) => {
        if (service === 'cache') throw new Error('cache is locked')
        restarts.push(service)
        return `restarted ${service}`
      },
    })
    const tools = deployTools()
    const model = scriptedModel([
      [
        call('x1', 'restart', { service: 'api' }),
        call('x2', 'restart', { service: 'cache' }),
        call('x3', 'restart', { service: 'db' }),
        call('x4', 'deploy', { branch: 'main' }),
      ],
      [say('Restarted api and db; cache was locked; main not deployed.')],
    ])
    const runtime = () =>
      createAgents({
        agents: [
          defineAgent({
            name: 'ops',
            model,
            instructions: 'Operate.',
            tools: [restart, tools.deploy],
          }),
        ],
      })
    const first = runtime()
    const run = await first.start('ops', { input: 'restart all', owner: 'user:1' })
    await first.idle()

    // x1 and x2 ran at once; x3 waits, and x4 is not even proposed yet
    assert.deepEqual(restarts, ['api'])
    let rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.toolCallId, row.kind, row.status, row.execution]),
      [
        ['x1', 'action', 'auto', 'succeeded'],
        ['x2', 'action', 'auto', 'failed'],
        ['x3', 'action', 'pending', null],
      ]
    )
    assert.deepEqual(rows[1].result, { error: 'cache is locked' })

    const approving = runtime()
    await approving.inbox.settle(rows[2].id, { approved: true }, { by: 'user:1', via: 'web' })
    await approving.idle()
    assert.deepEqual(restarts, ['api', 'db'])
    rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.slice(2).map((row) => [row.toolCallId, row.status]),
      [
        ['x3', 'approved'],
        ['x4', 'pending'],
      ]
    )
    assert.lengthOf(model.doGenerateCalls, 1)

    const rejecting = runtime()
    await rejecting.inbox.settle(rows[3].id, { approved: false }, { by: 'user:1', via: 'web' })
    await rejecting.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(tools.executions, [])
    assert.deepEqual(restarts, ['api', 'db'], 'nothing ran twice across the resumes')
    const results = toolResults(model.doGenerateCalls[1])
    assert.deepEqual(
      results.map((result) => [result.toolCallId, result.type]),
      [
        ['x1', 'text'],
        ['x2', 'error-text'],
        ['x3', 'text'],
        ['x4', 'text'],
      ]
    )
    assert.equal(results[0].value, 'restarted api')
    assert.equal(results[1].value, 'The tool failed:\n```untrusted\ncache is locked\n```')
    assert.equal(results[2].value, 'The person approved the call to "restart".\nrestarted db')
    assert.include(results[3].value, 'The person rejected the call to "deploy"')
  })
})
