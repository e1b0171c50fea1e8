import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  ask,
  createAgents,
  DB_QUESTION,
  promptText,
  say,
  scriptedModel,
} from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'

test.group(`Runtime smoke | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('a run asks, waits, is answered and completes', async ({ assert }) => {
    const model = scriptedModel([[ask('c1', DB_QUESTION)], [say('Using MySQL.')]])
    const agents = createAgents({
      agents: [defineAgent({ name: 'helper', model, instructions: 'Help.' })],
    })
    const run = await agents.start('helper', { input: 'set up a db', owner: 'user:1' })
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'waiting')
    const [row] = await ToolCall.query().where('run_id', run.id)
    assert.equal(row.status, 'pending')

    // A fresh runtime (no shared memory) settles and resumes it
    const other = createAgents({
      agents: [defineAgent({ name: 'helper', model, instructions: 'Help.' })],
    })
    await other.inbox.settle(row.id, { answers: { db: ['mysql'] } }, { by: 'user:1', via: 'api' })
    await other.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(run.result, { text: 'Using MySQL.' })
    assert.include(promptText(model.doGenerateCalls[1]), 'MySQL')
  })
})
