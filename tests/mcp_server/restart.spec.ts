/*
 * Long waits of outside agents (docs/design.md §7.8): a task-augmented
 * call outlives its client and the server (the task is the row), and a
 * client without tasks gets "still pending" and collects the answer later
 * with get_answer — its own answers only. The SDK's real `Client` against
 * the fixture server, which is stopped and started again on the same port
 * and database.
 */

import { test } from '@japa/runner'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { createTestApp } from '../helpers/database.ts'
import { startFixtureApp, type FixtureApp } from '../helpers/fixture_app.ts'
import {
  callAsTask,
  mcpClient,
  mcpSecret,
  mcpRowCount,
  mcpToken,
  rowStatus,
  taskStatus,
  structured,
  taskResult,
} from '../helpers/mcp_clients.ts'
import type { Inbox } from '../../src/inbox/inbox.ts'

const ADA = 1
const GRACE = 2

const CHOICE = {
  questions: [
    {
      id: 'design',
      prompt: 'Which of the three designs?',
      options: [
        { value: 'a', label: 'Tabs' },
        { value: 'b', label: 'Sidebar' },
        { value: 'c', label: 'Wizard' },
      ],
      defaults: ['a'],
    },
  ],
}

test.group('MCP server: long waits', (group) => {
  let fixture: FixtureApp
  let inbox: Inbox
  const clients: Client[] = []
  group.setup(async () => {
    fixture = await startFixtureApp({ env: { MCP_WAIT: '60000' } })
    const reader = await createTestApp({ migrate: false })
    inbox = await reader.app.container.make('agents.inbox')
    return async () => {
      await reader.terminate()
      await fixture.stop()
    }
  })
  group.each.teardown(async () => {
    for (const client of clients.splice(0)) await client.close()
  })

  test('a task survives its client and a restart of the server: a new session collects the answer', async ({
    assert,
  }) => {
    const { secret } = await mcpToken(ADA, 'claude-code')
    const first = await mcpClient(fixture.baseUrl, secret)
    const task = await callAsTask(first, 'ask_human', CHOICE)
    assert.equal(task.status, 'working')
    await first.close()

    // The server goes down; the person answers meanwhile (another web process, say)
    const port = Number(new URL(fixture.baseUrl).port)
    await fixture.stop()
    await inbox.settle(task.taskId, { answers: { design: ['c'] } }, { by: String(ADA), via: 'web' })
    // Back on the same port and database, waiting for nobody: no call can wait out an answer
    fixture = await startFixtureApp({ port, migrate: false, env: { MCP_WAIT: '0' } })

    const second = await mcpClient(fixture.baseUrl, secret)
    clients.push(second)
    assert.equal(await taskStatus(second, task.taskId), 'completed')
    const answer = structured(await taskResult(second, task.taskId))
    assert.equal(answer.status, 'answered')
    assert.deepEqual(answer.answers, { design: 'c' })
  }).timeout(180_000)

  test('without tasks: "still pending" with the row id, then get_answer collects it', async ({
    assert,
  }) => {
    const { secret } = await mcpToken(ADA, 'cursor')
    const client = await mcpClient(fixture.baseUrl, secret)
    clients.push(client)
    const pending = structured(await client.callTool({ name: 'ask_human', arguments: CHOICE }))
    assert.equal(pending.status, 'pending')
    assert.equal(await rowStatus(pending.id), 'pending')
    const early = structured(
      await client.callTool({ name: 'get_answer', arguments: { id: pending.id } })
    )
    assert.equal(early.status, 'pending')

    await inbox.settle(pending.id, { answers: { design: ['b'] } }, { by: String(ADA), via: 'web' })
    const late = structured(
      await client.callTool({ name: 'get_answer', arguments: { id: pending.id } })
    )
    assert.equal(late.status, 'answered')
    assert.deepEqual(late.answers, { design: 'b' })
  })

  test('a forged get_answer or task id for another user’s row gets nothing', async ({ assert }) => {
    const ada = await mcpClient(fixture.baseUrl, await mcpSecret(ADA, 'claude-code'))
    const grace = await mcpClient(fixture.baseUrl, await mcpSecret(GRACE, 'claude-code'))
    clients.push(ada, grace)
    const pending = structured(await ada.callTool({ name: 'ask_human', arguments: CHOICE }))
    await inbox.settle(pending.id, { answers: { design: ['b'] } }, { by: String(ADA), via: 'web' })

    const forged = await grace.callTool({ name: 'get_answer', arguments: { id: pending.id } })
    assert.isTrue(forged.isError)
    assert.notInclude(JSON.stringify(forged), 'Sidebar')
    assert.notProperty(structured(forged), 'answers')
    await assert.rejects(() => grace.experimental.tasks.getTask(pending.id))
    await assert.rejects(() => taskResult(grace, pending.id))
    // Ada's own client still collects it
    const own = structured(
      await ada.callTool({ name: 'get_answer', arguments: { id: pending.id } })
    )
    assert.deepEqual(own.answers, { design: 'b' })
    assert.isAbove(await mcpRowCount(), 0)
  })
})
