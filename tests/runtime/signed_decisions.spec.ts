/*
 * Approvals are bound to the app's secret: what a person approved is
 * signed when settled and verified before the action runs, so rewriting a
 * row's args (and their unkeyed hash) or its edited args in the database
 * runs nothing, marks the row `refused` and tells the model.
 */

import { test } from '@japa/runner'
import type { ApplicationService } from '@adonisjs/core/types'
import { createTestApp, dbName } from '../helpers/database.ts'
import {
  call,
  createAgents,
  deployTools,
  say,
  scriptedModel,
  toolResultOf,
  type ScriptStep,
} from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { hashArgs } from '../../src/inbox/args_hash.ts'
import type { DecisionSigner } from '../../src/inbox/decision_signature.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'

test.group(`Runtime | signed approvals | ${dbName()}`, (group) => {
  let app: ApplicationService
  let signer: DecisionSigner
  group.setup(async () => {
    const testApp = await createTestApp()
    app = testApp.app
    const encryption = await app.container.make('encryption')
    signer = encryption.getMessageVerifier()
    return () => testApp.terminate()
  })

  function setup(steps: ScriptStep[]) {
    const model = scriptedModel(steps)
    const tools = deployTools()
    const agents = createAgents({
      signer,
      agents: [
        defineAgent({
          name: 'deployer',
          model,
          instructions: 'Deploy.',
          tools: [tools.deploy, tools.readLogs],
        }),
      ],
    })
    return { model, agents, executions: tools.executions }
  }

  /** The run's approval row, settled by an inbox that resumes nothing */
  async function approve(runId: string, reply: object) {
    const [row] = await ToolCall.query().where('run_id', runId).where('status', 'pending')
    return new Inbox({ signer, validateEditedInput: async (_row, input) => input }).settle(
      row.id,
      { approved: true, ...reply },
      {
        by: 'user:1',
        via: 'api',
      }
    )
  }

  test('an approval is signed, verifies, and runs once', async ({ assert }) => {
    const { agents, executions } = setup([
      [call('d1', 'deploy', { branch: 'main' })],
      [say('Deployed.')],
    ])
    const run = await agents.start('deployer', { input: 'ship', owner: 'user:1' })
    await agents.idle()
    const row = await approve(run.id, {})
    assert.isString(row.decisionSignature)
    await agents.driver.drive(run.id)

    assert.deepEqual(executions, [{ branch: 'main', force: false }])
    await row.refresh()
    assert.equal(row.execution, 'succeeded')
  })

  test('args rewritten {rewrite} after the approval run nothing; the row is refused')
    .with([
      // Someone with the database but not the key rewrites args and hash alike
      { rewrite: 'with their hash', hashed: true, told: 'does not verify' },
      {
        rewrite: 'without their hash',
        hashed: false,
        told: 'no longer match what the person was shown',
      },
    ])
    .run(async ({ assert }, { hashed, told }) => {
      const { model, agents, executions } = setup([
        [call('d1', 'deploy', { branch: 'main' })],
        [say('Noted.')],
      ])
      const run = await agents.start('deployer', { input: 'ship', owner: 'user:1' })
      await agents.idle()
      const row = await approve(run.id, {})
      const forged = { branch: 'evil', force: true }
      await ToolCall.query()
        .where('id', row.id)
        .update(
          preparedColumns(row, {
            request: { ...row.request, args: forged },
            ...(hashed && { argsHash: hashArgs(forged) }),
          })
        )
      await agents.driver.drive(run.id)

      assert.deepEqual(executions, [])
      await row.refresh()
      assert.equal(row.execution, 'refused')
      const result = toolResultOf(model.doGenerateCalls[1], 'd1')
      assert.equal(result.type, 'error-text')
      assert.include(result.value, told)
    })

  test('edited args rewritten after the approval run nothing', async ({ assert }) => {
    const { agents, executions } = setup([
      [call('d1', 'deploy', { branch: 'main' })],
      [say('Noted.')],
    ])
    const run = await agents.start('deployer', { input: 'ship', owner: 'user:1' })
    await agents.idle()
    const row = await approve(run.id, { editedInput: { branch: 'release' } })
    await ToolCall.query()
      .where('id', row.id)
      .update(
        preparedColumns(row, {
          outcome: { ...row.outcome!, editedInput: { branch: 'evil', force: true } } as any,
        })
      )
    await agents.driver.drive(run.id)

    assert.deepEqual(executions, [])
    await row.refresh()
    assert.equal(row.execution, 'refused')
  })
})
