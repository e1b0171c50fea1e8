/*
 * `node ace agents:inbox` and `node ace agents:sweep` as real processes on
 * the test database. The runs are started here, in the test process, with
 * the same scripted agents the child knows (tests/fixtures/terminal_agents.ts),
 * so the child resumes them after settling or sweeping. The sweeps expire
 * rows with the child's clock moved past their time (`CLOCK_AHEAD`), not
 * by waiting: the child is the only process for which they are due, so
 * what it reports is what it did.
 */

import { test } from '@japa/runner'
import { createTestApp } from '../helpers/database.ts'
import { runAce } from '../helpers/ace.ts'
import { createAgents, rowsOf, scriptedModel } from '../helpers/runtime.ts'
import { INTAKE, terminalAgents, WAITER_TTL } from '../fixtures/terminal_agents.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { terminalUser } from '../../src/channels/terminal.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'

/** The clock of a sweeping child: past every `waiter` and `lingerer` row's time */
const PAST_THEIR_TIME = { env: { CLOCK_AHEAD: String(2 * WAITER_TTL) } }

/**
 * Starts a run and lets it reach its first wait (the intake).
 */
async function startWaiting(agents: Agents, agent: string, input: string, owner: string) {
  const run = await agents.start(agent, { input, owner })
  await agents.idle()
  const [intake] = await rowsOf(run.id)
  return { run, intake }
}

test.group('agents:inbox', (group) => {
  let agents: Agents

  group.each.setup(async () => {
    const testApp = await createTestApp()
    agents = createAgents({ agents: terminalAgents() })
    return () => testApp.terminate()
  })

  test('lists the pending rows of one owner', async ({ assert }) => {
    const mine = await startWaiting(agents, 'shipper', 'listed', 'user:9')
    const theirs = await startWaiting(agents, 'shipper', 'other', 'user:7')

    const exit = await runAce(['agents:inbox', '--owner', 'user:9'])
    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, `${mine.intake.id}  intake: Which environment should this go to?`)
    assert.include(exit.output, `agent shipper · run ${mine.run.id} · owner user:9`)
    assert.notInclude(exit.output, theirs.intake.id)
  })

  test('--tool and --agent list what still waits on a tool or an agent, before it is removed', async ({
    assert,
  }) => {
    // A shipper run past its intake and its question, waiting on the deploy approval
    const shipping = await startWaiting(agents, 'shipper', 'approval', 'user:9')
    await agents.inbox.settle(
      shipping.intake.id,
      { answers: { environment: ['staging'] } },
      { by: 'user:9', via: 'api' }
    )
    await agents.idle()
    const pendingOf = async (runId: string) => {
      const rows = await rowsOf(runId)
      return rows.find((row) => row.status === 'pending')!
    }
    const question = await pendingOf(shipping.run.id)
    await agents.inbox.settle(question.id, { skip: true }, { by: 'user:9', via: 'api' })
    await agents.idle()
    const approval = await pendingOf(shipping.run.id)
    assert.equal(approval.toolName, 'deploy')
    const waiting = await startWaiting(agents, 'waiter', 'intake only', 'user:7')

    const byTool = await runAce(['agents:inbox', '--tool', 'deploy'])
    assert.equal(byTool.code, 0, byTool.output)
    assert.include(byTool.output, `${approval.id}  approve deploy: Deploy main to production`)
    assert.notInclude(byTool.output, waiting.intake.id)

    const byAgent = await runAce(['agents:inbox', '--agent', 'waiter'])
    assert.include(byAgent.output, waiting.intake.id)
    assert.notInclude(byAgent.output, approval.id)

    const none = await runAce(['agents:inbox', '--tool', 'paint', '--agent', 'shipper'])
    assert.equal(none.code, 0, none.output)
    assert.include(none.output, 'Nothing is waiting of agent shipper on tool paint')
  })

  test('--changed lists the rows asked under another definition of their agent, or of one gone', async ({
    assert,
  }) => {
    const same = await startWaiting(agents, 'shipper', 'as deployed', 'user:9')
    // Deploy A: the shipper without its deploy tool, and an agent the child no longer defines
    const earlier = createAgents({
      agents: [
        defineAgent({
          name: 'shipper',
          model: scriptedModel([]),
          instructions: 'Ship.',
          intake: INTAKE,
        }),
        defineAgent({
          name: 'retired',
          model: scriptedModel([]),
          instructions: 'Gone.',
          intake: INTAKE,
        }),
      ],
    })
    const changed = await startWaiting(earlier, 'shipper', 'asked on A', 'user:9')
    const retired = await startWaiting(earlier, 'retired', 'agent gone', 'user:9')
    assert.notEqual(changed.run.definitionDigest, same.run.definitionDigest)
    assert.equal(same.intake.definitionDigest, same.run.definitionDigest)

    const exit = await runAce(['agents:inbox', '--changed'])
    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, changed.intake.id)
    assert.include(exit.output, 'asked under another definition of agent shipper')
    assert.include(exit.output, retired.intake.id)
    assert.include(exit.output, 'agent retired is not defined in this version')
    assert.notInclude(exit.output, same.intake.id)
  })

  test('--row settles a row from typed lines and the run goes on', async ({ assert }) => {
    const { run, intake } = await startWaiting(agents, 'shipper', 'settled', 'user:9')

    const exit = await runAce(['agents:inbox', '--row', intake.id], { input: '7\n2\n' })
    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, 'There is no option 7')
    assert.include(exit.output, `Row ${intake.id} answered`)
    // The child drove the run on: its model asked the owner a question set
    assert.include(exit.output, `Run ${run.id} is waiting`)

    await intake.refresh()
    assert.equal(intake.status, 'answered')
    assert.equal(intake.answeredVia, 'terminal')
    assert.equal(intake.answeredBy, `terminal:${terminalUser()}`)
    assert.deepEqual((intake.outcome as QuestionOutcome).answers, { environment: ['production'] })

    const rows = await rowsOf(run.id)
    assert.deepEqual(
      rows.map((row) => [row.kind, row.status]),
      [
        ['intake', 'answered'],
        ['ask', 'pending'],
      ]
    )
    const after = await AgentRun.findOrFail(run.id)
    assert.equal(after.status, 'waiting')
  })

  test('--row: input ending early settles nothing; a settled row is refused', async ({
    assert,
  }) => {
    const { intake } = await startWaiting(agents, 'shipper', 'aborted', 'user:9')

    const aborted = await runAce(['agents:inbox', '--row', intake.id], { input: 'mars\n' })
    assert.equal(aborted.code, 1, aborted.output)
    assert.include(aborted.output, 'nothing was settled')
    await intake.refresh()
    assert.equal(intake.status, 'pending')

    await agents.inbox.settle(intake.id, { answers: {} }, { by: 'user:9', via: 'web' })
    await agents.idle()
    const [refused, missing] = await Promise.all([
      runAce(['agents:inbox', '--row', intake.id], { input: '1\n' }),
      runAce(['agents:inbox', '--row', 'no-such-row'], { input: '' }),
    ])
    assert.equal(refused.code, 1, refused.output)
    assert.include(refused.output, `Row ${intake.id} is already answered by user:9 via web`)
    assert.equal(missing.code, 1, missing.output)
    assert.include(missing.output, 'No row no-such-row')
  })
})

