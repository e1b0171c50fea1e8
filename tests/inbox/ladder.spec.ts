/*
 * Escalation ladders with a moved clock (docs/design.md §7.7): remind,
 * reassign, then the final policy, each exactly once while two sweepers
 * (two runtimes) sweep together at every step, each step in the audit log
 * and the outbox; a person's reply between two steps wins and no later
 * step fires; a reply racing a step either wins (no step) or loses to it
 * (the step ran, the old owner may no longer decide) — never both.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createRun, rowsAgent } from '../helpers/rows.ts'
import { createAgents } from '../helpers/runtime.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { InboxEvent } from '../../src/persistence/models/inbox_event.ts'
import { Notification } from '../../src/persistence/models/notification.ts'
import { Approver } from '../../src/persistence/models/approver.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { checkLadder, ladderNote, type LadderStep } from '../../src/governance/ladder.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import vine from '@vinejs/vine'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { expiry } from '../../src/runtime/calls/waits.ts'
import { scriptedModel } from '../helpers/runtime.ts'

const LADDER: LadderStep[] = [
  { after: '1h', remind: true },
  { after: '4h', reassign: '@oncall' },
]
const roles = { resolveRole: (role: string) => (role === 'oncall' ? ['grace', 'linus'] : []) }

function runtimes(): [Agents, Agents] {
  // The rows' runs belong to an agent of the app (tests/helpers/rows.ts)
  const options = { agents: [rowsAgent()], approvals: roles, notify: true }
  return [createAgents(options), createAgents(options)]
}

async function openDeploy(agents: Agents, opened: DateTime) {
  const run = await createRun('ada')
  return agents.inbox.open(
    run,
    { kind: 'action', toolName: 'deploy', args: { branch: 'main' }, summary: 'Deploy main' },
    { ladder: LADDER, expiresAt: opened.plus({ hours: 24 }), onExpiry: 'reject' }
  )
}

/** Both sweepers at `now`, together */
async function sweepBoth([a, b]: [Agents, Agents], now: DateTime) {
  await Promise.all([a.sweep({ now, resume: false }), b.sweep({ now, resume: false })])
}

async function eventTypes(rowId: string) {
  const events = await InboxEvent.query().where('row_id', rowId).orderBy('id')
  return events.map((event) => event.type)
}

async function notices(rowId: string) {
  const rows = await Notification.query().where('row_id', rowId).orderBy('id')
  return rows.map((row) => `${row.reason}:${row.personId}`)
}

