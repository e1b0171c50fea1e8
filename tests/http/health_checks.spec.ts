/*
 * The package's health checks (src/health/) behind an app's health route,
 * as docs/guides/operating.md sets it up: each goes red when its fault is
 * caused — the sweep stopped, a run stranded with its lease lapsed, rows
 * left past their expiry or escalation step, a mail server refusing every
 * mail — with a message naming the cause, and green once it is gone. A
 * fault in the past (a lease lapsed ten minutes ago) is written as a
 * stopped process leaves it; the checks read the clock as it is.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { HealthChecks } from '@adonisjs/core/health'
import { createNotifyingApp } from '../helpers/notifications.ts'
import { agentHealthChecks } from '../../src/health/checks.ts'
import { beat } from '../../src/health/heartbeat.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { Notification } from '../../src/persistence/models/notification.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import { dbName } from '../helpers/database.ts'

type Report = {
  isHealthy: boolean
  checks: { name: string; status: 'ok' | 'warning' | 'error'; message: string }[]
}

const TEN_MINUTES_AGO = () => DateTime.now().minus({ minutes: 10 })

test.group(`Health checks | ${dbName()}`, (group) => {
  let app: Awaited<ReturnType<typeof createNotifyingApp>>

  group.setup(async () => {
    app = await createNotifyingApp({
      preload: async (adonis) => {
        const router = await adonis.container.make('router')
        // The app's start/health.ts and its route; the passes run every second here
        const checks = new HealthChecks().register(
          agentHealthChecks({ sweepEvery: 1000, recoverEvery: 1000 })
        )
        router.get('/health', async ({ response }) => {
          const report = await checks.run()
          return response.status(report.isHealthy ? 200 : 503).send(report)
        })
      },
    })
    return () => app.terminate()
  })

  /** The health route's report, and one check of it by name */
  async function health(name: string) {
    const response = await fetch(`${app.baseUrl}/health`)
    const report = (await response.json()) as Report
    const check = report.checks.find((candidate) => candidate.name === `Agent inbox: ${name}`)
    if (!check) throw new Error(`No check "${name}" in ${JSON.stringify(report)}`)
    return { status: response.status, healthy: report.isHealthy, check }
  }

  async function statusOf(name: string) {
    const { check } = await health(name)
    return check.status
  }

  test('the sweep: never run is a warning, stopped is red and says since when, a sweep turns it green', async ({
    assert,
  }) => {
    const never = await health('sweep')
    assert.equal(never.check.status, 'warning')
    assert.include(never.check.message, 'The sweep has not run on this database yet')

    await beat('sweep', 'web-1', TEN_MINUTES_AGO())
    const stopped = await health('sweep')
    assert.equal(stopped.status, 503)
    assert.equal(stopped.check.status, 'error')
    assert.include(stopped.check.message, 'The sweep last ran 10 min ago, expected every 1 s')

    await app.agents.sweep()
    const swept = await health('sweep')
    assert.equal(swept.check.status, 'ok')
    assert.match(swept.check.message, /^The sweep ran \d s ago$/)
  })

  test('a run whose driver died is red until recovery takes it', async ({ assert }) => {
    assert.equal(await statusOf('stranded runs'), 'ok')
    const run = new AgentRun()
    run.merge({
      id: crypto.randomUUID(),
      agent: 'retired',
      status: 'running',
      ownerId: 'user:1',
      input: 'left behind',
      attempt: 1,
      askCount: 0,
      journalLength: 0,
      leaseOwner: 'web-2:4242:dead',
      leaseExpiresAt: TEN_MINUTES_AGO(),
    })
    await run.save()

    const stranded = await health('stranded runs')
    assert.equal(stranded.status, 503)
    assert.equal(stranded.check.status, 'error')
    assert.include(stranded.check.message, '1 run is stranded for over 2 s, the oldest for')
    assert.include(stranded.check.message, 'recovery has not resumed them')

    // Recovery takes it (its agent is gone, so it ends failed: driven, no longer stranded)
    await app.agents.recover()
    await app.agents.idle()
    await run.refresh()
    assert.equal(run.status, 'failed')
    assert.equal(await statusOf('stranded runs'), 'ok')
  })

  test('rows past their expiry or escalation step are red until the sweep settles them', async ({
    assert,
  }) => {
    await app.agents.sweep()
    assert.equal(await statusOf('overdue rows'), 'ok')
    const expired = await app.agents.inbox.open(
      { id: null, ownerId: 'ann' },
      { kind: 'action', toolName: 'deploy', args: { branch: 'main' }, summary: 'Deploy main' },
      { expiresAt: TEN_MINUTES_AGO(), onExpiry: 'reject' }
    )
    const escalating = await app.openApproval('ann', 'Rotate the keys', [
      { after: '1h', remind: true },
    ])
    // An hour passed, and then ten minutes more with no sweep
    await ToolCall.query()
      .where('id', escalating.id)
      .update(preparedColumns(escalating, { ladderDueAt: TEN_MINUTES_AGO() }))

    const overdue = await health('overdue rows')
    assert.equal(overdue.status, 503)
    assert.equal(overdue.check.status, 'error')
    assert.include(
      overdue.check.message,
      '2 pending rows are past their expiry or escalation step by over 3 s, the oldest by 10 min'
    )

    await app.agents.sweep()
    const settled = await ToolCall.findOrFail(expired.id)
    assert.equal(settled.status, 'expired')
    assert.equal(await statusOf('overdue rows'), 'ok')
  })

  test('a mail server refusing every mail is red with its error, green once mail goes out', async ({
    assert,
  }) => {
    assert.equal(await statusOf('outboxes'), 'ok')
    app.smtp.refusing = true
    const row = await app.openApproval('bea', 'Drop the staging database')
    await app.notifications.idle()
    const [notice] = await Notification.query().where('row_id', row.id)
    assert.equal(notice.attempts, 1)
    assert.isNull(notice.sentAt)
    // Its retry was due ten minutes ago, and nothing sent it
    await Notification.query()
      .where('id', notice.id)
      .update(preparedColumns(notice, { dueAt: TEN_MINUTES_AGO() }))

    const failing = await health('outboxes')
    assert.equal(failing.status, 503)
    assert.equal(failing.check.status, 'error')
    assert.include(failing.check.message, '1 notification due for over 3 s is failing')
    assert.include(failing.check.message, '550')
    assert.include(failing.check.message, 'the oldest due 10 min ago')

    app.smtp.refusing = false
    await app.notifications.dispatch()
    await app.smtp.received(1)
    await notice.refresh()
    assert.isNotNull(notice.sentAt)
    assert.equal(await statusOf('outboxes'), 'ok')
  })
})
