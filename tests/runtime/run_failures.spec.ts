/*
 * A run that fails is told in the app's log at `warn`, with its run id,
 * agent, code and message: the provider refusing the model call
 * (E_PROVIDER), and a run whose agent the running deploy does not define
 * (E_UNKNOWN_AGENT, renamed or removed since it started), which were seen
 * only under NODE_DEBUG before. The runtime is the app's own, built by the
 * provider with the app's logger.
 */

import { test } from '@japa/runner'
import { createTestApp, dbName, warnLogger } from '../helpers/database.ts'
import { failWith, providerError, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'

/** pino's level of `warn` */
const WARN = 40

test.group(`Runtime | failed runs in the app's log | ${dbName()}`, (group) => {
  /** What the app's logger wrote, as JSON lines */
  const logged: string[] = []
  let agents: Awaited<ReturnType<typeof boot>>['agents']

  async function boot() {
    const testApp = await createTestApp({
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'refused',
            model: scriptedModel([failWith(providerError(false)), [say('never')]]),
            instructions: 'Answer.',
          }),
        ],
        recoverOnStart: false,
        recoverInterval: 0,
        sweepInterval: 0,
      }),
      config: warnLogger('failures', { write: (line: string) => void logged.push(line) }),
    })
    return { testApp, agents: await testApp.app.container.make('agents.runtime') }
  }

  group.setup(async () => {
    const booted = await boot()
    agents = booted.agents
    return () => booted.testApp.terminate()
  })
  group.each.setup(() => {
    logged.length = 0
  })

  /** The warnings about `runId`, parsed */
  function warningsOf(runId: string) {
    return logged
      .map((line) => JSON.parse(line))
      .filter((line) => line.runId === runId && line.level === WARN)
  }

  test('a run the provider refuses logs a warning with its id, agent, code and message', async ({
    assert,
  }) => {
    const run = await agents.start('refused', { input: 'go', owner: 'user:1' })
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'failed')
    assert.equal(run.errorCode, 'E_PROVIDER')

    const [warning, ...more] = warningsOf(run.id)
    assert.lengthOf(more, 0, 'told once')
    assert.include(warning, { runId: run.id, agent: 'refused', code: 'E_PROVIDER' })
    assert.equal(
      warning.msg,
      `adonis-agent-inbox: run ${run.id} of agent "refused" failed with E_PROVIDER: Invalid API key`
    )
  })

  test('a run of an agent this deploy does not define logs a warning', async ({ assert }) => {
    // Started by an earlier deploy, under a name this one does not define
    const run = await AgentRun.create({
      agent: 'renamed',
      status: 'queued',
      input: 'go',
      ownerId: 'user:1',
      parentRunId: null,
    })
    await agents.executor.resume(run.id, 'recover')
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'failed')
    assert.equal(run.errorCode, 'E_UNKNOWN_AGENT')

    const [warning] = warningsOf(run.id)
    assert.include(warning, { runId: run.id, agent: 'renamed', code: 'E_UNKNOWN_AGENT' })
    assert.include(warning.msg, `run ${run.id} of agent "renamed" failed with E_UNKNOWN_AGENT`)
    assert.include(warning.msg, run.error!)
  })
})
