/*
 * The table of docs/guides/deploying_while_runs_wait.md, with deploy A a
 * real process (tests/fixtures/deploy_worker.ts): it starts one run per
 * change, each waits on a row, the painter's approved action is running,
 * and A is stopped by SIGTERM (the app's shutdown: the action finishes
 * first) or SIGKILL (it dies mid-action). Deploy B then starts on the same
 * database with the changed agents (tests/fixtures/deploy_agents.ts), and
 * the person settles every row. Whatever the signal: nothing runs with
 * args B's schema refuses, every row ends in a state that says what became
 * of it, the model is told, and no finished run keeps an approved row
 * without an execution state or a row still `running`.
 */

import { mkdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import { lines, startWorker } from '../helpers/crash_workers.ts'
import { createAgents } from '../helpers/runtime.ts'
import {
  deployAgents,
  FREEZE,
  frozenPolicy,
  SCENARIOS,
  type Execution,
  type Scenario,
} from '../fixtures/deploy_agents.ts'
import { AgentRun, isFinished } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { E_UNKNOWN_AGENT } from '../../src/errors.ts'

const FILES = new URL(`../../tmp/deploy-signals-${process.pid}/`, import.meta.url)
const WORKER = fileURLToPath(new URL('../fixtures/deploy_worker.ts', import.meta.url))

type Runs = Record<Scenario, string>

/** Starts deploy A and stops it with `signal` while the painter's action runs */
async function deployA(signal: 'SIGTERM' | 'SIGKILL', executions: string) {
  const worker = startWorker(
    'start',
    [],
    { EXECUTIONS: executions, LEASE_TTL: '1000', PAINT_FOR: '1500' },
    WORKER
  )
  worker.child.stdin.end()
  const { runs } = (await worker.next()) as { runs: Runs }
  await worker.next() // { painting }
  worker.child.kill(signal)
  const exit = await worker.exit
  return { runs, exit }
}

test.group(`Runtime across deploys, deploy A a process | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    await rm(FILES, { recursive: true, force: true })
    await mkdir(FILES, { recursive: true })
    return async () => {
      await testApp.terminate()
      await rm(FILES, { recursive: true, force: true })
    }
  })

  test('deploy A stopped by {$self}: every waiting run ends as the guide’s table says')
    .with(['SIGTERM', 'SIGKILL'] as const)
    .run(async ({ assert }, signal) => {
      const executions = fileURLToPath(new URL(`${signal}.log`, FILES))
      const { runs, exit } = await deployA(signal, executions)
      if (signal === 'SIGTERM') assert.equal(exit.code, 0, 'A shut down as the app does')
      else assert.equal(exit.signal, 'SIGKILL')
      assert.sameMembers(Object.keys(runs), Object.keys(SCENARIOS))

      const b = createAgents({
        agents: deployAgents('B', { executions }),
        approvals: { policy: frozenPolicy },
      })
      const settle = async (scenario: Scenario, reply: Record<string, unknown>) => {
        const row = await ToolCall.query()
          .where('run_id', runs[scenario])
          .where('status', 'pending')
          .firstOrFail()
        return b.inbox.settle(row.id, reply, { by: 'user:1', via: 'web' })
      }
      // What B can no longer do is refused, nothing applied; a rejection still goes through
      const removedApproval = await settle('removed-approved', { approved: true }).catch(
        (error) => error
      )
      await settle('removed-approved', { approved: false, reason: 'Retired' })
      await settle('removed-rejected', { approved: false, reason: 'Frozen for the release' })
      const outdated = await settle('schema-refused', { approved: true }).catch((error) => error)
      await settle('schema-refused', { approved: false, reason: 'Asked in the old form' })
      await settle('schema-edited', { approved: true, editedInput: { ref: 'v2' } })
      const frozen = await settle('policy-frozen', { approved: true }).catch((error) => error)
      const refused = await settle('renamed', { approved: true }).catch((error) => error)
      await settle('intake-removed', { answers: { env: ['production'] } })
      await settle('intake-added', { approved: true })
      await b.idle()
      // SIGKILL left the painter's run leased to A: B's periodic recovery takes it once it lapsed
      for (let poll = 0; poll < 100; poll++) {
        const painter = await AgentRun.findOrFail(runs['running-removed'])
        if (isFinished(painter.status)) break
        await sleep(100)
        await b.recover()
        await b.idle()
      }

      const ran = lines(executions).map((line) => JSON.parse(line) as Execution)
      const ranFor = (scenario: Scenario) =>
        ran.filter((execution) => execution.runId === runs[scenario])
      const everyRun = await AgentRun.query().whereIn('id', Object.values(runs))
      const everyRow = await ToolCall.query().whereIn('run_id', Object.values(runs))
      const rowOf = (scenario: Scenario, tool: string) =>
        everyRow.find((row) => row.runId === runs[scenario] && row.toolName === tool)!
      const finished = (scenario: Scenario) => {
        const run = everyRun.find((candidate) => candidate.id === runs[scenario])!
        return { run, text: (run.result as { text?: string } | null)?.text ?? '' }
      }

      // The action's tool was removed: approving is refused, rejecting reaches the model
      assert.equal(removedApproval.code, 'E_TOOL_REMOVED')
      assert.equal(removedApproval.status, 409)
      const removed = finished('removed-approved')
      assert.equal(removed.run.status, 'completed')
      assert.equal(rowOf('removed-approved', 'deploy').status, 'rejected')
      assert.include(removed.text, 'Retired')
      assert.include(removed.text, 'The tool "deploy" has also been removed from this version')
      assert.lengthOf(ranFor('removed-approved'), 0)

      // A rejection's reason reaches the model
      const rejected = finished('removed-rejected')
      assert.equal(rejected.run.status, 'completed')
      assert.include(rejected.text, 'Frozen for the release')
      assert.include(rejected.text, 'The person rejected the call to "deploy"')

      // The schema changed: approving A's args is refused field by field; an edit in B's form runs
      assert.equal(outdated.code, 'E_ARGS_OUTDATED')
      assert.equal(outdated.status, 422)
      assert.includeMembers(
        outdated.fieldErrors().map((error: { field: string }) => error.field),
        ['editedInput.ref']
      )
      assert.equal(rowOf('schema-refused', 'deploy').status, 'rejected')
      assert.lengthOf(ranFor('schema-refused'), 0)
      assert.deepEqual(
        ranFor('schema-edited').map(({ deploy, args }) => ({ deploy, args })),
        [{ deploy: 'B', args: { ref: 'v2' } }]
      )

      // The painter's action ran once, on A: SIGTERM let it finish, SIGKILL interrupted it
      const painter = finished('running-removed')
      const paint = rowOf('running-removed', 'paint')
      assert.deepEqual(
        ranFor('running-removed').map(({ deploy, tool }) => `${deploy} ${tool}`),
        ['A paint']
      )
      assert.equal(painter.run.status, 'completed')
      if (signal === 'SIGTERM') {
        assert.equal(paint.execution, 'succeeded')
        assert.include(painter.text, 'paint done by A')
      } else {
        assert.equal(paint.execution, 'interrupted')
        assert.include(painter.text, 'interrupted by a process restart')
        assert.include(painter.text, 'The tool "paint" no longer exists in this version of the app')
      }

      // The agent was renamed: the settle is refused and the run ends, its rows closed
      assert.instanceOf(refused, E_UNKNOWN_AGENT)
      const renamed = finished('renamed')
      assert.equal(renamed.run.status, 'failed')
      assert.equal(renamed.run.errorCode, 'E_UNKNOWN_AGENT')
      assert.equal(rowOf('renamed', 'deploy').status, 'cancelled')

      // The intake was removed: its answers still reach the model
      const intake = finished('intake-removed')
      assert.equal(intake.run.status, 'completed')
      assert.include(intake.text, 'Production cluster')

      // An intake was added while the run waited: none opens mid-run, the journal stays valid
      const late = finished('intake-added')
      assert.equal(late.run.status, 'completed')
      assert.deepEqual(
        everyRow.filter((row) => row.runId === runs['intake-added']).map((row) => row.kind),
        ['action']
      )
      assert.deepEqual(
        ranFor('intake-added').map(({ deploy }) => deploy),
        ['B']
      )

      // A policy deployed in B denies the waiting action (a freeze): refused, rejected by the policy, told
      assert.equal(frozen.code, 'E_DENIED_BY_POLICY')
      const freezer = rowOf('policy-frozen', 'deploy')
      assert.equal(freezer.status, 'rejected')
      assert.equal(freezer.answeredVia, 'policy')
      assert.include(finished('policy-frozen').text, `Reason: ${FREEZE}`)
      assert.lengthOf(ranFor('policy-frozen'), 0)

      // Nothing ran with args B's schema refuses; no row is left half-done
      const reshaped = ran.filter((execution) => execution.deploy === 'B')
      for (const execution of reshaped) {
        if (execution.runId === runs['schema-edited']) continue
        assert.notProperty(execution.args as object, 'ref')
      }
      assert.isTrue(
        everyRun.every((run) => isFinished(run.status)),
        'every run finished'
      )
      const halfDone = everyRow.filter(
        (row) => (row.status === 'approved' && !row.execution) || row.execution === 'running'
      )
      assert.deepEqual(
        halfDone.map((row) => `${row.toolName} ${row.status} ${row.execution}`),
        []
      )
    })
    .timeout(90_000)
})
