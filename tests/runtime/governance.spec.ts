/*
 * Governance through the runtime and the inbox's API (docs/design.md §11):
 * policies decide before any row is opened and are recorded; a quorum
 * settles once, refusing the requester and anyone outside its set; grants
 * remembered with an approval cover later calls until revoked, never an
 * irreversible tool; a reply made on another view runs nothing; and every
 * step is in the append-only audit log.
 */

import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import { callsInput, FINANCE, governedAgent, governedTools } from '../helpers/governance.ts'
import { defineConfig } from '../../src/define_config.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { runEvents } from '../../src/inbox/audit_log.ts'
import { grantsOf, revokeGrant } from '../../src/inbox/grants.ts'
import { pruneFinished } from '../../src/persistence/prune.ts'
import { DateTime } from 'luxon'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { votesOf } from '../../src/inbox/votes.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import type { DecisionOutcome } from '../../src/questions/types.ts'

const tools = governedTools()

test.group(`Governance | runtime and API | ${dbName()}`, (group) => {
  let agents: Agents

  group.setup(async () => {
    const testApp = await createTestApp({
      agents: defineConfig({
        agents: [governedAgent(tools)],
        approvals: { resolveRole: (role) => (role === 'finance' ? FINANCE : []) },
      }),
    })
    agents = await testApp.app.container.make('agents.runtime')
    return () => testApp.terminate()
  })

  group.each.setup(() => {
    tools.refunds.length = 0
    tools.reads.length = 0
    tools.wipes.length = 0
  })

  async function runOf(...calls: [string, unknown][]) {
    const run = await agents.start('governed', { input: callsInput(...calls), owner: 'ada' })
    await agents.idle()
    return AgentRun.findOrFail(run.id)
  }

  async function rowsOf(runId: string) {
    return ToolCall.query().where('run_id', runId).orderBy('sequence')
  }

  async function types(runId: string) {
    const events = await runEvents(runId)
    return events.map((event) => event.type)
  }

  test('a policy allows, recorded as decided by its rule, and the action runs once', async ({
    assert,
  }) => {
    const run = await runOf(['refund', { amount: 20 }])
    assert.equal(run.status, 'completed')
    assert.deepEqual(tools.refunds, [20])
    const [row] = await rowsOf(run.id)
    assert.equal(row.status, 'auto')
    assert.equal(row.answeredVia, 'policy')
    assert.equal((row.outcome as DecisionOutcome).rule, 'refunds under $50')
    assert.equal(row.execution, 'succeeded')
    assert.deepEqual(await types(run.id), ['policy-decided', 'executed'])
    const [decided] = await runEvents(run.id)
    assert.deepEqual(decided.data, { decision: 'allow', rule: 'refunds under $50' })
  })

  test('a policy denies: the model reads the refusal with the reason, nothing runs', async ({
    assert,
  }) => {
    const run = await runOf(['refund', { amount: 5000 }])
    assert.equal(run.status, 'completed')
    assert.deepEqual(tools.refunds, [])
    const [row] = await rowsOf(run.id)
    assert.equal(row.status, 'rejected')
    assert.equal(row.answeredVia, 'policy')
    assert.isNull(row.execution)
    const outcome = row.outcome as DecisionOutcome
    assert.include(outcome.text, 'Refunds over $1000 go through the bank')
    assert.deepEqual(await types(run.id), ['policy-decided'])
  })

  test('a quorum: the requester and outsiders are refused, votes count, the last one settles', async ({
    assert,
  }) => {
    const run = await runOf(['refund', { amount: 300 }])
    assert.equal(run.status, 'waiting')
    const [row] = await rowsOf(run.id)
    assert.equal(row.status, 'pending')
    const approvers = await votesOf(ToolCall.query().client, row.id)
    assert.deepEqual(
      approvers.map((vote) => vote.personId),
      ['f1', 'f2', 'f3', 'f4', 'f5']
    )
    const view = viewDigest(row)
    const vote = (by: string, reply: object) =>
      agents.inbox.settle(row.id, reply, { by, via: 'api', view })

    await assert.rejects(() => vote('ada', { approved: true }), /excludes the requester/)
    await assert.rejects(() => vote('mallory', { approved: true }), /not among the approvers/)
    const first = await vote('f1', { approved: true })
    assert.equal(first.status, 'pending')
    await assert.rejects(() => vote('f1', { approved: true }), /already voted/)
    const second = await vote('f2', { approved: true })
    assert.equal(second.status, 'pending')
    assert.deepEqual(tools.refunds, [])
    const settled = await vote('f4', { approved: true })
    assert.equal(settled.status, 'approved')
    assert.equal(settled.answeredBy, 'f4')
    await assert.rejects(() => vote('f5', { approved: false }), /already settled/)
    await agents.idle()
    assert.deepEqual(tools.refunds, [300])
    assert.deepEqual(await types(run.id), [
      'policy-decided',
      'created',
      'voted',
      'voted',
      'voted',
      'settled',
      'executed',
    ])
  })

  test('any veto rejects a quorum, and its reason reaches the model', async ({ assert }) => {
    const run = await runOf(['refund', { amount: 300 }])
    const [row] = await rowsOf(run.id)
    await agents.inbox.settle(row.id, { approved: true }, { by: 'f1', via: 'api' })
    const vetoed = await agents.inbox.settle(
      row.id,
      { approved: false, reason: 'Not this customer' },
      { by: 'f3', via: 'api' }
    )
    assert.equal(vetoed.status, 'rejected')
    await agents.idle()
    assert.deepEqual(tools.refunds, [])
    await row.refresh()
    assert.include((row.outcome as DecisionOutcome).text, 'Not this customer')
  })

  test('a reply made on another view, or on args changed after they were shown, runs nothing', async ({
    assert,
  }) => {
    const run = await runOf(['read_logs', { service: 'api' }])
    const [row] = await rowsOf(run.id)
    const shown = viewDigest(row)
    await assert.rejects(
      () => agents.inbox.settle(row.id, { approved: true }, { by: 'ada', via: 'api', view: 'x' }),
      /another version/
    )
    // The args are rewritten in the database after the person saw them
    await ToolCall.query()
      .where('id', row.id)
      .update({ request: JSON.stringify({ ...row.request, args: { service: 'payments' } }) })
    await assert.rejects(
      () => agents.inbox.settle(row.id, { approved: true }, { by: 'ada', via: 'api', view: shown }),
      /another version/
    )
    await row.refresh()
    assert.equal(row.status, 'pending')
    assert.deepEqual(tools.reads, [])
    assert.deepEqual(await types(run.id), ['created'])
  })

  test('a grant remembered for the run covers the next call; revoked, it no longer does', async ({
    assert,
  }) => {
    const run = await runOf(
      ['read_logs', { service: 'api' }],
      ['read_logs', { service: 'web' }],
      ['read_logs', { service: 'db' }]
    )
    const [first] = await rowsOf(run.id)
    await agents.inbox.settle(first.id, { approved: true }, { by: 'ada', via: 'api', grant: 'run' })
    await agents.idle()
    assert.deepEqual(tools.reads, ['api', 'web', 'db'])
    const rows = await rowsOf(run.id)
    const [grant] = await grantsOf('ada')
    assert.equal(grant.scope, 'run')
    assert.equal(grant.runId, run.id)
    for (const later of rows.slice(1)) {
      assert.equal(later.answeredVia, 'grant')
      assert.equal((later.outcome as DecisionOutcome).grantId, grant.id)
    }
    assert.includeMembers(await types(run.id), ['granted', 'policy-decided'])

    await revokeGrant(grant.id, { actor: 'ada' })
    assert.lengthOf(await grantsOf('ada'), 0)
    const again = await runOf(['read_logs', { service: 'api' }], ['read_logs', { service: 'web' }])
    const [waiting] = await rowsOf(again.id)
    assert.equal(waiting.status, 'pending', 'another run: a run grant does not reach it')
    assert.include(await types(run.id), 'revoked')
  })

  test('a person grant covers their other runs until it lapses; an irreversible tool offers none', async ({
    assert,
  }) => {
    const run = await runOf(['read_logs', { service: 'api' }])
    const [first] = await rowsOf(run.id)
    assert.deepEqual(
      first.request.grants.map((choice: { scope: string }) => choice.scope),
      ['run', 'person', 'args']
    )
    await agents.inbox.settle(
      first.id,
      { approved: true },
      { by: 'ada', via: 'api', grant: 'args' }
    )
    await agents.idle()
    const same = await runOf(['read_logs', { service: 'api' }])
    const [sameRow] = await rowsOf(same.id)
    assert.equal(sameRow.answeredVia, 'grant')
    const other = await runOf(['read_logs', { service: 'web' }])
    const [otherRow] = await rowsOf(other.id)
    assert.equal(otherRow.status, 'pending', 'args grants pin the service')

    const wipe = await runOf(['wipe', { db: 'prod' }])
    const [wiping] = await rowsOf(wipe.id)
    assert.notProperty(wiping.request, 'grants')
    await assert.rejects(
      () =>
        agents.inbox.settle(wiping.id, { approved: true }, { by: 'ada', via: 'api', grant: 'run' }),
      /offers no "run" grant/
    )
    await wiping.refresh()
    assert.equal(wiping.status, 'pending')
    assert.deepEqual(tools.wipes, [])
  })

  test("an expiry is in the audit log, and prune takes a run's log with it", async ({ assert }) => {
    const run = await runOf(['read_logs', { service: 'billing' }])
    const [row] = await rowsOf(run.id)
    await ToolCall.query()
      .where('id', row.id)
      .update(preparedColumns(row, { expiresAt: DateTime.now().minus({ minutes: 1 }) }))
    assert.equal(await agents.sweep(), 1)
    await agents.idle()
    const finished = await AgentRun.findOrFail(run.id)
    assert.equal(finished.status, 'completed')
    assert.deepEqual(await types(run.id), ['created', 'expired'])
    await pruneFinished({ before: DateTime.now().plus({ minutes: 1 }) })
    assert.deepEqual(await types(run.id), [])
  })
})
