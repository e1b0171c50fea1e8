/*
 * Intake forms and expiry end to end. Intake (docs/design.md §4.7): the configured
 * form is a pending row before the first model call, its answers open the
 * model's first prompt, and it spends none of the ask budget. Expiry
 * (docs/design.md §6.6, §7.3): a row nobody answered is settled by its policy when swept —
 * defaults (the model is told nobody answered), reject, or cancel the run.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  ask,
  call,
  createAgents,
  DB_QUESTION,
  deployTools,
  failWith,
  promptText,
  providerError,
  rowsOf,
  say,
  scriptedModel,
  toolResultOf,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { defineAgent, type AgentOptions } from '../../src/runtime/define_agent.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { E_EXPIRED } from '../../src/errors.ts'
import type { DecisionOutcome, QuestionOutcome, QuestionSet } from '../../src/questions/types.ts'

const INTAKE: QuestionSet = {
  preamble: 'Before I start:',
  questions: [
    {
      id: 'env',
      prompt: 'Which environment?',
      options: [
        { value: 'staging', label: 'Staging cluster' },
        { value: 'production', label: 'Production cluster' },
      ],
      defaults: ['staging'],
    },
    {
      id: 'replicas',
      prompt: 'How many replicas?',
      input: { type: 'integer', min: 1, max: 9 },
      defaults: ['2'],
    },
  ],
}

const HOUR = 60 * 60 * 1000

/**
 * A scripted model, the deploy tools and a factory of fresh runtimes
 * around one agent.
 */
function setup(steps: ScriptStep[], options: Partial<AgentOptions> = {}) {
  const model = scriptedModel(steps)
  const tools = deployTools()
  const runtime = () =>
    createAgents({
      agents: [
        defineAgent({
          name: 'deployer',
          model,
          instructions: 'Deploy safely.',
          tools: [tools.deploy],
          ...options,
        }),
      ],
    })
  return { model, runtime, executions: tools.executions }
}

/**
 * Moves a pending row's expiry into the past, as if its time ran out.
 */
async function runOutOfTime(row: ToolCall) {
  await ToolCall.query()
    .where('id', row.id)
    .update(preparedColumns(row, { expiresAt: DateTime.now().minus({ minutes: 1 }) }))
}

