/*
 * The operator's console over HTTP (src/http/console_controller.ts): its
 * props equal what was seeded (counts, per-day series, time to decision,
 * pending rows by age, the lists), and its actions go the package's own
 * ways: Retry completes a failed run, Cancel cancels a waiting one,
 * Reassign moves an overdue row to a person its ladder names, who then
 * sees it while its old owner can no longer settle it; each is in the
 * audit log under the operator. A person the console's `authorize` does
 * not allow gets 403; a run in the wrong state 409, an unknown person 422.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createHttpApp } from '../helpers/http.ts'
import { dbName } from '../helpers/database.ts'
import { createAskRow, rowsAgent } from '../helpers/rows.ts'
import { defineConfig } from '../../src/define_config.ts'
import { registerConsoleRoutes } from '../../src/http/register_routes.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { InboxEvent } from '../../src/persistence/models/inbox_event.ts'
import { Notification } from '../../src/persistence/models/notification.ts'
import { viewDigest } from '../../src/governance/view.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import type { ConsoleProps } from '../../src/console/props.ts'

const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })
const MINUTE = 60_000

test.group(`Console | ${dbName()}`, (group) => {
  let agents: Agents
  const now = DateTime.now()
  const at = (ms: number) => now.minus({ milliseconds: ms })
  /** What was seeded: the rows opened and settled, and the decisions */
  const opened: DateTime[] = []
  const settled: DateTime[] = []
  let failed: AgentRun
  let overdue: ToolCall

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [rowsAgent()],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
        console: { authorize: (_ctx, who) => who === 'ops' },
      }),
      preload: async (app) => void registerConsoleRoutes(await app.container.make('router')),
    })
    agents = await httpApp.app.container.make('agents.runtime')

    failed = await AgentRun.create({
      agent: 'deployer',
      ownerId: 'ada',
      status: 'failed',
      input: { task: 'ship' },
      error: 'the model timed out',
    })
    // Settled by people: ada twice on ask (1 and 3 min), cy once on deploy (30 min), one expired
    const decided = [
      { by: 'ada', tool: 'ask', kind: 'ask', took: MINUTE, ago: 2 * MINUTE },
      { by: 'ada', tool: 'ask', kind: 'ask', took: 3 * MINUTE, ago: 3 * 86_400_000 },
      { by: 'cy', tool: 'deploy', kind: 'action', took: 30 * MINUTE, ago: 86_400_000 },
      { by: null, tool: 'ask', kind: 'ask', took: 5 * MINUTE, ago: 5 * 86_400_000 },
    ] as const
    for (const [index, entry] of decided.entries()) {
      const settledAt = at(entry.ago)
      const createdAt = settledAt.minus({ milliseconds: entry.took })
      await ToolCall.create({
        runId: failed.id,
        sequence: index + 1,
        toolName: entry.tool,
        kind: entry.kind,
        status: entry.by ? (entry.kind === 'ask' ? 'answered' : 'approved') : 'expired',
        ownerId: 'ada',
        request: {},
        answeredBy: entry.by,
        settledAt,
        createdAt,
      })
      opened.push(createdAt)
      settled.push(settledAt)
    }
    // A read that ran at once is not a row opened
    await ToolCall.create({
      runId: failed.id,
      sequence: 10,
      toolName: 'lookup',
      kind: 'read',
      status: 'auto',
      request: {},
      createdAt: at(MINUTE),
    })
    // Pending: an ask two days old (overdue; its ladder names bob), an approval 10 minutes old
    overdue = await createAskRow({
      ownerId: 'ada',
      createdAt: at(2 * 86_400_000),
      ladder: [{ at: at(MINUTE).toISO()!, do: 'reassign', to: ['bob'] }],
    })
    const fresh = await createAskRow({
      kind: 'action',
      toolName: 'deploy',
      createdAt: at(10 * MINUTE),
    })
    opened.push(overdue.createdAt, fresh.createdAt)
    // A run whose driver died 10 minutes ago (its lease lapsed) is stranded
    await AgentRun.create({
      agent: 'deployer',
      ownerId: 'ada',
      status: 'running',
      leaseOwner: 'web-2:4242:dead',
      leaseExpiresAt: at(10 * MINUTE),
    })
    await Notification.create({
      personId: 'ada',
      rowId: overdue.id,
      reason: 'created',
      dueAt: at(MINUTE),
      attempts: 1,
      lastError: '550 mailbox unavailable',
      createdAt: at(MINUTE),
    })
    return () => httpApp.terminate()
  })

  test('the props are the seeded numbers; a person without the ability gets 403', async ({
    client,
    assert,
  }) => {
    const refused = await client.get('/inbox/console').headers(person('ada'))
    refused.assertStatus(403)
    assert.equal(refused.body().errors[0].code, 'E_NOT_AN_OPERATOR')

    const response = await client.get('/inbox/console?days=7').headers(person('ops'))
    response.assertStatus(200)
    const props = response.body() as ConsoleProps
    const { counts, charts, lists } = props

    assert.equal(counts.pendingRows, 2)
    assert.equal(counts.overdueRows, 1)
    assert.deepInclude(counts.runs, { failed: 1, running: 1 })
    assert.equal(counts.strandedRuns, 1)
    assert.equal(counts.failingNotifications, 1)

    // Per UTC day, as seeded: opened (a read is not) and settled
    const perDay = (times: DateTime[]) =>
      charts.daily.days.map(
        (day) => times.filter((time) => time.toUTC().toISODate() === day).length
      )
    assert.lengthOf(charts.daily.days, 7)
    assert.deepEqual(charts.daily.opened, perDay(opened))
    assert.deepEqual(charts.daily.settled, perDay(settled))
    assert.equal(
      counts.openedInWindow,
      perDay(opened).reduce((a, b) => a + b)
    )
    assert.equal(charts.daily.at[6], DateTime.utc().startOf('day').toSeconds())

    // Time to decision: people's decisions only, the expired row is none
    assert.equal(charts.decisions.sample.size, 3)
    assert.deepEqual(charts.decisions.byApprover, [
      { key: 'ada', count: 2, p50: MINUTE, p90: 3 * MINUTE },
      { key: 'cy', count: 1, p50: 30 * MINUTE, p90: 30 * MINUTE },
    ])
    assert.deepEqual(
      charts.decisions.byTool.map((entry) => [entry.key, entry.count]),
      [
        ['ask', 2],
        ['deploy', 1],
      ]
    )
    assert.deepEqual(charts.decisions.byAgent, [
      { key: 'deployer', count: 3, p50: 3 * MINUTE, p90: 30 * MINUTE },
    ])
    // By age: the approval under an hour old, the ask one to seven days
    assert.deepEqual(charts.pendingByAge.kinds, ['action', 'ask', 'intake'])
    assert.deepEqual(charts.pendingByAge.counts, [
      [1, 0, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 0],
    ])

    assert.deepEqual(
      lists.failedRuns.map((run) => [run.id, run.actions]),
      [[failed.id, { retry: true, cancel: false }]]
    )
    assert.lengthOf(lists.strandedRuns, 1)
    assert.deepEqual(lists.strandedRuns[0].actions, { retry: false, cancel: true })
    assert.deepEqual(
      lists.overdueRows.map((row) => [row.id, row.ownerId, row.assignees]),
      [[overdue.id, 'ada', ['bob']]]
    )
    assert.deepEqual(
      lists.failingDeliveries.map((entry) => [entry.outbox, entry.lastError]),
      [['notification', '550 mailbox unavailable']]
    )
  })

  test('Retry, Cancel and Reassign go the package’s ways, refuse what does not hold, and are audited', async ({
    client,
    assert,
  }) => {
    const post = (path: string, body: object = {}, who = 'ops') =>
      client.post(`/inbox/console/${path}`).headers(person(who)).json(body)

    const outsider = await post(`runs/${failed.id}/retry`, {}, 'ada')
    outsider.assertStatus(403)
    const retried = await post(`runs/${failed.id}/retry`)
    retried.assertStatus(200)
    assert.equal(retried.body().action, 'retry')
    await agents.idle()
    await failed.refresh()
    assert.equal(failed.status, 'completed')
    const again = await post(`runs/${failed.id}/retry`)
    again.assertStatus(409)
    assert.equal(again.body().errors[0].code, 'E_RUN_NOT_ACTIONABLE')
    const finished = await post(`runs/${failed.id}/cancel`)
    finished.assertStatus(409)

    // Reassign: only to whom the row may go; then bob sees it and ada can no longer settle it
    const unknown = await post(`rows/${overdue.id}/reassign`, { to: 'zed' })
    unknown.assertStatus(422)
    assert.equal(unknown.body().errors[0].field, 'to')
    const moved = await post(`rows/${overdue.id}/reassign`, { to: 'bob' })
    moved.assertStatus(200)
    assert.deepEqual(moved.body().row, { id: overdue.id, ownerId: 'bob', from: ['ada'] })
    const inbox = await client.get('/inbox').headers(person('bob'))
    const ids = inbox.body().groups.flatMap((entry: any) => entry.rows.map((row: any) => row.id))
    assert.include(ids, overdue.id)
    await overdue.refresh()
    const late = await client
      .post(`/inbox/rows/${overdue.id}/reply`)
      .headers(person('ada'))
      .json({ answers: {}, skip: true, digest: viewDigest(overdue) })
    late.assertStatus(403)

    // Cancel: the waiting run of the reassigned row, and its row with it
    const cancelled = await post(`runs/${overdue.runId}/cancel`)
    cancelled.assertStatus(200)
    assert.equal(cancelled.body().run.status, 'cancelled')
    await overdue.refresh()
    assert.equal(overdue.status, 'cancelled')

    const events = await InboxEvent.query().where('actor', 'ops').orderBy('id')
    assert.deepEqual(
      events.map((event) => [event.type, event.runId, event.rowId, event.channel]),
      [
        ['retried', failed.id, null, 'console'],
        ['reassigned', overdue.runId, overdue.id, 'console'],
        ['cancelled', overdue.runId, null, 'console'],
      ]
    )
  })
})
