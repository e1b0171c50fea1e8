/*
 * The ask tool end to end (docs/design.md §4, §6.4): a run asks, waits as rows only,
 * and resumes through a fresh runtime with the answer read as labels;
 * skips, the per-run budget, malformed asks, and who is offered the tool at
 * all. Each test checks what the model was sent next, not only statuses.
 */

import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  ask,
  call,
  choice,
  createAgents,
  DB_QUESTION,
  deployTools,
  offeredTools,
  rowsOf,
  say,
  scriptedModel,
  systemText,
  toolResultOf,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { defineAgent, type AgentOptions } from '../../src/runtime/define_agent.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'
import { strictViolations } from '../helpers/strict_schema.ts'

/** DB_QUESTION as a model writes it against the strict schema: null for what it leaves out */
const STRICT_DB_CALL = {
  preamble: null,
  questions: [
    {
      ...DB_QUESTION.questions[0],
      options: DB_QUESTION.questions[0].options!.map((option) => ({
        ...option,
        description: null,
        hotkey: null,
      })),
      header: null,
      description: null,
      input: null,
      multiple: null,
      allowFreeText: null,
      intent: null,
      detail: null,
    },
  ],
}

/** The ask tool as one model call was offered it */
function offeredAsk(options: { tools?: unknown[] }) {
  return (options.tools ?? []).find((offered: any) => offered.name === 'ask') as
    { inputSchema: Record<string, any>; strict?: boolean } | undefined
}

/**
 * A scripted model and a factory of runtimes around one agent using it:
 * every call gives a new runtime (new driver, new inbox), sharing nothing
 * with the others but the database.
 */
function setup(steps: ScriptStep[], options: Partial<AgentOptions> = {}) {
  const model = scriptedModel(steps)
  const runtime = () =>
    createAgents({
      agents: [defineAgent({ name: 'helper', model, instructions: 'Help.', ...options })],
    })
  return { model, runtime }
}

async function journalKeys(runId: string) {
  const entries = await JournalRow.query().where('run_id', runId).orderBy('sequence')
  return entries.map((entry) => entry.key)
}