test.group(`Runtime intake and expiry | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test("an agent's ladder is stored on its rows, timed from when each was opened", async ({
    assert,
  }) => {
    const { runtime } = setup([[say('Done.')]], {
      intake: INTAKE,
      expiry: {
        ttl: 24 * HOUR,
        onExpiry: 'reject',
        ladder: [
          { after: '1h', remind: true },
          { after: '4h', reassign: 'user:9' },
        ],
      },
    })
    const agents = runtime()
    const run = await agents.start('deployer', { input: 'ship it', owner: 'user:1' })
    await agents.idle()
    const [intake] = await rowsOf(run.id)
    assert.equal(intake.status, 'pending')
    assert.equal(intake.ladderStep, 0)
    assert.deepEqual(
      intake.ladder?.map((step) => [step.do, step.to ?? null]),
      [
        ['remind', null],
        ['reassign', ['user:9']],
      ]
    )
    const due = intake.ladderDueAt!.diff(intake.createdAt).as('minutes')
    assert.closeTo(due, 60, 1)
    assert.throws(
      () =>
        defineAgent({
          name: 'bad',
          model: scriptedModel([]),
          instructions: '',
          expiry: { ttl: HOUR, ladder: [{ after: '2h', remind: true }] },
        }),
      /Agent "bad": expiry\.ladder\[0\]\.after: must come before the expiry/
    )
  })

  test('an intake form waits before any model call and opens the first prompt', async ({
    assert,
  }) => {
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Done.')]], {
      intake: INTAKE,
      ask: { limits: { askBudget: 1 } },
    })
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship it', owner: 'user:1' })
    await first.idle()

    await run.refresh()
    assert.equal(run.status, 'waiting')
    assert.lengthOf(model.doGenerateCalls, 0, 'the model is not called before the intake')
    const [intake] = await rowsOf(run.id)
    assert.equal(intake.kind, 'intake')
    assert.equal(intake.status, 'pending')
    assert.deepEqual(intake.request, INTAKE)

    const fresh = runtime()
    await fresh.inbox.settle(
      intake.id,
      { answers: { env: ['production'], replicas: ['3'] } },
      { by: 'user:1', via: 'web' }
    )
    await fresh.idle()

    assert.lengthOf(model.doGenerateCalls, 1)
    const prompt = promptText(model.doGenerateCalls[0])
    assert.include(prompt, 'Intake form, answered before you started')
    assert.include(prompt, 'Answer: Production cluster')
    assert.include(prompt, 'Answer: \\"3\\"')

    // The intake spent none of the budget of one ask call: the ask waits
    await run.refresh()
    assert.equal(run.status, 'waiting')
    assert.equal(run.askCount, 1)
    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.kind, row.status]),
      [
        ['intake', 'answered'],
        ['ask', 'pending'],
      ]
    )
    const last = runtime()
    await last.inbox.settle(rows[1].id, { approved: true }, { by: 'user:1', via: 'web' })
    await last.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.include(toolResultOf(model.doGenerateCalls[1], 'c1').value, 'Answer: PostgreSQL')
  })

  test('an intake function asks for some inputs and not for others', async ({ assert }) => {
    const { model, runtime } = setup([[say('Staging done.')], [say('Production done.')]], {
      intake: (input) => ((input as { env: string }).env === 'production' ? INTAKE : null),
    })
    const agents = runtime()
    const staging = await agents.start('deployer', { input: { env: 'staging' }, owner: 'user:1' })
    await agents.idle()

    await staging.refresh()
    assert.equal(staging.status, 'completed')
    assert.deepEqual(await rowsOf(staging.id), [])
    assert.lengthOf(model.doGenerateCalls, 1)
    assert.notInclude(promptText(model.doGenerateCalls[0]), 'Intake form')

    const production = await agents.start('deployer', {
      input: { env: 'production' },
      owner: 'user:1',
    })
    await agents.idle()
    await production.refresh()
    assert.equal(production.status, 'waiting')
    assert.lengthOf(model.doGenerateCalls, 1, 'no model call before the intake is settled')
    const [intake] = await rowsOf(production.id)
    assert.equal(intake.kind, 'intake')

    const fresh = runtime()
    await fresh.inbox.settle(intake.id, { answers: {}, skip: true }, { by: 'user:1', via: 'web' })
    await fresh.idle()
    await production.refresh()
    assert.equal(production.status, 'completed')
    assert.equal(production.askCount, 0)
    const prompt = promptText(model.doGenerateCalls[1])
    assert.include(prompt, 'Intake form, answered before you started')
    assert.include(prompt, 'The person skipped these questions')
    assert.include(prompt, 'Answer: Staging cluster (your default)')
  })

  test('an invalid intake fails the run before any model call', async ({ assert }) => {
    const broken: QuestionSet = {
      questions: [{ ...INTAKE.questions[0], defaults: ['qa'] }],
    }
    const { model, runtime } = setup([[say('never')]], { intake: broken })
    const agents = runtime()
    const run = await agents.start('deployer', { input: 'ship it', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'failed')
    assert.equal(run.errorCode, 'E_INVALID_INTAKE')
    assert.include(run.error, 'The intake of agent "deployer" is invalid')
    assert.include(run.error, 'questions[0].defaults')
    assert.lengthOf(model.doGenerateCalls, 0)
    assert.deepEqual(await rowsOf(run.id), [])
  })

  test('a retried run does not ask its intake again', async ({ assert }) => {
    const { model, runtime } = setup(
      [failWith(providerError(false)), [say('Deployed to production.')]],
      { intake: INTAKE }
    )
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship it', owner: 'user:1' })
    await first.idle()
    const [intake] = await rowsOf(run.id)
    await first.inbox.settle(
      intake.id,
      { answers: { env: ['production'], replicas: ['3'] } },
      { by: 'user:1', via: 'web' }
    )
    await first.idle()
    await run.refresh()
    assert.equal(run.status, 'failed')
    assert.equal(run.errorCode, 'E_PROVIDER')

    const fresh = runtime()
    await fresh.retry(run.id)
    await fresh.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.attempt, row.kind, row.status, row.answeredVia]),
      [
        [1, 'intake', 'answered', 'web'],
        [2, 'intake', 'answered', 'memory'],
      ]
    )
    assert.deepEqual(rows[1].outcome, rows[0].outcome)
    assert.lengthOf(model.doGenerateCalls, 2)
    const prompt = promptText(model.doGenerateCalls[1])
    assert.include(prompt, 'Intake form, answered before you started')
    assert.include(prompt, 'Answer: Production cluster')
  })

  test('an expired ask settles on the defaults and the model is told nobody answered', async ({
    assert,
  }) => {
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Assumed PostgreSQL.')]], {
      expiry: { ttl: HOUR },
    })
    const first = runtime()
    const run = await first.start('deployer', { input: 'set up a db', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)
    assert.equal(row.onExpiry, 'defaults')
    assert.isTrue(row.expiresAt! > DateTime.now().plus({ minutes: 50 }), 'expires in an hour')

    const fresh = runtime()
    assert.equal(await fresh.sweep(), 0, 'nothing is due yet')
    await runOutOfTime(row)
    assert.equal(await fresh.sweep(), 1)
    await fresh.idle()

    await row.refresh()
    assert.equal(row.status, 'expired')
    assert.equal(row.answeredVia, 'expiry')
    assert.isNull(row.answeredBy)
    const outcome = row.outcome as QuestionOutcome
    assert.isTrue(outcome.expired)
    assert.deepEqual(outcome.answers, { db: ['pg'] })

    await run.refresh()
    assert.equal(run.status, 'completed')
    const answer = toolResultOf(model.doGenerateCalls[1], 'c1')
    assert.include(answer.value, 'Nobody answered these questions in time')
    assert.include(answer.value, 'Answer: PostgreSQL (your default)')

    const late = await fresh.inbox
      .settle(row.id, { answers: { db: ['mysql'] } }, { by: 'user:1', via: 'web' })
      .catch((error) => error)
    assert.instanceOf(late, E_EXPIRED)
    assert.equal(late.status, 410)
  })

  test('a late reply to a row past its expiry settles it by policy and resumes the run', async ({
    assert,
  }) => {
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Assumed PostgreSQL.')]], {
      expiry: { ttl: HOUR },
    })
    const first = runtime()
    const run = await first.start('deployer', { input: 'set up a db', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)

    // No sweep ran: the late reply itself finds the row past its time
    await runOutOfTime(row)
    const late = runtime()
    const error = await late.inbox
      .settle(row.id, { answers: { db: ['mysql'] } }, { by: 'user:1', via: 'web' })
      .catch((caught) => caught)
    assert.instanceOf(error, E_EXPIRED)
    assert.equal(error.status, 410)
    await late.idle()

    await row.refresh()
    assert.equal(row.status, 'expired')
    assert.equal(row.answeredVia, 'expiry')
    assert.isNull(row.reply, 'the late reply was not applied')
    await run.refresh()
    assert.equal(run.status, 'completed', 'the run does not hang on a settled row')
    const answer = toolResultOf(model.doGenerateCalls[1], 'c1')
    assert.include(answer.value, 'Nobody answered these questions in time')
    assert.include(answer.value, 'Answer: PostgreSQL (your default)')
  })

  test('a late reply to a row past its expiry with onExpiry cancel cancels the run', async ({
    assert,
  }) => {
    const { model, runtime, executions } = setup([[call('d1', 'deploy', { branch: 'main' })]], {
      expiry: { ttl: HOUR, onExpiry: 'cancel' },
    })
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship main', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)

    await runOutOfTime(row)
    const late = runtime()
    const error = await late.inbox
      .settle(row.id, { approved: true }, { by: 'user:1', via: 'web' })
      .catch((caught) => caught)
    assert.instanceOf(error, E_EXPIRED)
    await late.idle()

    await run.refresh()
    assert.equal(run.status, 'cancelled')
    await row.refresh()
    assert.equal(row.status, 'expired')
    assert.deepEqual(executions, [])
    assert.lengthOf(model.doGenerateCalls, 1)
  })

  test('an expired approval with onExpiry reject is not run', async ({ assert }) => {
    const { model, runtime, executions } = setup(
      [[call('d1', 'deploy', { branch: 'main' })], [say('Not deployed.')]],
      { expiry: { ttl: HOUR, onExpiry: 'reject' } }
    )
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship main', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)
    assert.equal(row.onExpiry, 'reject')

    await runOutOfTime(row)
    const fresh = runtime()
    assert.equal(await fresh.sweep(), 1)
    await fresh.idle()

    assert.deepEqual(executions, [])
    await row.refresh()
    assert.equal(row.status, 'expired')
    assert.isNull(row.execution)
    assert.isFalse((row.outcome as DecisionOutcome).approved)
    await run.refresh()
    assert.equal(run.status, 'completed')
    const result = toolResultOf(model.doGenerateCalls[1], 'd1')
    assert.include(result.value, 'Nobody approved the call to "deploy" in time, so it was not run.')
  })

  test('an expired row with onExpiry cancel cancels its run', async ({ assert }) => {
    const { model, runtime, executions } = setup([[call('d1', 'deploy', { branch: 'main' })]], {
      expiry: { ttl: HOUR, onExpiry: 'cancel' },
    })
    const first = runtime()
    const run = await first.start('deployer', { input: 'ship main', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)

    await runOutOfTime(row)
    const fresh = runtime()
    assert.equal(await fresh.sweep(), 1)
    await fresh.idle()

    await run.refresh()
    assert.equal(run.status, 'cancelled')
    assert.isNotNull(run.finishedAt)
    await row.refresh()
    assert.equal(row.status, 'expired')
    assert.equal(row.answeredVia, 'expiry')
    assert.deepEqual(executions, [])
    assert.lengthOf(model.doGenerateCalls, 1, 'the cancelled run never calls the model again')
  })
})
