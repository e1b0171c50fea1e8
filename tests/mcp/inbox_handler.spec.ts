/*
 * Questions from outside any run: an MCP client the app creates itself,
 * connected to a real MCP server process (stdio, the SDK's server:
 * tests/fixtures/mcp_server.ts), with `inboxElicitationHandler` as its
 * elicitation handler. The server's requests become run-less rows of the
 * inbox, a person answers over HTTP, and the server receives the typed
 * values; URL mode completes through the server; nobody to answer, an
 * expiry, a closed connection and a restart all end without a hang.
 */

import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { eventually } from '../helpers/browser.ts'
import { defineConfig } from '../../src/define_config.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import type { Inbox } from '../../src/inbox/inbox.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { inboxElicitationHandler, type InboxElicitationOptions } from '../../src/mcp_client/main.ts'
import { PROFILE_SCHEMA } from '../fixtures/mcp_schemas.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PERSON = { 'x-person': 'user:1', 'accept': 'application/json' }

/**
 * An MCP client of the app's own on the fixture server, its elicitations
 * asked in the inbox. Closed by the test's cleanup.
 */
async function connectClient(options: Omit<InboxElicitationOptions, 'server'>) {
  const client = new Client(
    { name: 'app-script', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } } }
  )
  const elicit = inboxElicitationHandler({ server: 'bookings', pollInterval: 50, ...options })
  client.setRequestHandler(ElicitRequestSchema, elicit)
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, elicit.complete)
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [TS_HOOKS, 'tests/fixtures/mcp_server.ts'],
      cwd: ROOT,
      stderr: 'inherit',
    })
  )
  return { client, elicit }
}

/** Calls a tool of the server; resolves with its text once the elicitation is settled */
function callTool(client: Client, name: string) {
  return client
    .callTool({ name, arguments: {} }, undefined, { timeout: 120_000 })
    .then((result) => (result.content as { type: string; text: string }[])[0].text)
}

/** The run-less row the server's request opened, once pending */
function pendingRunlessRow() {
  return eventually('a pending run-less row', async () => {
    const row = await ToolCall.query().whereNull('run_id').where('status', 'pending').first()
    return row ?? undefined
  })
}

