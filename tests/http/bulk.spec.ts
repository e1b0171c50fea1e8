/*
 * Bulk decisions over a real Adonis HTTP server (`POST /inbox/bulk`): one
 * request approves (or rejects with one reason, or confirms on defaults)
 * several rows, each settled by its own conditional update. The answer
 * lists each row's fate in order (a row settled first is a 409 naming who,
 * another person's row a 403, no such row a 404); each run resumes once
 * however many of its rows the request settled, and every approved action
 * runs exactly once. A reply that belongs to one row (edited args,
 * answers) is refused before any row is touched.
 */

import { test } from '@japa/runner'
import type { ApplicationService } from '@adonisjs/core/types'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { call, deployTools, DB_QUESTION, ask, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { digestsOf } from '../helpers/rows.ts'

const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })

/** Each run calls deploy once on its own branch, then says what it heard */
function deployModel() {
  return scriptedModel(
    Array.from({ length: 40 }, () => (options: { prompt: unknown[] }) => {
      const asked = options.prompt.some((message: any) => message.role === 'tool')
      if (asked) return [say('done')]
      const input = JSON.stringify(options.prompt)
      const branch = /branch (\w+)/.exec(input)?.[1] ?? 'main'
      return [call(`deploy-${branch}`, 'deploy', { branch })]
    })
  )
}

