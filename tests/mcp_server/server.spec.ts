/*
 * The inbox as an MCP server (docs/design.md §7.8), seen by outside agents:
 * the SDK's real `Client` over Streamable HTTP against the fixture app on a
 * real port, tokens made by its `node ace agents:mcp-token`, rows settled
 * by this process's inbox on the same database (another process than the
 * server's, as a person's reply on another web process would be).
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { ApplicationService } from '@adonisjs/core/types'
import { createTestApp } from '../helpers/database.ts'
import { startFixtureApp, type FixtureApp } from '../helpers/fixture_app.ts'
import { eventually } from '../helpers/browser.ts'
import {
  callAsTask,
  mcpClient,
  mcpRows,
  mcpSecret,
  mcpRowCount,
  mcpToken,
  rowStatus,
  taskStatus,
  revokeToken,
  structured,
  taskResult,
} from '../helpers/mcp_clients.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { InboxEvent } from '../../src/persistence/models/inbox_event.ts'
import type { Inbox } from '../../src/inbox/inbox.ts'

const ADA = 1
const GRACE = 2
const MARGARET = 3

const PLAN = {
  preamble: 'Before I migrate:',
  questions: [
    {
      id: 'db',
      prompt: 'Which database?',
      options: [
        { value: 'pg', label: 'PostgreSQL' },
        { value: 'mysql', label: 'MySQL' },
      ],
      defaults: ['pg'],
    },
    { id: 'replicas', prompt: 'How many replicas?', input: { type: 'integer' }, defaults: ['2'] },
  ],
}

type Suite = {
  fixture: FixtureApp
  inbox: Inbox
  app: ApplicationService
  ada: string
  adaId: string
}

/** The ids of the rows MCP calls opened so far */
async function rowIds() {
  const rows = await mcpRows()
  return new Set(rows.map((row) => row.id))
}

/** The pending row an MCP call opened since `before`, once committed */
function pendingMcpRow(toolName: string, before: Set<string>) {
  return eventually(`a pending ${toolName} row`, async () => {
    const rows = await mcpRows()
    return rows.find(
      (row) => !before.has(row.id) && row.toolName === toolName && row.status === 'pending'
    )
  })
}

