/*
 * The MCP client bridge against a real MCP server process (stdio, written
 * with the SDK's server: tests/fixtures/mcp_server.ts): an agent calls its
 * tools through a scripted model, the server's elicitations become rows of
 * the run in the inbox, a person answers over HTTP, and the server receives
 * the ElicitResult with the typed values. URL mode round-trips through the
 * server's completion; nobody to answer is `cancel` at once; tools are
 * classified by their annotations; and an app killed mid-elicitation leaves
 * the row withdrawn and the tool call failed cleanly to the model.
 */

import { spawn } from 'node:child_process'
import { test } from '@japa/runner'
import { dbName, sqliteFile } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { eventually } from '../helpers/browser.ts'
import { defineConfig } from '../../src/define_config.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { drive } from '../../src/testing/runtime.ts'
import type { QuestionSet } from '../../src/questions/types.ts'
import { conciergeAgent, MCP_AGENT_NAME, type ConciergeInput } from '../fixtures/mcp_agent.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const PERSON = { 'x-person': 'user:1', 'accept': 'application/json' }

async function startConcierge(
  agents: Agents,
  input: ConciergeInput,
  owner: string | null = 'user:1'
) {
  return agents.start(MCP_AGENT_NAME, { input: JSON.stringify(input), owner })
}

/** The first pending row of the run, once its tool's elicitation opened it */
function pendingRowOf(runId: string) {
  return eventually(`a pending row of run ${runId}`, () =>
    ToolCall.query()
      .where('run_id', runId)
      .where('status', 'pending')
      .first()
      .then((row) => row ?? undefined)
  )
}

/**
 * Once the server's completion (a notification on the connection, after the
 * link's page answered) settled the row: a drive before it finds the run
 * still waiting on it
 */
function settledByServer(rowId: string) {
  return eventually(`row ${rowId} settled by the server`, async () => {
    const row = await ToolCall.findOrFail(rowId)
    return row.status !== 'pending' && row
  })
}