test.group('agents:inbox | a drive that fails', (group) => {
  let agents: Agents

  group.each.setup(async () => {
    const testApp = await createTestApp()
    agents = createAgents({ agents: terminalAgents() })
    return () => testApp.terminate()
  })

  test('--row: a drive that fails after the settle is told, with the error the run holds', async ({
    assert,
  }) => {
    const { run, intake } = await startWaiting(agents, 'breaker', 'broken', 'user:9')

    const exit = await runAce(['agents:inbox', '--row', intake.id], { input: '1\n' })
    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, `Row ${intake.id} answered`)
    assert.include(exit.output, `Run ${run.id} is running`)
    assert.include(
      exit.output,
      `Driving run ${run.id} failed: The breaker cannot be instructed; the web server's recovery resumes it`
    )
    await run.refresh()
    assert.equal(run.lastError, 'The breaker cannot be instructed')
    assert.isNotNull(run.lastErrorAt)
    // The child kept its lease: the web server's recovery takes the run once it lapses
    assert.isNotNull(run.leaseOwner)
  })
})

test.group('agents:sweep', (group) => {
  let agents: Agents

  group.each.setup(async () => {
    const testApp = await createTestApp()
    agents = createAgents({ agents: terminalAgents() })
    return () => testApp.terminate()
  })

  test('settles the rows past their time by their policy, and only those', async ({ assert }) => {
    const expiring = await startWaiting(agents, 'waiter', 'expiring', 'user:9')
    const lasting = await startWaiting(agents, 'shipper', 'lasting', 'user:9')
    assert.isNotNull(expiring.intake.expiresAt)

    const exit = await runAce(['agents:sweep'], PAST_THEIR_TIME)
    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, 'Swept 1 expired row')

    await expiring.intake.refresh()
    assert.equal(expiring.intake.status, 'expired')
    assert.equal(expiring.intake.answeredVia, 'expiry')
    // The waiter's policy cancels its run
    await expiring.run.refresh()
    assert.equal(expiring.run.status, 'cancelled')

    await lasting.intake.refresh()
    await lasting.run.refresh()
    assert.equal(lasting.intake.status, 'pending')
    assert.equal(lasting.run.status, 'waiting')
  })

  test('returns once rows are settled; the runs resume in a resuming sweep, or with --drive', async ({
    assert,
  }) => {
    const settledOnly = await startWaiting(agents, 'lingerer', 'settled only', 'user:9')
    const exit = await runAce(['agents:sweep'], PAST_THEIR_TIME)
    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, 'Swept 1 expired row')
    await settledOnly.intake.refresh()
    assert.equal(settledOnly.intake.status, 'expired')
    // Not driven here: the run waits with nothing pending, for a process that resumes it
    await settledOnly.run.refresh()
    assert.equal(settledOnly.run.status, 'waiting')
    assert.lengthOf(await rowsOf(settledOnly.run.id), 1)

    // The web server's periodic sweep resumes it: the model asks its question set
    assert.equal(await agents.sweep(), 0)
    await agents.idle()
    const resumed = await rowsOf(settledOnly.run.id)
    assert.deepEqual(
      resumed.map((row) => [row.kind, row.status]),
      [
        ['intake', 'expired'],
        ['ask', 'pending'],
      ]
    )

    const driven = await startWaiting(agents, 'lingerer', 'driven', 'user:9')
    const drive = await runAce(['agents:sweep', '--drive'], PAST_THEIR_TIME)
    assert.equal(drive.code, 0, drive.output)
    // The previous run's question expired too: two rows, both resumed in the child
    assert.include(drive.output, 'Swept 2 expired rows')
    const rows = await rowsOf(driven.run.id)
    assert.deepEqual(
      rows.map((row) => row.kind),
      ['intake', 'ask']
    )
  })
})