test.group('MCP server: outside agents ask through the inbox', (group) => {
  const suite = {} as Suite
  const clients: Client[] = []
  group.setup(async () => {
    // A call without a task waits up to a minute: every wait here ends by a settle
    suite.fixture = await startFixtureApp({ env: { MCP_WAIT: '60000' } })
    const reader = await createTestApp({ migrate: false })
    suite.app = reader.app
    suite.inbox = await reader.app.container.make('agents.inbox')
    const token = await mcpToken(ADA, 'claude-code')
    suite.ada = token.secret
    suite.adaId = token.id
    return async () => {
      await reader.terminate()
      await suite.fixture.stop()
    }
  })
  group.each.teardown(async () => {
    for (const client of clients.splice(0)) await client.close()
  })
  const connect = async (secret = suite.ada) => {
    const client = await mcpClient(suite.fixture.baseUrl, secret)
    clients.push(client)
    return client
  }

  test('ask_human opens a row owned by the token’s user, naming the client, and returns the typed answer', async ({
    assert,
  }) => {
    const client = await connect()
    const before = await rowIds()
    const call = client.callTool({ name: 'ask_human', arguments: PLAN })
    const row = await pendingMcpRow('ask_human', before)
    assert.equal(row.ownerId, String(ADA))
    assert.equal(row.toolCallId, `mcp:${ADA}:${suite.adaId}`)
    const created = await InboxEvent.query()
      .where('row_id', row.id)
      .where('type', 'created')
      .firstOrFail()
    assert.equal(created.actor, 'mcp:claude-code')
    assert.equal(created.channel, 'mcp')
    await suite.inbox.settle(
      row.id,
      { answers: { db: ['mysql'], replicas: ['3'] } },
      { by: String(ADA), via: 'web' }
    )
    const answer = structured(await call)
    assert.equal(answer.status, 'answered')
    assert.deepEqual(answer.answers, { db: 'mysql', replicas: 3 })
    assert.equal(answer.answeredBy, String(ADA))
  })

  test('request_approval rejected with a reason: the client receives the reason', async ({
    assert,
  }) => {
    const client = await connect()
    const before = await rowIds()
    const call = client.callTool({
      name: 'request_approval',
      arguments: {
        title: 'db:migrate',
        summary: 'Run 3 migrations',
        arguments: { env: 'production' },
      },
    })
    const row = await pendingMcpRow('db:migrate', before)
    assert.deepEqual(row.request.args, { client: 'claude-code', env: 'production' })
    await suite.inbox.settle(
      row.id,
      { approved: false, reason: 'Not during the sale' },
      { by: String(ADA), via: 'web' }
    )
    const answer = structured(await call)
    assert.equal(answer.status, 'rejected')
    assert.isFalse(answer.approved)
    assert.equal(answer.reason, 'Not during the sale')
  })

  test('a policy that allows the action settles it without a person', async ({ assert }) => {
    const client = await connect()
    const result = await client.callTool({
      name: 'request_approval',
      arguments: { title: 'status:check', summary: 'Read the status page' },
    })
    const answer = structured(result)
    assert.equal(answer.status, 'approved')
    assert.equal(answer.answeredVia, 'policy')
    const row = await ToolCall.findOrFail(answer.id)
    assert.equal(row.status, 'auto')
    const decided = await InboxEvent.query().where('row_id', row.id).firstOrFail()
    assert.equal(decided.type, 'policy-decided')
    assert.equal(decided.data?.client, 'claude-code')
  })

  test('a quorum of two needs two approvers, the requester not among them', async ({ assert }) => {
    const client = await connect()
    const task = await callAsTask(client, 'request_approval', {
      title: 'db:drop',
      summary: 'Drop the staging database',
      arguments: { database: 'staging' },
    })
    const row = await ToolCall.findOrFail(task.taskId)
    assert.deepEqual(row.request.approval.stages[0].approvers, [String(GRACE), String(MARGARET)])
    await suite.inbox.settle(row.id, { approved: true }, { by: String(GRACE), via: 'web' })
    assert.equal(await taskStatus(client, task.taskId), 'working')
    assert.equal(await rowStatus(row.id), 'pending')
    await suite.inbox.settle(row.id, { approved: true }, { by: String(MARGARET), via: 'web' })
    const answer = structured(await taskResult(client, task.taskId))
    assert.equal(answer.status, 'approved')
    assert.equal(await taskStatus(client, task.taskId), 'completed')
  })

  test('a grant scoped to the client lets its next call through, and no other client’s', async ({
    assert,
  }) => {
    const client = await connect()
    const action = {
      title: 'cache:clear',
      summary: 'Clear the cache',
      arguments: { env: 'staging' },
    }
    const first = await callAsTask(client, 'request_approval', action)
    await suite.inbox.settle(
      first.taskId,
      { approved: true },
      { by: String(ADA), via: 'web', grant: 'args' }
    )
    assert.equal(structured(await taskResult(client, first.taskId)).status, 'approved')
    const again = structured(await client.callTool({ name: 'request_approval', arguments: action }))
    assert.equal(again.status, 'approved')
    assert.equal(again.answeredVia, 'grant')
    // Another client of Ada's is not covered
    const other = await connect(await mcpSecret(ADA, 'codex'))
    const task = await callAsTask(other, 'request_approval', action)
    assert.equal(await taskStatus(other, task.taskId), 'working')
    await suite.inbox.withdraw(task.taskId)
  })

  test('the app’s owner hook says who answers; nobody to answer is a tool error and no row', async ({
    assert,
  }) => {
    const client = await connect()
    const task = await callAsTask(client, 'ask_human', { ...PLAN, to: 'grace' })
    const row = await ToolCall.findOrFail(task.taskId)
    assert.equal(row.ownerId, String(GRACE))
    await suite.inbox.withdraw(row.id)
    assert.equal(await taskStatus(client, task.taskId), 'cancelled')
    const before = await mcpRowCount()
    const refused = await client.callTool({
      name: 'ask_human',
      arguments: { ...PLAN, to: 'nobody' },
    })
    assert.isTrue(refused.isError)
    assert.equal(await mcpRowCount(), before)
  })

  test('nobody answers in time: an approval expires rejected, and the client is told so', async ({
    assert,
  }) => {
    const client = await connect()
    const task = await callAsTask(client, 'request_approval', {
      title: 'deploy',
      summary: 'Deploy the release',
    })
    const agents = await suite.app.container.make('agents.runtime')
    await agents.sweep({ now: DateTime.now().plus({ days: 2 }) })
    const answer = structured(await taskResult(client, task.taskId))
    assert.equal(answer.status, 'expired')
    assert.isFalse(answer.approved)
  })

  test('a bad or revoked token gets 401 and opens nothing', async ({ assert }) => {
    const before = await mcpRowCount()
    const statusOf = (secret: string) =>
      fetch(new URL('/mcp', suite.fixture.baseUrl), {
        method: 'POST',
        headers: {
          'Authorization': `Bearer ${secret}`,
          'Content-Type': 'application/json',
          'Accept': 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'ask_human', arguments: PLAN },
        }),
      }).then((response) => response.status)
    // No token id at all; then a real id with a wrong secret
    assert.equal(await statusOf('oat_bm90IGEgdG9rZW4.bm90IGEgc2VjcmV0'), 401)
    const token = await mcpToken(GRACE, 'old-laptop')
    assert.equal(await statusOf(`${token.secret.split('.')[0]}.d3Jvbmcgc2VjcmV0`), 401)
    const client = await connect(token.secret)
    await client.listTools()
    await revokeToken(GRACE, token.id)
    assert.equal(await statusOf(token.secret), 401)
    await assert.rejects(() => client.callTool({ name: 'ask_human', arguments: PLAN }))
    assert.equal(await mcpRowCount(), before)
  })

  test('a malformed question set is a tool error naming the problem, and opens no row', async ({
    assert,
  }) => {
    const client = await connect()
    const before = await mcpRowCount()
    const result = await client.callTool({
      name: 'ask_human',
      arguments: { questions: [{ ...PLAN.questions[0], defaults: ['oracle'] }] },
    })
    assert.isTrue(result.isError)
    assert.include((result.content as { text: string }[])[0].text, 'questions[0].defaults')
    assert.equal(await mcpRowCount(), before)
  })

  test('malformed requests and arguments are refused, never a 5xx, and open nothing', async ({
    assert,
  }) => {
    const before = await mcpRowCount()
    const post = (body: string) =>
      fetch(new URL('/mcp', suite.fixture.baseUrl), {
        method: 'POST',
        headers: {
          'Authorization': `Bearer ${suite.ada}`,
          'Content-Type': 'application/json',
          'Accept': 'application/json, text/event-stream',
        },
        body,
      }).then((response) => response.status)
    const call = (name: string, args: unknown) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      })
    const bodies = [
      '{',
      '{}',
      '[]',
      '"text"',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' }),
      call('ask_human', 'a string'),
      call('ask_human', { questions: 'x'.repeat(200_000) }),
      call('request_approval', { title: '\u0000', summary: ['x'], arguments: 'no' }),
      call('request_approval', { title: 'a\u0000b', summary: 'NUL', arguments: { k: '\u0000' } }),
      call('get_answer', { id: '\u0000'.repeat(50) }),
      call('get_answer', { id: { $ne: null } }),
      call('no_such_tool', {}),
    ]
    for (const body of bodies) {
      const status = await post(body)
      assert.isBelow(status, 500, body.slice(0, 80))
    }
    // No session to stream or end: GET and DELETE are refused as such
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/mcp', suite.fixture.baseUrl), {
        method,
        headers: { Authorization: `Bearer ${suite.ada}`, Accept: 'text/event-stream' },
      })
      assert.equal(response.status, 405, method)
    }
    assert.equal(await mcpRowCount(), before)
  })

  test('50 concurrent clients each get their own answer, exactly once', async ({ assert }) => {
    const secret = suite.ada
    const clientsOf = await Promise.all(Array.from({ length: 50 }, () => connect(secret)))
    const set = (index: number) => ({
      questions: [
        {
          id: 'n',
          prompt: `Number for client ${index}?`,
          input: { type: 'integer' },
          defaults: ['0'],
        },
      ],
    })
    const before = await rowIds()
    const calls = clientsOf.map((client, index) =>
      client.callTool({ name: 'ask_human', arguments: set(index) })
    )
    const rows = await eventually('50 pending rows', async () => {
      const all = await mcpRows()
      const found = all.filter((row) => !before.has(row.id) && row.status === 'pending')
      return found.length === 50 ? found : undefined
    })
    // Each row answered with its own client's number, read from its own prompt
    await Promise.all(
      rows.map((row) => {
        const index = /client (\d+)/.exec(row.request.questions[0].prompt)![1]
        return suite.inbox.settle(
          row.id,
          { answers: { n: [index] } },
          { by: String(ADA), via: 'web' }
        )
      })
    )
    const results = await Promise.all(calls)
    const answers = results.map((result) => structured(result))
    assert.deepEqual(
      answers.map((answer) => answer.answers.n),
      Array.from({ length: 50 }, (_, index) => index)
    )
    assert.lengthOf(new Set(answers.map((answer) => answer.id)), 50)
    const settled = await ToolCall.query()
      .whereIn(
        'id',
        answers.map((answer) => answer.id)
      )
      .where('status', 'answered')
    assert.lengthOf(settled, 50)
  }).timeout(120_000)
})