test.group(`MCP elicitations outside any run | ${dbName()}`, (group) => {
  let agents: Agents
  let inbox: Inbox
  // Each test spawns its server (its TypeScript compiled on start): seconds on a loaded machine, not the 2 s default
  group.each.timeout(30_000)

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
        recoverOnStart: false,
      }),
    })
    agents = await httpApp.app.container.make('agents.runtime')
    inbox = agents.inbox
    return async () => {
      await agents.close()
      await httpApp.terminate()
    }
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('a form elicitation is a run-less question set; the answer goes back typed', async ({
    assert,
    client,
    cleanup,
  }) => {
    const mcp = await connectClient({ inbox, owner: 'user:1' })
    cleanup(() => mcp.client.close())
    const answered = callTool(mcp.client, 'profile')
    const row = await pendingRunlessRow()
    assert.equal(row.kind, 'ask')
    assert.equal(row.toolName, 'bookings')
    assert.equal(row.ownerId, 'user:1')
    assert.isNotNull(row.expiresAt, 'a run-less wait always has a deadline')

    // In its owner's inbox, a group of its own with no run
    const listed = await client.get('/inbox').headers(PERSON)
    listed.assertStatus(200)
    const [listedGroup] = listed.body().groups
    assert.isNull(listedGroup.run)
    assert.deepEqual(
      listedGroup.rows[0].questionSet.questions.map((question: { id: string }) => question.id),
      Object.keys(PROFILE_SCHEMA.properties)
    )

    const reply = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(PERSON)
      .json({
        answers: { name: ['Ada'], email: ['ada@example.com'], newsletter: ['false'] },
        digest: viewDigest(row),
      })
    reply.assertStatus(200)

    assert.deepEqual(JSON.parse(await answered), {
      action: 'accept',
      content: {
        name: 'Ada',
        email: 'ada@example.com',
        age: 30,
        country: 'fr',
        colors: ['blue'],
        newsletter: false,
      },
    })
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'answered')
    assert.equal(settled.answeredVia, 'api')
  })

  test('a URL elicitation is a link row, settled by the server’s completion', async ({
    assert,
    cleanup,
  }) => {
    const mcp = await connectClient({ inbox, owner: 'user:1' })
    cleanup(() => mcp.client.close())
    const connected = callTool(mcp.client, 'connect')
    const row = await pendingRunlessRow()
    assert.equal(row.kind, 'action')
    assert.match(row.request.link, /^http:\/\/127\.0\.0\.1:\d+\/connect\/link-/)

    await fetch(row.request.link)
    assert.equal(await connected, 'connect: accept')
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'approved')
    assert.equal(settled.answeredBy, 'mcp:bookings')
  })

  test('nobody to answer: cancel at once, no row', async ({ assert, cleanup }) => {
    const mcp = await connectClient({ inbox, owner: () => null })
    cleanup(() => mcp.client.close())
    assert.deepEqual(JSON.parse(await callTool(mcp.client, 'profile')), { action: 'cancel' })
    assert.lengthOf(await ToolCall.query(), 0)
  })

  test('nobody answers in time: the row expires and the server gets cancel', async ({
    assert,
    cleanup,
  }) => {
    const mcp = await connectClient({ inbox, owner: 'user:1', expiresIn: 300 })
    cleanup(() => mcp.client.close())
    assert.deepEqual(JSON.parse(await callTool(mcp.client, 'profile')), { action: 'cancel' })
    const [row] = await ToolCall.query()
    assert.equal(row.status, 'expired')
    assert.equal(row.answeredVia, 'expiry')
  })

  test('the connection closes mid-wait: the row is withdrawn, a late reply is refused', async ({
    assert,
    client,
  }) => {
    const mcp = await connectClient({ inbox, owner: 'user:1' })
    const call = callTool(mcp.client, 'profile').catch((error: Error) => error)
    const row = await pendingRunlessRow()
    await mcp.client.close()
    assert.instanceOf(await call, Error)

    const withdrawn = await eventually('the row to be withdrawn', async () => {
      const found = await ToolCall.findOrFail(row.id)
      return found.status === 'cancelled' ? found : undefined
    })
    assert.equal(withdrawn.status, 'cancelled')
    const late = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(PERSON)
      .json({ answers: { name: ['Ada'], email: ['ada@example.com'] } })
    late.assertStatus(410)
  })

  test('after a restart, the rows a previous life held are withdrawn; its own stay', async ({
    assert,
    cleanup,
  }) => {
    // What a process killed mid-wait leaves: a pending run-less row held by `web-1`
    const set = {
      questions: [{ id: 'ok', prompt: 'Go?', input: { type: 'text' as const }, defaults: [] }],
    }
    const left = await inbox.open(
      { id: null, ownerId: 'user:1' },
      { kind: 'ask', set, toolName: 'bookings' },
      { heldBy: 'web-1' }
    )
    const other = await inbox.open(
      { id: null, ownerId: 'user:1' },
      { kind: 'ask', set, toolName: 'bookings' },
      { heldBy: 'web-2' }
    )

    const mcp = await connectClient({ inbox, owner: 'user:1', holder: 'web-1' })
    cleanup(() => mcp.client.close())
    const answered = callTool(mcp.client, 'profile')
    const current = await eventually('the new life’s row', async () => {
      const row = await ToolCall.query()
        .where('status', 'pending')
        .where('tool_name', 'bookings')
        .whereNot('id', left.id)
        .whereNot('id', other.id)
        .first()
      return row ?? undefined
    })

    assert.equal(await mcp.elicit.withdrawLeftovers(), 1)
    const statusOf = (id: string) => ToolCall.findOrFail(id).then((row) => row.status)
    assert.equal(await statusOf(left.id), 'cancelled')
    assert.equal(await statusOf(other.id), 'pending', 'another process’s')
    assert.equal(await statusOf(current.id), 'pending', 'this life’s own')

    await inbox.settle(current.id, { answers: {}, skip: true }, { by: 'user:1', via: 'api' })
    assert.deepEqual(JSON.parse(await answered), { action: 'decline' })
  })
})
