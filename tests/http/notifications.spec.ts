/*
 * Notifications over real transports (docs/design.md §7.7): a digest per
 * person and interval (10 rows → one mail listing 10, held until the
 * interval ends, sent once though two dispatchers run), quiet hours, a
 * ladder's reminder and reassignment mailed to the people it names, and
 * the webhook's signed JSON, with which a bot settles the row through the
 * JSON API.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { dbName } from '../helpers/database.ts'
import { createNotifyingApp, WEBHOOK_SECRET } from '../helpers/notifications.ts'
import { mailLinks } from '../helpers/smtp.ts'
import { Notification } from '../../src/persistence/models/notification.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { DELIVERY_HEADER, SIGNATURE_HEADER, verifyWebhook } from '../../src/notify/signature.ts'
import { webhookNotifier } from '../../src/notify/webhook_notifier.ts'
import { errors } from '../../index.ts'
import { quietUntil } from '../../src/notify/schedule.ts'
import { rowCard } from '../../src/http/cards.ts'

test.group(`Notifications | ${dbName()}`, (group) => {
  let app: Awaited<ReturnType<typeof createNotifyingApp>>
  group.setup(async () => {
    app = await createNotifyingApp()
    return () => app.terminate()
  })
  group.each.setup(async () => {
    await app.notifications.idle()
    await ToolCall.query().delete()
    app.smtp.mails.length = 0
    app.webhook.posts.length = 0
    app.webhook.failures = 0
  })
  group.each.timeout(30_000)

  test('a digest: 10 rows for one person in one interval are one mail listing 10', async ({
    assert,
  }) => {
    app.people.dave = { email: 'dave@example.test', name: 'Dave', digest: 30 }
    for (let index = 1; index <= 10; index++)
      await app.openApproval('dave', `Deploy build ${index}`)
    await app.notifications.idle()
    // Within the interval: held, nothing sent
    await app.notifications.dispatch(DateTime.now().plus({ minutes: 10 }))
    assert.lengthOf(app.smtp.mails, 0)
    const held = await Notification.query().where('person_id', 'dave')
    assert.lengthOf(held, 10)
    assert.isTrue(held.every((entry) => entry.held && entry.sentAt === null))

    // The interval ends: two dispatchers at once send one mail
    const end = DateTime.now().plus({ minutes: 31 })
    const counts = await Promise.all([
      app.notifications.dispatch(end),
      app.notifications.dispatch(end),
    ])
    assert.equal(counts[0] + counts[1], 10)
    const [mail] = await app.smtp.received(1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.lengthOf(app.smtp.mails, 1)
    assert.equal(mail.subject, '10 items wait for you in the inbox')
    for (let index = 1; index <= 10; index++) assert.include(mail.text!, `Deploy build ${index}`)
    assert.lengthOf(mailLinks(mail).Approve, 10)
    await app.notifications.dispatch(end.plus({ hours: 1 }))
    assert.lengthOf(app.smtp.mails, 1)
  })

  test('quiet hours hold a notice until they end', async ({ assert }) => {
    const now = DateTime.now().toUTC()
    const from = now.minus({ hours: 1 }).toFormat('HH:mm')
    const to = now.plus({ hours: 2 }).toFormat('HH:mm')
    app.people.nina = { email: 'nina@example.test', quietHours: { from, to, zone: 'UTC' } }
    await app.openApproval('nina', 'Restart the cache')
    await app.notifications.idle()
    await app.notifications.dispatch()
    assert.lengthOf(app.smtp.mails, 0)
    const [entry] = await Notification.query().where('person_id', 'nina')
    assert.isTrue(entry.held)
    await app.notifications.dispatch(entry.dueAt.plus({ minutes: 1 }))
    await app.smtp.received(1)
    assert.equal(app.smtp.to('nina@example.test').length, 1)

    const night = DateTime.fromISO('2026-01-01T23:30:00Z', { zone: 'utc' })
    const quiet = { from: '22:00', to: '07:00', zone: 'UTC' }
    assert.equal(quietUntil(night, quiet)?.toISO(), '2026-01-02T07:00:00.000Z')
    assert.isNull(quietUntil(night.set({ hour: 12 }), quiet))
  })

  test("a ladder's reminder and reassignment reach the people it names", async ({ assert }) => {
    app.agents.approvals.resolveRole = (role) => (role === 'oncall' ? ['olga'] : [])
    const opened = DateTime.now()
    const row = await app.openApproval('ada', 'Scale the cluster', [
      { after: '1h', remind: true },
      { after: '4h', reassign: '@oncall' },
    ])
    await app.smtp.received(1)

    const remindAt = opened.plus({ hours: 1, minutes: 1 })
    await app.agents.sweep({ now: remindAt, resume: false })
    await app.notifications.dispatch(remindAt)
    const [, reminder] = await app.smtp.received(2)
    assert.include(reminder.subject, 'still waits for you')
    assert.include(reminder.text!, 'reminded 1 min ago; escalates to @oncall in 3 h')
    // The inbox card says the same (its clock is the real one: the step ran "in the future")
    const reminded = await ToolCall.findOrFail(row.id)
    assert.match(
      rowCard(reminded).escalation!,
      /^reminded 1 min ago; escalates to @oncall in \d+ (h|min)$/
    )

    const reassignAt = opened.plus({ hours: 4, minutes: 1 })
    await app.agents.sweep({ now: reassignAt, resume: false })
    await app.notifications.dispatch(reassignAt)
    await app.smtp.received(4)
    const [handed] = app.smtp.to('olga@example.test')
    assert.include(handed.subject, 'was handed to you')
    assert.lengthOf(mailLinks(handed).Approve, 1)
    const released = app.smtp.to('ada@example.test').at(-1)!
    assert.include(released.subject, 'was handed to someone else')
    assert.isUndefined(mailLinks(released).Approve)
    const handedOn = await ToolCall.findOrFail(row.id)
    assert.equal(handedOn.status, 'pending')
  })

  test('the webhook posts signed JSON a bot settles the row with', async ({ assert }) => {
    app.people.bot = { notifiers: ['webhook'], name: 'Ops bot' }
    const row = await app.openApproval('bot', 'Purge the CDN')
    await app.notifications.idle()
    assert.lengthOf(app.smtp.mails, 0)
    assert.lengthOf(app.webhook.posts, 1)
    const [post] = app.webhook.posts
    const [notice] = await Notification.query().where('row_id', row.id)
    assert.equal(verifyWebhook(WEBHOOK_SECRET, post.body, post.headers), `notice-${notice.id}`)
    assert.isNull(verifyWebhook('another secret', post.body, post.headers))
    assert.isNull(verifyWebhook(WEBHOOK_SECRET, post.body.replace('Purge', 'Purgo'), post.headers))
    const payload = JSON.parse(post.body)
    assert.equal(payload.person.id, 'bot')
    assert.equal(payload.rows[0].id, row.id)
    assert.equal(payload.rows[0].request.summary, 'Purge the CDN')
    assert.lengthOf(payload.rows[0].links, 2)

    // The bot replies with the digest it was sent (over HTTP it would POST it to the reply route)
    await app.agents.inbox.settle(
      row.id,
      { approved: true },
      {
        by: 'bot',
        via: 'api',
        view: payload.rows[0].digest,
        requireView: true,
      }
    )
    const decided = await ToolCall.findOrFail(row.id)
    assert.equal(decided.status, 'approved')
  })

  test('a webhook delivery has an id the signature covers, the same on its retry, to deduplicate on', async ({
    assert,
  }) => {
    app.people.bot = { notifiers: ['webhook'] }
    app.webhook.failures = 1
    const row = await app.openApproval('bot', 'Rotate the keys')
    await app.notifications.idle()
    // The receiver was down: the notice is given back, due again in a minute
    assert.deepEqual(
      app.webhook.posts.map((post) => post.status),
      [503]
    )
    const [notice] = await Notification.query().where('row_id', row.id)
    assert.equal(notice.attempts, 1)
    await app.notifications.dispatch(notice.dueAt.plus({ seconds: 1 }))
    assert.deepEqual(
      app.webhook.posts.map((post) => post.status),
      [503, 200]
    )

    const [failed, retried] = app.webhook.posts
    assert.equal(failed.headers[DELIVERY_HEADER], `notice-${notice.id}`)
    assert.equal(retried.headers[DELIVERY_HEADER], failed.headers[DELIVERY_HEADER])
    assert.equal(
      verifyWebhook(WEBHOOK_SECRET, retried.body, retried.headers),
      `notice-${notice.id}`
    )

    // The receiver's check: signature, window, then the ids it already handled
    const handled = new Set<string>()
    const receive = (post: { body: string; headers: Record<string, any> }, now?: number) => {
      const delivery = verifyWebhook(WEBHOOK_SECRET, post.body, post.headers, { now })
      if (!delivery) return 'refused'
      if (handled.has(delivery)) return 'duplicate'
      handled.add(delivery)
      return 'handled'
    }
    assert.equal(receive(retried), 'handled')
    // Replayed inside the window, as sent or with another delivery id
    assert.equal(receive(retried), 'duplicate')
    assert.equal(receive(failed), 'duplicate')
    const relabelled = {
      ...retried,
      headers: { ...retried.headers, [DELIVERY_HEADER]: 'notice-1' },
    }
    assert.equal(receive(relabelled), 'refused')
    // Past the window
    const sentAt = Number(/t=(\d+)/.exec(retried.headers[SIGNATURE_HEADER] as string)![1])
    assert.equal(receive(retried, sentAt + 301), 'refused')

    // A digest is one delivery of its notices, with one id, kept on its retry
    app.people.dora = { notifiers: ['webhook'], digest: 30 }
    await app.openApproval('dora', 'Deploy build 1')
    await app.openApproval('dora', 'Deploy build 2')
    await app.notifications.idle()
    app.webhook.failures = 1
    const end = DateTime.now().plus({ minutes: 31 })
    await app.notifications.dispatch(end)
    await app.notifications.dispatch(end.plus({ minutes: 2 }))
    const digests = app.webhook.posts.slice(2)
    assert.deepEqual(
      digests.map((post) => post.status),
      [503, 200]
    )
    assert.lengthOf(JSON.parse(digests[1].body).rows, 2)
    assert.match(digests[1].headers[DELIVERY_HEADER] as string, /^digest-[0-9a-f]{32}$/)
    assert.equal(digests[0].headers[DELIVERY_HEADER], digests[1].headers[DELIVERY_HEADER])
    assert.equal(receive(digests[1]), 'handled')
  })

  test('an empty or blank webhook secret is refused at config time', ({ assert }) => {
    for (const secret of ['', '   ', undefined as unknown as string]) {
      assert.throws(
        () => webhookNotifier({ url: 'https://bot.example/hook', secret }),
        /empty secret/
      )
      try {
        webhookNotifier({ url: 'https://bot.example/hook', secret })
      } catch (error) {
        assert.instanceOf(error, errors.E_EMPTY_WEBHOOK_SECRET)
        assert.equal((error as { code: string }).code, 'E_EMPTY_WEBHOOK_SECRET')
      }
    }
  })
})