test.group(`Runtime asking | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('a run asks, waits as rows only, and completes with the answer label', async ({
    assert,
  }) => {
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Using MySQL.')]])
    const first = runtime()
    const run = await first.start('helper', { input: 'set up a db', owner: 'user:1' })
    await first.idle()

    await run.refresh()
    assert.equal(run.status, 'waiting')
    assert.isNull(run.leaseOwner, 'a waiting run is held by no process')
    assert.equal(run.askCount, 1)
    assert.lengthOf(model.doGenerateCalls, 1)
    assert.include(offeredTools(model.doGenerateCalls[0]), 'ask')

    // A fresh runtime finds the row and settles it; the run resumes from rows
    const fresh = runtime()
    const [pending] = await fresh.inbox.pending('user:1')
    assert.equal(pending.runId, run.id)
    assert.equal(pending.kind, 'ask')
    assert.deepEqual(pending.request, DB_QUESTION)
    await fresh.inbox.settle(
      pending.id,
      { answers: { db: ['mysql'] } },
      { by: 'user:1', via: 'api' }
    )
    await fresh.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(run.result, { text: 'Using MySQL.' })
    assert.lengthOf(model.doGenerateCalls, 2)
    const answer = toolResultOf(model.doGenerateCalls[1], 'c1')
    assert.equal(answer.type, 'text')
    assert.include(answer.value, 'The person answered your questions.')
    assert.include(answer.value, 'Which database?')
    assert.include(answer.value, 'Answer: MySQL')
    assert.notInclude(answer.value, 'mysql', 'the model reads labels, not values')

    const rows = await rowsOf(run.id)
    assert.lengthOf(rows, 1)
    assert.equal(rows[0].status, 'answered')
    assert.equal(rows[0].answeredBy, 'user:1')
    assert.equal(rows[0].answeredVia, 'api')
    assert.deepEqual((rows[0].outcome as QuestionOutcome).answers, { db: ['mysql'] })
    assert.deepEqual(await fresh.inbox.pending('user:1'), [])
  })

  test('an answer reaches the model with no write of its own: its result goes with the next response', async ({
    assert,
  }) => {
    const { runtime, model } = setup([[ask('c1', DB_QUESTION)], [say('Using MySQL.')]])
    const first = runtime()
    const run = await first.start('helper', { input: 'set up a db', owner: 'user:1' })
    await first.idle()
    const [pending] = await first.inbox.pending('user:1')

    // What the journal holds when the resumed run calls the model
    let atModelCall: string[] = []
    const resumed = createAgents({
      agents: [defineAgent({ name: 'helper', model, instructions: 'Help.' })],
      onCheckpoint: async (point, runId) => {
        if (point === 'before-model-call' && runId === run.id)
          atModelCall = await journalKeys(run.id)
      },
    })
    await resumed.inbox.settle(
      pending.id,
      { answers: { db: ['mysql'] } },
      { by: 'user:1', via: 'api' }
    )
    await resumed.idle()

    // Killed there, a driver finds what a settle leaves: the row holds the answer (crash.spec.ts)
    assert.deepEqual(atModelCall, ['input', 'step:1:response'])
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.include(toolResultOf(model.doGenerateCalls[1], 'c1').value, 'MySQL')
    assert.deepEqual(await journalKeys(run.id), [
      'input',
      'step:1:response',
      'step:1:tool:c1',
      'step:2:response',
    ])
    assert.equal(run.journalLength, 4)
  })

  test('a skip proceeds on the defaults, told to the model as assumptions', async ({ assert }) => {
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Assumed PostgreSQL.')]])
    const first = runtime()
    const run = await first.start('helper', { input: 'set up a db', owner: 'user:1' })
    await first.idle()
    const [row] = await rowsOf(run.id)

    const fresh = runtime()
    await fresh.inbox.settle(row.id, { answers: {}, skip: true }, { by: 'user:1', via: 'web' })
    await fresh.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    const answer = toolResultOf(model.doGenerateCalls[1], 'c1')
    assert.include(answer.value, 'The person skipped these questions')
    assert.include(answer.value, 'assumptions')
    assert.include(answer.value, 'Answer: PostgreSQL (your default)')

    await row.refresh()
    const outcome = row.outcome as QuestionOutcome
    assert.equal(row.status, 'answered')
    assert.isTrue(outcome.skipped)
    assert.deepEqual(outcome.answers, { db: ['pg'] })
    assert.deepEqual(outcome.defaulted, ['db'])
  })

  test('the fourth ask call is refused by the budget and creates no row', async ({ assert }) => {
    const sets = [
      choice('db', 'Which database?', ['PostgreSQL', 'MySQL']),
      choice('queue', 'Which queue?', ['Redis', 'SQS']),
      choice('auth', 'Which auth?', ['Sessions', 'Tokens']),
      choice('cache', 'Which cache?', ['Memory', 'Redis']),
    ]
    const { model, runtime } = setup([
      [ask('a1', sets[0])],
      [ask('a2', sets[1])],
      [ask('a3', sets[2])],
      [ask('a4', sets[3])],
      [say('Done; I assumed an in-memory cache.')],
    ])
    let agents = runtime()
    const run = await agents.start('helper', { input: 'scaffold', owner: 'user:1' })
    await agents.idle()

    // Answer the first three, each through a fresh runtime
    for (const [index, id] of ['db', 'queue', 'auth'].entries()) {
      const rows = await rowsOf(run.id)
      assert.lengthOf(rows, index + 1)
      const row = rows[index]
      assert.equal(row.status, 'pending')
      agents = runtime()
      await agents.inbox.settle(row.id, { answers: { [id]: [`${id}-b`] } }, { by: 'u', via: 'api' })
      await agents.idle()
    }

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.equal(run.askCount, 3)
    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.toolCallId, row.status]),
      [
        ['a1', 'answered'],
        ['a2', 'answered'],
        ['a3', 'answered'],
      ]
    )
    assert.lengthOf(model.doGenerateCalls, 5)
    assert.include(toolResultOf(model.doGenerateCalls[3], 'a3').value, 'Answer: Tokens')
    const refused = toolResultOf(model.doGenerateCalls[4], 'a4')
    assert.equal(refused.type, 'error-text')
    assert.include(refused.value, 'used its question budget (3 ask calls)')
    assert.include(refused.value, 'choose the most reasonable option')
    assert.include(refused.value, 'state every assumption')
  })

  test("config limits are every agent's defaults; an agent's own limits win per key", async ({
    assert,
  }) => {
    const five = {
      questions: ['a', 'b', 'c', 'd', 'e'].map(
        (id) => choice(id, `Pick ${id}?`, ['One', 'Two']).questions[0]
      ),
    }
    const roomy = scriptedModel([[ask('r1', five)]])
    const strict = scriptedModel([[ask('s1', five)], [say('Asked nothing.')]])
    const agents = createAgents({
      limits: { maxQuestions: 10, askBudget: 5 },
      agents: [
        defineAgent({ name: 'roomy', model: roomy, instructions: 'Help.' }),
        defineAgent({
          name: 'strict',
          model: strict,
          instructions: 'Help.',
          ask: { limits: { maxQuestions: 2 } },
        }),
      ],
    })
    const description = (model: typeof roomy) =>
      JSON.stringify(model.doGenerateCalls[0].tools?.find((tool) => tool.name === 'ask'))

    // Five questions are within the config's ten: the ask becomes a pending row
    const run = await agents.start('roomy', { input: 'scaffold', owner: 'user:1' })
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'waiting')
    const [row] = await rowsOf(run.id)
    assert.equal(row.status, 'pending')
    assert.lengthOf((row.request as { questions: unknown[] }).questions, 5)
    assert.include(description(roomy), 'at most 10 questions per call')
    assert.equal(agents.definitions.get('roomy')!.limits.askBudget, 5)

    // The agent's own maxQuestions wins; the keys it left alone come from config
    const strictRun = await agents.start('strict', { input: 'scaffold', owner: 'user:1' })
    await agents.idle()
    const refused = toolResultOf(strict.doGenerateCalls[1], 's1')
    assert.equal(refused.type, 'error-text')
    assert.include(refused.value, 'must hold at most 2 questions')
    assert.include(description(strict), 'at most 2 questions per call')
    assert.equal(agents.definitions.get('strict')!.limits.askBudget, 5)
    await strictRun.refresh()
    assert.equal(strictRun.status, 'completed')
  })

  test("the agent's providerOptions reach every model call of a run, resumed ones too", async ({
    assert,
  }) => {
    const providerOptions = { openai: { store: false, reasoningEffort: 'low' } }
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Using MySQL.')]], {
      providerOptions,
    })
    const first = runtime()
    const run = await first.start('helper', { input: 'set up a db', owner: 'user:1' })
    await first.idle()
    const fresh = runtime()
    const [pending] = await rowsOf(run.id)
    await fresh.inbox.settle(pending.id, { answers: {} }, { by: 'user:1', via: 'api' })
    await fresh.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.lengthOf(model.doGenerateCalls, 2)
    for (const options of model.doGenerateCalls) {
      assert.deepEqual(options.providerOptions, providerOptions)
    }
    // Not strict unless asked: the plain schema, no strict flag
    assert.isUndefined(offeredAsk(model.doGenerateCalls[0])!.strict)
  })

  test('ask.strict offers a strict ask tool; a strict call, nulls and all, is asked and answered', async ({
    assert,
  }) => {
    const { model, runtime } = setup(
      [[call('c1', 'ask', STRICT_DB_CALL)], ({ results }) => [say(results[0].value)]],
      { ask: { strict: true } }
    )
    const agents = runtime()
    const run = await agents.start('helper', { input: 'set up a db', owner: 'user:1' })
    await agents.idle()

    const offered = offeredAsk(model.doGenerateCalls[0])!
    assert.isTrue(offered.strict)
    assert.deepEqual(strictViolations(offered.inputSchema), [])

    // The row holds the set without the nulls, as any other ask's
    await run.refresh()
    assert.equal(run.status, 'waiting')
    const [pending] = await rowsOf(run.id)
    assert.equal(pending.status, 'pending')
    assert.deepEqual(pending.request, DB_QUESTION)
    await agents.inbox.settle(
      pending.id,
      { answers: { db: ['mysql'] } },
      { by: 'user:1', via: 'api' }
    )
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.include((run.result as { text: string }).text, 'Answer: MySQL')
  })

  test('a malformed ask goes back to the model with the path, and its fix is asked', async ({
    assert,
  }) => {
    const malformed = {
      questions: [{ ...DB_QUESTION.questions[0], defaults: ['mongo'] }],
    }
    const { model, runtime } = setup([
      [ask('bad', malformed)],
      [ask('good', DB_QUESTION)],
      [say('Using PostgreSQL.')],
    ])
    const agents = runtime()
    const run = await agents.start('helper', { input: 'set up a db', owner: 'user:1' })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'waiting')
    assert.equal(run.askCount, 1, 'the malformed call spent nothing')
    assert.lengthOf(model.doGenerateCalls, 2)
    const error = toolResultOf(model.doGenerateCalls[1], 'bad')
    assert.equal(error.type, 'error-text')
    assert.match(error.value, /^questions\[0\]\.defaults: /m)
    assert.include(error.value, 'Fix the problems above and call ask again')

    const rows = await rowsOf(run.id)
    assert.lengthOf(rows, 1)
    assert.equal(rows[0].toolCallId, 'good')
    assert.equal(rows[0].status, 'pending')

    const fresh = runtime()
    await fresh.inbox.settle(rows[0].id, { approved: true }, { by: 'user:1', via: 'web' })
    await fresh.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.include(toolResultOf(model.doGenerateCalls[2], 'good').value, 'Answer: PostgreSQL')
  })

  test('a child run is offered no ask tool and is told to list open questions', async ({
    assert,
  }) => {
    const parentModel = scriptedModel([[ask('p1', DB_QUESTION)]])
    const model = scriptedModel([[say('Assumed PostgreSQL. Open questions: which database?')]])
    const { deploy } = deployTools()
    const agents = createAgents({
      agents: [
        defineAgent({ name: 'parent', model: parentModel, instructions: 'Lead.' }),
        defineAgent({ name: 'helper', model, instructions: 'Help.', tools: [deploy] }),
      ],
    })
    const parent = await agents.start('parent', { input: 'plan', owner: 'user:1' })
    await agents.idle()

    const child = await agents.start('helper', {
      input: 'pick a db',
      owner: 'user:1',
      parentRunId: parent.id,
    })
    await agents.idle()

    await child.refresh()
    assert.equal(child.status, 'completed')
    const offered = offeredTools(model.doGenerateCalls[0])
    assert.include(offered, 'deploy')
    assert.notInclude(offered, 'ask')
    const system = systemText(model.doGenerateCalls[0])
    assert.include(system, 'Help.')
    assert.include(system, 'list the open questions in your final answer')
    assert.deepEqual(await rowsOf(child.id), [])
    const fromDb = await AgentRun.findOrFail(child.id)
    assert.equal(fromDb.parentRunId, parent.id)
  })

  test('a run with no owner is offered no ask tool; a call to ask anyway is an error', async ({
    assert,
  }) => {
    const { model, runtime } = setup([[ask('c1', DB_QUESTION)], [say('Assumed PostgreSQL.')]])
    const agents = runtime()
    const run = await agents.start('helper', { input: 'set up a db', owner: null })
    await agents.idle()

    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.notInclude(offeredTools(model.doGenerateCalls[0]), 'ask')
    assert.notInclude(systemText(model.doGenerateCalls[0]), 'list the open questions')
    const refused = toolResultOf(model.doGenerateCalls[1], 'c1')
    assert.equal(refused.type, 'error-text')
    assert.include(refused.value, "unavailable tool 'ask'")
    assert.deepEqual(await rowsOf(run.id), [])
    assert.equal(run.askCount, 0)
  })
})
