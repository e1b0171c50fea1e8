/*
 * `node ace agents:audit` and `node ace agents:policy --replay` as real
 * processes on the test database (docs/design.md §11): the audit log of a
 * governed run as JSON, and what the current policies would decide on past
 * calls, beside what happened.
 */

import { test } from '@japa/runner'
import { createTestApp } from '../helpers/database.ts'
import { runAce } from '../helpers/ace.ts'
import { callsInput, FINANCE, governedAgent, governedTools } from '../helpers/governance.ts'
import { defineConfig } from '../../src/define_config.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { Agents } from '../../src/runtime/agents.ts'

test.group('agents:audit and agents:policy', (group) => {
  let agents: Agents

  group.each.setup(async () => {
    const testApp = await createTestApp({
      agents: defineConfig({
        agents: [governedAgent(governedTools())],
        approvals: { resolveRole: (role) => (role === 'finance' ? FINANCE : []) },
      }),
    })
    agents = await testApp.app.container.make('agents.runtime')
    return () => testApp.terminate()
  })

  test("agents:audit --run <id> --json prints the run's log, oldest first", async ({ assert }) => {
    const run = await agents.start('governed', {
      input: callsInput(['refund', { amount: 20 }], ['read_logs', { service: 'api' }]),
      owner: 'ada',
    })
    await agents.idle()
    const waiting = await ToolCall.query()
      .where('run_id', run.id)
      .where('status', 'pending')
      .firstOrFail()
    await agents.inbox.settle(waiting.id, { approved: true }, { by: 'ada', via: 'terminal' })
    await agents.idle()

    const result = await runAce(['agents:audit', '--run', run.id, '--json'])
    assert.equal(result.code, 0, result.output)
    const entries = JSON.parse(result.output.slice(result.output.indexOf('[')))
    assert.deepEqual(
      entries.map((entry: any) => entry.type),
      ['policy-decided', 'executed', 'created', 'settled', 'executed']
    )
    assert.deepInclude(entries[3], { actor: 'ada', channel: 'terminal', rowId: waiting.id })
    assert.match(entries[3].digest, /^[0-9a-f]{64}$/)

    const missing = await runAce(['agents:audit'])
    assert.equal(missing.code, 1)
    assert.include(missing.output, '--run')
  })

  test('agents:policy --replay shows what the policies would decide now', async ({ assert }) => {
    const run = await agents.start('governed', {
      input: callsInput(['refund', { amount: 20 }], ['refund', { amount: 5000 }]),
      owner: 'ada',
    })
    await agents.idle()
    const result = await runAce(['agents:policy', '--replay', '1', '--json'])
    assert.equal(result.code, 0, result.output)
    const lines = JSON.parse(result.output.slice(result.output.indexOf('[')))
    assert.deepEqual(
      lines.filter((line: any) => line.runId === run.id).map((line: any) => [line.was, line.now]),
      [
        [
          { status: 'auto', via: 'policy' },
          { decision: 'allow', rule: 'refunds under $50' },
        ],
        [
          { status: 'rejected', via: 'policy' },
          { decision: 'deny', reason: 'Refunds over $1000 go through the bank' },
        ],
      ]
    )
    const text = await runAce(['agents:policy', '--replay', '1'])
    assert.include(text.output, '2 calls replayed; 0 would be decided otherwise')
    const bad = await runAce(['agents:policy', '--replay', '0'])
    assert.equal(bad.code, 1)
  })
})
