/*
 * `node ace agents:stats` as a real process on the test database: it
 * prints the console's figures, read by the same queries as the console
 * (src/console/read.ts), as text and with `--json`; a window out of range
 * is refused.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp } from '../helpers/database.ts'
import { runAce } from '../helpers/ace.ts'
import { createAskRow } from '../helpers/rows.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { readConsole } from '../../src/console/read.ts'

test.group('agents:stats', (group) => {
  group.each.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('prints the console’s numbers, as text and as JSON', async ({ assert }) => {
    const now = DateTime.now()
    const pending = await createAskRow({ ownerId: 'ada', createdAt: now.minus({ days: 2 }) })
    await ToolCall.create({
      runId: pending.runId,
      sequence: 99,
      toolName: 'ask',
      kind: 'ask',
      status: 'answered',
      request: {},
      answeredBy: 'cy',
      createdAt: now.minus({ minutes: 3 }),
      settledAt: now.minus({ minutes: 1 }),
    })
    await AgentRun.create({ agent: 'deployer', status: 'failed', error: 'boom' })

    const json = await runAce(['agents:stats', '--json', '--days', '3'])
    assert.equal(json.code, 0, json.output)
    const printed = JSON.parse(json.output.slice(json.output.indexOf('{')))
    const { overdueRecords, ...read } = await readConsole({
      days: 3,
      overdueAfter: 86_400_000,
      strandedFor: 120_000,
    })
    void overdueRecords
    assert.deepEqual(printed.counts, read.counts)
    assert.deepEqual(printed.charts, read.charts)
    assert.deepEqual(printed.counts.runs.failed, 1)
    assert.equal(printed.counts.overdueRows, 1)
    assert.deepEqual(printed.charts.decisions.byApprover, [
      { key: 'cy', count: 1, p50: 120_000, p90: 120_000 },
    ])

    const text = await runAce(['agents:stats'])
    assert.equal(text.code, 0, text.output)
    assert.include(text.output, 'Pending rows: 1 (overdue 1)')
    assert.include(text.output, 'cy: p50 2 min, p90 2 min (1)')
    assert.include(text.output, `Overdue rows: ${pending.id}`)

    const refused = await runAce(['agents:stats', '--days', '500'])
    assert.equal(refused.code, 1)
    assert.include(refused.output, '--days takes a whole number from 1 to 90')
  })
})
