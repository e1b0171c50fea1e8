/*
 * A run's page as JSON over a real Adonis HTTP server (`GET
 * /inbox/runs/:id`): the timeline of a run that took an intake, asked a
 * question, read logs and had an action approved with edited args, read
 * while it waits and once it completed; people by the `displayName` hook
 * (the id when the hook fails); and who may see a run: its owner by
 * default, or whoever the app's row hooks let see its rows.
 */

import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { ask, call, deployTools, say, scriptedModel, choice } from '../helpers/runtime.ts'
import { createActionRow, createRun } from '../helpers/rows.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import { callKey } from '../../src/runtime/effects/keys.ts'
import type { AgentInboxConfig } from '../../src/types/main.ts'
import { viewDigest } from '../../src/governance/view.ts'

const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })

/** The status a GET of `path` answers, as `who` (null: a guest) */
function statusFrom(client: ApiClient) {
  return async (path: string, who: string | null) => {
    const request = client.get(path)
    const response = await (who
      ? request.headers(person(who))
      : request.header('accept', 'application/json'))
    return response.status()
  }
}

const NAMES: Record<string, string> = { ada: 'Ada Lovelace' }

function releaseAgent() {
  const tools = deployTools()
  return defineAgent({
    name: 'release',
    instructions: 'Release.',
    tools: [tools.deploy, tools.readLogs],
    intake: choice('service', 'Which service?', ['Public API', 'Web app']),
    model: scriptedModel([
      [say('Let me ask first.'), ask('ask-1', choice('pace', 'How fast?', ['Canary', 'All']))],
      [
        say('Checking the logs, then deploying.'),
        call('look-1', 'read_logs', { service: 'api' }),
        call('deploy-1', 'deploy', { branch: 'main' }),
      ],
      [say('Released release.')],
    ]),
  })
}

function appConfig(inbox: AgentInboxConfig['inbox']) {
  return defineConfig({
    agents: [releaseAgent()],
    inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null, ...inbox },
  })
}

