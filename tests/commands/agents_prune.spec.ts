/*
 * `node ace agents:prune` as a real process on the test database: ages it
 * refuses, a dry run, and a prune that leaves what is not old and finished.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp } from '../helpers/database.ts'
import { runAce } from '../helpers/ace.ts'
import { seedExpiring } from '../helpers/expiry.ts'
import { AgentRun, type RunStatus } from '../../src/persistence/models/agent_run.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'

async function finish(runId: string, status: RunStatus, finishedAt: DateTime) {
  await AgentRun.query()
    .where('id', runId)
    .update(preparedColumns(new AgentRun(), { status, finishedAt }))
}

test.group('agents:prune', (group) => {
  group.each.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('refuses a missing or malformed age with exit code 1', async ({ assert }) => {
    const [missing, malformed] = await Promise.all([
      runAce(['agents:prune']),
      runAce(['agents:prune', '--older-than', '30 days']),
    ])
    assert.equal(missing.code, 1, missing.output)
    assert.include(missing.output, '--older-than must be a whole number of days, hours or minutes')
    assert.equal(malformed.code, 1, malformed.output)
    assert.include(malformed.output, 'got "30 days"')
  })

  test('--dry-run counts, then a prune deletes old finished runs only', async ({ assert }) => {
    const [old, recent, open] = await seedExpiring(3)
    await finish(old.runId, 'completed', DateTime.now().minus({ days: 40 }))
    await finish(recent.runId, 'failed', DateTime.now().minus({ hours: 2 }))

    const dry = await runAce(['agents:prune', '--older-than', '30d', '--dry-run'])
    assert.equal(dry.code, 0, dry.output)
    assert.include(dry.output, 'Would delete 1 finished run (1 rows, 0 journal entries)')
    assert.isNotNull(await AgentRun.find(old.runId))

    const prune = await runAce(['agents:prune', '--older-than', '90m'])
    assert.equal(prune.code, 0, prune.output)
    assert.include(prune.output, 'Deleted 2 finished runs (2 rows, 0 journal entries)')
    assert.isNull(await AgentRun.find(old.runId))
    assert.isNull(await ToolCall.find(recent.id))
    assert.isNotNull(await AgentRun.find(open.runId))
    assert.isNotNull(await ToolCall.find(open.id))
  })
})