test.group(`MCP client bridge, a real server over stdio | ${dbName()}`, (group) => {
  let agents: Agents

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [conciergeAgent()],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
        recoverOnStart: false,
      }),
    })
    agents = await httpApp.app.container.make('agents.runtime')
    return async () => {
      await agents.close()
      await httpApp.terminate()
    }
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
    await AgentRun.query().delete()
  })

  test('a form elicitation is a question set in the inbox; the server gets the typed answers', async ({
    assert,
    client,
  }) => {
    const started = await startConcierge(agents, { tool: 'profile' })
    const row = await pendingRowOf(started.id)

    // Listed for its owner like any row, as a question set with the server's defaults
    const listed = await client.get('/inbox').headers(PERSON)
    listed.assertStatus(200)
    const groups = listed.body().groups
    assert.deepEqual(
      groups.flatMap((runGroup: { rows: { id: string }[] }) =>
        runGroup.rows.map((entry) => entry.id)
      ),
      [row.id]
    )
    assert.equal(groups[0].rows[0].questionSet.questions[2].id, 'age')
    assert.equal(row.kind, 'ask')
    assert.equal(row.toolName, 'svc_profile')
    const set = row.request as QuestionSet
    assert.deepEqual(
      set.questions.map((question) => [
        question.id,
        question.input?.type ?? 'options',
        question.defaults,
      ]),
      [
        ['name', 'text', []],
        ['email', 'email', []],
        ['age', 'integer', ['30']],
        ['country', 'options', ['fr']],
        ['colors', 'options', ['blue']],
        ['newsletter', 'options', ['true']],
      ]
    )
    assert.deepEqual(set.questions.find((question) => question.id === 'country')!.options, [
      { value: 'fr', label: 'France' },
      { value: 'jp', label: 'Japan' },
    ])

    // A value out of bounds is refused with the field named; nothing reaches the server
    const refused = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(PERSON)
      .json({
        answers: { name: ['Ada'], email: ['ada@example.com'], age: ['12'] },
        digest: viewDigest(row),
      })
    refused.assertStatus(422)

    const reply = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(PERSON)
      .json({
        digest: viewDigest(row),
        answers: {
          name: ['Ada'],
          email: ['ada@example.com'],
          age: ['42'],
          colors: ['red', 'green'],
        },
      })
    reply.assertStatus(200)

    const { run, text } = await drive(agents, started)
    assert.equal(run.status, 'completed')
    assert.deepEqual(JSON.parse(text!), {
      action: 'accept',
      content: {
        name: 'Ada',
        email: 'ada@example.com',
        age: 42,
        country: 'fr',
        colors: ['red', 'green'],
        newsletter: true,
      },
    })
    // The read-only tool ran without an approval, on its own row
    const rows = await ToolCall.query().where('run_id', run.id).orderBy('sequence', 'asc')
    assert.deepEqual(
      rows.map((entry) => [entry.kind, entry.toolName, entry.status, entry.execution ?? null]),
      [
        ['read', 'svc_profile', 'auto', 'succeeded'],
        ['ask', 'svc_profile', 'answered', null],
      ]
    )
  })

  test('a skipped form declines; the server hears decline', async ({ assert, client }) => {
    const started = await startConcierge(agents, { tool: 'profile' })
    const row = await pendingRowOf(started.id)
    const reply = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(PERSON)
      .json({ answers: {}, skip: true, digest: viewDigest(row) })
    reply.assertStatus(200)
    const { text } = await drive(agents, started)
    assert.deepEqual(JSON.parse(text!), { action: 'decline' })
  })

  test('a URL elicitation is a link to open; the server completing it settles the row', async ({
    assert,
  }) => {
    const started = await startConcierge(agents, { tool: 'connect' })
    const row = await pendingRowOf(started.id)
    assert.equal(row.kind, 'action')
    assert.equal(row.request.summary, 'Connect your calendar account')
    const url = row.request.args.url as string
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/connect\/link-/)

    // The person opens the link: the server completes the interaction
    const opened = await fetch(url)
    assert.equal(await opened.text(), 'Connected. You can close this tab.')
    await settledByServer(row.id)

    const { run, text } = await drive(agents, started)
    assert.equal(run.status, 'completed')
    assert.equal(text, 'connect: accept')
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'approved')
    assert.equal(settled.answeredVia, 'mcp')
    assert.equal(settled.answeredBy, 'mcp:svc')
  })

  test('a URL elicitation the person declines is declined', async ({ assert, client }) => {
    const started = await startConcierge(agents, { tool: 'connect' })
    const row = await pendingRowOf(started.id)
    const reply = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(PERSON)
      .json({ approved: false, reason: 'Not this account', digest: viewDigest(row) })
    reply.assertStatus(200)
    const { text } = await drive(agents, started)
    assert.equal(text, 'connect: decline')
  })

  test('nobody to answer: the elicitation is cancelled at once, no row opened', async ({
    assert,
  }) => {
    const started = await startConcierge(agents, { tool: 'profile' }, null)
    const { run, text } = await drive(agents, started)
    assert.equal(run.status, 'completed')
    assert.deepEqual(JSON.parse(text!), { action: 'cancel' })
    const rows = await ToolCall.query().where('run_id', run.id)
    const kinds = rows.map((row) => row.kind)
    assert.deepEqual(kinds, ['read'])
  })

  test('a destructive tool waits for approval, and runs once approved', async ({
    assert,
    client,
  }) => {
    const started = await startConcierge(agents, { tool: 'delete_booking', args: { id: 'b1' } })
    let { pending } = await drive(agents, started)
    assert.deepEqual(
      pending.map((row) => [row.kind, row.toolName]),
      [['action', 'svc_delete_booking']]
    )
    const reply = await client
      .post(`/inbox/rows/${pending[0].id}/reply`)
      .headers(PERSON)
      .json({ approved: true, digest: viewDigest(pending[0]) })
    reply.assertStatus(200)
    let run
    let text
    ;({ run, pending, text } = await drive(agents, started))
    assert.equal(run.status, 'completed')
    assert.include(text!, 'deleted b1')
  })

  test("the testing kit's drive stops at an elicitation's row, form or URL, and finishes once it is settled", async ({
    assert,
  }) => {
    // Form mode: the tool's call stays open in the driver while its row waits
    const started = await startConcierge(agents, { tool: 'profile' })
    let { run, pending, text } = await drive(agents, started)
    assert.equal(run.status, 'running', 'its driver holds the call open')
    assert.isNull(text)
    assert.deepEqual(
      pending.map((row) => [row.kind, row.toolName]),
      [['ask', 'svc_profile']]
    )
    await agents.inbox.settle(
      pending[0].id,
      { answers: { name: ['Ada'], email: ['ada@example.com'] } },
      { by: 'user:1', via: 'test' }
    )
    ;({ run, pending, text } = await drive(agents, started))
    assert.equal(run.status, 'completed')
    assert.deepEqual(pending, [])
    assert.deepEqual(JSON.parse(text!).content, {
      name: 'Ada',
      email: 'ada@example.com',
      age: 30,
      country: 'fr',
      colors: ['blue'],
      newsletter: true,
    })

    // URL mode: a link to open; the server completing it settles the row
    const connecting = await startConcierge(agents, { tool: 'connect' })
    ;({ run, pending } = await drive(agents, connecting))
    assert.equal(run.status, 'running')
    assert.deepEqual(
      pending.map((row) => [row.kind, row.toolName]),
      [['action', 'svc_connect']]
    )
    await fetch(pending[0].request.args.url as string)
    await settledByServer(pending[0].id)
    ;({ run, text } = await drive(agents, connecting))
    assert.equal(run.status, 'completed')
    assert.equal(text, 'connect: accept')
  }).timeout(30_000)

  test('killed mid-elicitation: the row is withdrawn, the call fails cleanly to the model', async ({
    assert,
    client,
    cleanup,
  }) => {
    // Queued, not started: the worker drives it, not this process
    const started = await AgentRun.create({
      agent: MCP_AGENT_NAME,
      status: 'queued',
      input: JSON.stringify({ tool: 'profile' }),
      ownerId: 'user:1',
    })
    const worker = spawn(process.execPath, [TS_HOOKS, 'tests/fixtures/mcp_worker.ts', started.id], {
      env: { ...process.env, DB: dbName(), DB_FILE: sqliteFile(), LEASE_TTL: '300' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    cleanup(() => void worker.kill('SIGKILL'))
    const line = await new Promise<string>((resolve, reject) => {
      let output = ''
      worker.stdout!.on('data', (chunk) => {
        output += String(chunk)
        if (output.includes('\n')) resolve(output.trim())
      })
      worker.on('exit', () =>
        reject(new Error(`the worker exited before its elicitation: ${output}`))
      )
    })
    const { rowId } = JSON.parse(line) as { rowId: string }
    const exited = new Promise((resolve) => worker.on('exit', resolve))
    worker.kill('SIGKILL')
    await exited

    // The lease lapses; recovery here drives the run on
    await eventually('the worker lease to lapse', async () => (await agents.recover()) > 0)
    const { run, text } = await drive(agents, started)
    assert.equal(run.status, 'completed')
    assert.include(text!, 'interrupted by a process restart')
    const withdrawn = await ToolCall.findOrFail(rowId)
    assert.equal(withdrawn.status, 'cancelled')
    const call = await ToolCall.query().where('run_id', run.id).where('kind', 'read').firstOrFail()
    assert.equal(call.execution, 'interrupted')

    // A late reply is refused, never claimed as a settlement
    const late = await client
      .post(`/inbox/rows/${rowId}/reply`)
      .headers(PERSON)
      .json({
        answers: { name: ['Ada'], email: ['ada@example.com'] },
        digest: viewDigest(withdrawn),
      })
    late.assertStatus(410)
  }).timeout(30_000)
})