test.group(`Escalation ladders | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    await ToolCall.query().delete()
    await InboxEvent.query().delete()
  })
  group.each.timeout(30_000)

  test('remind, reassign, final policy: each exactly once with two sweepers', async ({
    assert,
  }) => {
    const sweepers = runtimes()
    const t0 = DateTime.now()
    const row = await openDeploy(sweepers[0], t0)
    assert.equal(row.ladderStep, 0)
    assert.equal(ladderNote(row, t0), 'reminder in 60 min')
    assert.deepEqual(await notices(row.id), ['created:ada'])

    // Before the first step: nothing
    await sweepBoth(sweepers, t0.plus({ minutes: 59 }))
    assert.deepEqual(await eventTypes(row.id), ['created'])

    const remindAt = t0.plus({ hours: 1, minutes: 1 })
    await sweepBoth(sweepers, remindAt)
    await sweepBoth(sweepers, remindAt.plus({ minutes: 5 }))
    assert.deepEqual(await eventTypes(row.id), ['created', 'reminded'])
    assert.deepEqual(await notices(row.id), ['created:ada', 'reminded:ada'])
    const reminded = await ToolCall.findOrFail(row.id)
    assert.equal(reminded.ladderStep, 1)
    assert.equal(
      ladderNote(reminded, t0.plus({ hours: 2 })),
      'reminded 59 min ago; escalates to @oncall in 2 h'
    )

    const reassignAt = t0.plus({ hours: 4, minutes: 1 })
    await sweepBoth(sweepers, reassignAt)
    await sweepBoth(sweepers, reassignAt.plus({ minutes: 5 }))
    assert.deepEqual(await eventTypes(row.id), ['created', 'reminded', 'reassigned'])
    const reassigned = await ToolCall.findOrFail(row.id)
    assert.equal(reassigned.status, 'pending')
    assert.deepEqual(reassigned.request.approval.stages, [
      { approvers: ['grace', 'linus'], quorum: 1 },
    ])
    const approvers = await Approver.query().where('row_id', row.id).orderBy('person_id')
    assert.deepEqual(
      approvers.map((approver) => approver.personId),
      ['grace', 'linus']
    )
    assert.deepEqual(await notices(row.id), [
      'created:ada',
      'reminded:ada',
      'reassigned:grace',
      'reassigned:linus',
      'released:ada',
    ])
    assert.match(
      ladderNote(reassigned, reassignAt)!,
      /^escalated to @oncall 1 min ago; is rejected in 20 h$/
    )
    const event = await InboxEvent.query()
      .where('row_id', row.id)
      .where('type', 'reassigned')
      .firstOrFail()
    assert.deepInclude(event.data as object, { from: ['ada'], assigned: ['grace', 'linus'] })

    const expireAt = t0.plus({ hours: 24, minutes: 1 })
    await sweepBoth(sweepers, expireAt)
    await sweepBoth(sweepers, expireAt.plus({ minutes: 5 }))
    const expired = await ToolCall.findOrFail(row.id)
    assert.equal(expired.status, 'expired')
    assert.equal(expired.outcome?.kind === 'decision' && expired.outcome.approved, false)
    assert.deepEqual(await eventTypes(row.id), ['created', 'reminded', 'reassigned', 'expired'])
  })

  test('a reply between two steps wins: no later step fires', async ({ assert }) => {
    const sweepers = runtimes()
    const t0 = DateTime.now()
    const row = await openDeploy(sweepers[0], t0)
    await sweepBoth(sweepers, t0.plus({ hours: 1, minutes: 1 }))
    const current = await ToolCall.findOrFail(row.id)
    await sweepers[1].inbox.settle(
      current,
      { approved: true },
      {
        by: 'ada',
        via: 'api',
        view: viewDigest(current),
        requireView: true,
      }
    )
    await sweepBoth(sweepers, t0.plus({ hours: 4, minutes: 1 }))
    await sweepBoth(sweepers, t0.plus({ hours: 25 }))
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'approved')
    assert.equal(settled.answeredBy, 'ada')
    assert.equal(settled.ladderStep, 1)
    assert.deepEqual(await eventTypes(row.id), ['created', 'reminded', 'settled'])
    assert.deepEqual(await notices(row.id), ['created:ada', 'reminded:ada'])
  })

  test('a reply racing a step: either the reply or the step, never both', async ({ assert }) => {
    const sweepers = runtimes()
    const t0 = DateTime.now()
    const outcomes = new Set<string>()
    for (let round = 0; round < 6; round++) {
      const row = await openDeploy(sweepers[0], t0)
      await sweepBoth(sweepers, t0.plus({ hours: 1, minutes: 1 }))
      const shown = await ToolCall.findOrFail(row.id)
      const [, reply] = await Promise.allSettled([
        sweepBoth(sweepers, t0.plus({ hours: 4, minutes: 1 })),
        sweepers[1].inbox.settle(
          shown,
          { approved: true },
          {
            by: 'ada',
            via: 'api',
            view: viewDigest(shown),
            requireView: true,
          }
        ),
      ])
      const types = await eventTypes(row.id)
      const after = await ToolCall.findOrFail(row.id)
      if (reply.status === 'fulfilled') {
        // The reply came first: the row is approved by ada, and no reassign ran
        assert.equal(after.status, 'approved')
        assert.notInclude(types, 'reassigned')
        outcomes.add('reply')
      } else {
        // The step came first: ada's reply was refused (the row is grace's and linus's now)
        assert.equal(after.status, 'pending')
        assert.include(types, 'reassigned')
        assert.notInclude(types, 'settled')
        outcomes.add('step')
      }
    }
    assert.isAbove(outcomes.size, 0)
  })

  test('a ladder is checked when it is defined; a tool may have its own', ({ assert }) => {
    assert.throws(
      () =>
        checkLadder([
          { after: '2h', remind: true },
          { after: '1h', remind: true },
        ]),
      /in order/
    )
    assert.throws(
      () => checkLadder([{ after: '25h', remind: true }], 86_400_000),
      /before the expiry/
    )
    assert.throws(() => checkLadder([{ after: '1h', reassign: [] }]), /remind: true, or reassign/)
    assert.doesNotThrow(() => checkLadder(LADDER, 86_400_000))
    const tool = {
      name: 'purge',
      description: 'Purge the cache',
      kind: 'action' as const,
      input: vine.object({}),
      handle: () => 'purged',
    }
    assert.throws(
      () => defineTool({ ...tool, ladder: [{ after: '0h', remind: true }] }),
      /Tool "purge"/
    )
    // A tool's ladder stands in for its agent's on its approvals
    const own = defineTool({ ...tool, ladder: [{ after: '15m', remind: true }] })
    const agent = defineAgent({
      name: 'ops',
      model: scriptedModel([]),
      instructions: '',
      tools: [own],
      expiry: { ladder: LADDER },
    })
    assert.deepEqual(expiry(agent, own).ladder, [{ after: '15m', remind: true }])
    assert.deepEqual(expiry(agent).ladder, LADDER)
  })
})