test.group(`Run page | ${dbName()}`, (group) => {
  let agents: Agents

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: appConfig({
        displayName: (id) => {
          if (id === 'bob') throw new Error('No such user')
          return NAMES[id] ?? id
        },
      }),
    })
    agents = await httpApp.app.container.make('agents.runtime')
    return () => httpApp.terminate()
  })

  test('the timeline tells what the run did, asked and was answered, live and when done', async ({
    client,
    assert,
  }) => {
    const run = await agents.start('release', { input: 'Ship it', owner: 'ada' })
    await agents.idle()
    const timeline = async () => {
      const response = await client.get(`/inbox/runs/${run.id}`).headers(person('ada'))
      response.assertStatus(200)
      return response.body()
    }
    const answerPending = async (reply: object) => {
      const row = await ToolCall.query()
        .where('run_id', run.id)
        .where('status', 'pending')
        .firstOrFail()
      const response = await client
        .post(`/inbox/rows/${row.id}/reply`)
        .headers(person('ada'))
        .json({ ...reply, digest: viewDigest(row) })
      response.assertStatus(200)
      await agents.idle()
    }

    // Waiting on its intake: the intake shows, pending; no end yet
    const waiting = await timeline()
    assert.equal(waiting.timeline.run.status, 'waiting')
    assert.deepEqual(
      waiting.timeline.entries.map((entry: any) => entry.type),
      ['input', 'call']
    )
    assert.equal(waiting.timeline.entries[1].row.kind, 'intake')
    assert.equal(waiting.timeline.entries[1].row.status, 'pending')
    assert.equal(waiting.people.ada, 'Ada Lovelace')

    await answerPending({ answers: { service: ['service-b'] } })
    await answerPending({ answers: {}, skip: true })
    await answerPending({ approved: true, editedInput: { branch: 'release' } })

    const done = await timeline()
    assert.equal(done.timeline.run.status, 'completed')
    const entries = done.timeline.entries
    assert.deepEqual(
      entries.map((entry: any) =>
        entry.type === 'call' ? `call ${entry.toolName} ${entry.row?.status}` : entry.type
      ),
      [
        'input',
        'call intake answered',
        'step',
        'call ask answered',
        'step',
        'call read_logs auto',
        'call deploy approved',
        'step',
        'end',
      ]
    )
    const [input, intake, firstStep, asked, , read, deploy, lastStep, end] = entries
    assert.equal(input.text, 'Ship it')
    assert.deepEqual(intake.row.settled.outcome.answers, { service: ['service-b'] })
    assert.equal(intake.row.settled.by, 'ada')
    assert.equal(intake.row.settled.via, 'api')
    assert.equal(firstStep.text, 'Let me ask first.')
    assert.equal(firstStep.step, 1)
    assert.isTrue(asked.row.settled.outcome.skipped)
    assert.equal(asked.step, 1)
    assert.deepEqual(read.args, { service: 'api' })
    assert.deepEqual(read.result, { value: 'api: all quiet' })
    assert.equal(read.execution, 'succeeded')
    assert.include(read.output.value, 'all quiet')
    assert.deepEqual(deploy.args, { branch: 'main' })
    assert.deepEqual(deploy.row.settled.outcome.editedInput, { branch: 'release' })
    assert.deepEqual(deploy.result, { value: { deployed: 'release' } })
    assert.equal(deploy.execution, 'succeeded')
    assert.include(deploy.output.value, 'edited the arguments')
    // How the action ran: outside a transaction, once, with its call's key
    assert.deepEqual(
      { ...deploy.action, startedAt: typeof deploy.action.startedAt },
      {
        transactional: false,
        idempotencyKey: callKey(run.id, 1, 'deploy-1'),
        startedAt: 'string',
        executedAt: deploy.action.executedAt,
        starts: 1,
        effects: [],
      }
    )
    assert.isAtLeast(Date.parse(deploy.action.executedAt), Date.parse(deploy.action.startedAt))
    assert.isNull(read.action, 'a read is no action')
    assert.equal(lastStep.text, 'Released release.')
    assert.equal(end.status, 'completed')
    assert.equal(end.text, 'Released release.')
  })

  test('people are named by the hook; a hook that fails shows the id', async ({
    client,
    assert,
  }) => {
    const run = await createRun('ada')
    await createActionRow({ runId: run.id, ownerId: 'ada' })
    const ada = await client.get('/inbox').headers(person('ada'))
    ada.assertStatus(200)
    assert.deepEqual(ada.body().people, { ada: 'Ada Lovelace' })
    const bob = await client.get('/inbox').headers(person('bob'))
    assert.deepEqual(bob.body().people, { bob: 'bob' })
  })

  test('the inbox tells the status of the runs its page watches, those the person may see', async ({
    client,
    assert,
  }) => {
    const mine = await AgentRun.create({ agent: 'release', ownerId: 'ada', status: 'completed' })
    const theirs = await AgentRun.create({ agent: 'release', ownerId: 'bob', status: 'failed' })
    const response = await client
      .get('/inbox')
      .headers({ ...person('ada'), 'x-agent-inbox-runs': `${mine.id},${theirs.id},nonsense` })
    response.assertStatus(200)
    assert.deepEqual(Object.keys(response.body().runs), [mine.id])
    assert.equal(response.body().runs[mine.id].status, 'completed')
  })

  test('a run still waiting with nothing pending any more is shown running: the inbox and its page', async ({
    client,
    assert,
  }) => {
    // Its last row settled, the executor not there yet: nobody is waited for
    const resuming = await createRun('ada')
    await createActionRow({ runId: resuming.id, ownerId: 'ada', status: 'approved' })
    const waiting = await createRun('ada')
    await createActionRow({ runId: waiting.id, ownerId: 'ada' })
    const response = await client
      .get('/inbox')
      .headers({ ...person('ada'), 'x-agent-inbox-runs': `${resuming.id},${waiting.id}` })
    response.assertStatus(200)
    assert.equal(response.body().runs[resuming.id].status, 'running')
    assert.equal(response.body().runs[waiting.id].status, 'waiting')
    const page = async (id: string) => {
      const shown = await client.get(`/inbox/runs/${id}`).headers(person('ada'))
      return shown.body().timeline.run.status
    }
    assert.equal(await page(resuming.id), 'running')
    assert.equal(await page(waiting.id), 'waiting')
  })

  test('only its owner sees a run by default; a run id that is not a UUID is no run', async ({
    client,
    assert,
  }) => {
    const statusOf = statusFrom(client)
    const run = await createRun('ada')
    assert.equal(await statusOf(`/inbox/runs/${run.id}`, 'ada'), 200)
    assert.equal(await statusOf(`/inbox/runs/${run.id}`, 'bob'), 403)
    assert.equal(await statusOf(`/inbox/runs/${run.id}`, null), 403)
    assert.equal(await statusOf('/inbox/runs/not-a-run', 'ada'), 404)
    const unknown = '00000000-0000-4000-8000-000000000000'
    assert.equal(await statusOf(`/inbox/runs/${unknown}`, 'ada'), 404)
  })
})

test.group(`Run page | access through the row hooks | ${dbName()}`, (group) => {
  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: appConfig({
        authorize: (_ctx, row, who) => who === 'admin' || row.ownerId === who,
        scope: (query, _ctx, who) => {
          if (who !== 'admin') query.where('owner_id', who)
        },
      }),
    })
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
    await AgentRun.query().delete()
  })

  test("whoever may see a run's rows sees the run, in its page and in the history", async ({
    client,
    assert,
  }) => {
    const statusOf = statusFrom(client)
    const row = await createActionRow({ ownerId: 'ada', status: 'approved' })
    const run = await AgentRun.findOrFail(row.runId)
    await run.merge({ status: 'completed', ownerId: 'ada', finishedAt: run.createdAt }).save()
    // A run with no row: its owner's alone, whatever the row hooks say
    const bare = await AgentRun.create({ agent: 'release', ownerId: 'bob', status: 'queued' })

    assert.equal(await statusOf(`/inbox/runs/${run.id}`, 'admin'), 200)
    assert.equal(await statusOf(`/inbox/runs/${run.id}`, 'ada'), 200)
    assert.equal(await statusOf(`/inbox/runs/${run.id}`, 'bob'), 403)
    assert.equal(await statusOf(`/inbox/runs/${bare.id}`, 'bob'), 200)
    assert.equal(await statusOf(`/inbox/runs/${bare.id}`, 'admin'), 403)

    const listed = async (who: string) => {
      const response = await client.get('/inbox/history').qs({ view: 'runs' }).headers(person(who))
      response.assertStatus(200)
      return response.body().runs.map((item: any) => item.id)
    }
    assert.deepEqual(await listed('admin'), [run.id])
    assert.deepEqual(await listed('ada'), [run.id])
    assert.deepEqual(await listed('bob'), [])
  })
})