test.group(`Bulk decisions | ${dbName()}`, (group) => {
  let app: ApplicationService
  let agents: Agents
  const tools = deployTools()
  const resumed: string[] = []

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'deployer',
            instructions: 'Deploy.',
            tools: [tools.deploy],
            model: deployModel(),
          }),
          defineAgent({
            name: 'asker',
            instructions: 'Ask.',
            model: scriptedModel(
              Array.from({ length: 20 }, () => (options: { prompt: unknown[] }) => {
                const answered = options.prompt.some((message: any) => message.role === 'tool')
                return answered ? [say('asked')] : [ask('c1', DB_QUESTION)]
              })
            ),
          }),
        ],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
    })
    app = httpApp.app
    agents = await app.container.make('agents.runtime')
    const emitter = await app.container.make('emitter')
    emitter.on('agents:run:resumed', ({ run }) => void resumed.push(run.id))
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
    resumed.length = 0
    tools.executions.length = 0
  })

  /** A run of `agent` owned by `owner`, once it waits */
  async function waitingRun(agent: string, owner: string, input: string) {
    const run = await agents.start(agent, { input, owner })
    await agents.idle()
    const row = await ToolCall.query()
      .where('run_id', run.id)
      .where('status', 'pending')
      .firstOrFail()
    return { run: await AgentRun.findOrFail(run.id), row }
  }

  test('approves several rows in one request; each row has its fate, each run resumes once', async ({
    client,
    assert,
  }) => {
    const one = await waitingRun('deployer', 'ada', 'Ship branch alpha')
    const two = await waitingRun('deployer', 'ada', 'Ship branch beta')
    const three = await waitingRun('deployer', 'ada', 'Ship branch gamma')
    const bobs = await waitingRun('deployer', 'bob', 'Ship branch delta')
    // A second wait on the first run: two of its rows go in the same request
    const extra = await agents.inbox.open(one.run, {
      kind: 'action',
      toolName: 'deploy',
      args: { branch: 'alpha' },
      summary: 'Deploy alpha again',
    })
    // Someone settles the third first: the bulk request loses that one
    const first = await client
      .post(`/inbox/rows/${three.row.id}/reply`)
      .headers(person('ada'))
      .json({ approved: false, reason: 'Not gamma', digest: viewDigest(three.row) })
    first.assertStatus(200)
    await agents.idle()
    resumed.length = 0

    const missing = '00000000-0000-4000-8000-000000000000'
    const response = await client
      .post('/inbox/bulk')
      .headers(person('ada'))
      .json({
        rowIds: [one.row.id, two.row.id, three.row.id, bobs.row.id, extra.id, missing, 'nope'],
        digests: digestsOf(one.row, two.row, three.row, bobs.row, extra),
        approved: true,
      })
    response.assertStatus(200)
    const results = response.body().results as any[]
    assert.deepEqual(
      results.map((result) => [result.rowId, result.settled ? 'settled' : result.error.status]),
      [
        [one.row.id, 'settled'],
        [two.row.id, 'settled'],
        [three.row.id, 409],
        [bobs.row.id, 403],
        [extra.id, 'settled'],
        [missing, 404],
        ['nope', 404],
      ]
    )
    assert.equal(results[0].settled.by, 'ada')
    assert.equal(results[0].settled.via, 'api')
    assert.equal(results[2].error.errors[0].code, 'E_ALREADY_SETTLED')
    assert.equal(results[2].error.errors[0].meta.settledBy, 'ada')

    await agents.idle()
    // Each run resumed once, the first with two of its rows settled by the request
    assert.sameMembers(resumed, [one.run.id, two.run.id])
    for (const id of [one.row.id, two.row.id, extra.id]) {
      const row = await ToolCall.findOrFail(id)
      assert.equal(row.status, 'approved')
      assert.equal(row.answeredBy, 'ada')
      assert.deepEqual(row.reply, { approved: true })
    }
    // The actions the model asked for ran once each; the rejected one and bob's never
    assert.sameMembers(
      tools.executions.map((execution) => execution.branch),
      ['alpha', 'beta']
    )
    for (const { run } of [one, two, three]) {
      const finished = await AgentRun.findOrFail(run.id)
      assert.equal(finished.status, 'completed', `run failed: ${finished.error}`)
    }
    const untouched = await ToolCall.findOrFail(bobs.row.id)
    assert.equal(untouched.status, 'pending')
  })

  test('one reason rejects several; question sets confirm on their defaults', async ({
    client,
    assert,
  }) => {
    const one = await waitingRun('deployer', 'ada', 'Ship branch alpha')
    const two = await waitingRun('deployer', 'ada', 'Ship branch beta')
    const rejected = await client
      .post('/inbox/bulk')
      .headers(person('ada'))
      .json({
        rowIds: [one.row.id, two.row.id],
        digests: digestsOf(one.row, two.row),
        approved: false,
        reason: 'Freeze week',
      })
    rejected.assertStatus(200)
    for (const { row } of [one, two]) {
      await row.refresh()
      assert.equal(row.status, 'rejected')
      assert.equal((row.outcome as { reason?: string }).reason, 'Freeze week')
    }

    const asked = await waitingRun('asker', 'ada', 'Pick')
    const askedToo = await waitingRun('asker', 'ada', 'Pick again')
    const confirmed = await client
      .post('/inbox/bulk')
      .headers(person('ada'))
      .json({
        rowIds: [asked.row.id, askedToo.row.id],
        digests: digestsOf(asked.row, askedToo.row),
        answers: {},
      })
    confirmed.assertStatus(200)
    for (const { row } of [asked, askedToo]) {
      await row.refresh()
      assert.equal(row.status, 'answered')
      const outcome = row.outcome as QuestionOutcome
      assert.deepEqual(outcome.answers, { db: ['pg'] })
      assert.isFalse(outcome.skipped)
    }
    await agents.idle()
    assert.lengthOf(tools.executions, 0)
  })

  test('a reply that belongs to one row, or no rows, is refused before any row is touched', async ({
    client,
    assert,
  }) => {
    const one = await waitingRun('deployer', 'ada', 'Ship branch alpha')
    const asked = await waitingRun('asker', 'ada', 'Pick')

    const edited = await client
      .post('/inbox/bulk')
      .headers(person('ada'))
      .json({
        rowIds: [one.row.id],
        digests: digestsOf(one.row),
        approved: true,
        editedInput: { branch: 'x' },
      })
    edited.assertStatus(422)
    assert.equal(edited.body().errors[0].field, 'editedInput')

    const answers = await client
      .post('/inbox/bulk')
      .headers(person('ada'))
      .json({ rowIds: [asked.row.id], digests: digestsOf(asked.row), answers: { db: ['mysql'] } })
    answers.assertStatus(422)
    assert.equal(answers.body().errors[0].field, 'answers')

    const malformed = await client
      .post('/inbox/bulk')
      .headers(person('ada'))
      .json({ rowIds: [one.row.id], digests: digestsOf(one.row), approved: 'yes' })
    malformed.assertStatus(422)

    const none = await client
      .post('/inbox/bulk')
      .headers(person('ada'))
      .json({ rowIds: [], approved: true })
    none.assertStatus(422)
    assert.equal(none.body().errors[0].field, 'rowIds')

    const guest = await client
      .post('/inbox/bulk')
      .header('accept', 'application/json')
      .json({ rowIds: [one.row.id], digests: digestsOf(one.row), approved: true })
    guest.assertStatus(403)

    // Names the body parser drops are refused like any unknown field, never settled without
    const dropped: [object, string][] = [
      [{ constructor: { prototype: { x: 1 } } }, 'constructor'],
      [JSON.parse('{"__proto__": {"x": 1}}'), '__proto__'],
      [{ toString: 'x' }, 'toString'],
    ]
    for (const [extra, field] of dropped) {
      const response = await client
        .post('/inbox/bulk')
        .headers(person('ada'))
        .json({ rowIds: [one.row.id], digests: digestsOf(one.row), approved: true, ...extra })
      response.assertStatus(422)
      assert.deepEqual(
        response.body().errors.map((error: any) => error.field),
        [field]
      )
    }

    for (const row of [one.row, asked.row]) {
      await row.refresh()
      assert.equal(row.status, 'pending')
    }
  })
})
