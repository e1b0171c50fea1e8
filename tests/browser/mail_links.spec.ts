/*
 * Mail with signed one-tap links, end to end (docs/design.md §7.7): a row
 * is opened → a mail reaches a real SMTP server on loopback → its link
 * opens the confirmation page in Chromium (the GET changes nothing) →
 * confirming settles the row once, `answered_via: 'mail'`; the link then
 * says who settled it and cannot settle again; a tampered or expired link
 * is a 403; a link to a row settled elsewhere names who settled it.
 */

import { test } from '@japa/runner'
import type { Browser } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { sharedBrowser } from '../helpers/inbox_browser.ts'
import { createNotifyingApp } from '../helpers/notifications.ts'
import { mailLinks } from '../helpers/smtp.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { InboxEvent } from '../../src/persistence/models/inbox_event.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { DEPLOY_QUESTIONS } from '../helpers/rows.ts'
import { linkMaker } from '../../src/http/mail_links.ts'

test.group(`Mail links | ${dbName()}`, (group) => {
  let app: Awaited<ReturnType<typeof createNotifyingApp>>
  let browser: Browser
  group.setup(async () => {
    app = await createNotifyingApp()
    browser = await sharedBrowser()
    return () => app.terminate()
  })
  group.each.setup(() => {
    app.smtp.mails.length = 0
  })

  test('a mailed link opens the confirmation page; confirming settles the row once', async ({
    assert,
    cleanup,
  }) => {
    const row = await app.openApproval('ada', 'Deploy main to production')
    const [mail] = await app.smtp.received(1)
    assert.equal(app.smtp.to('ada@example.test').length, 1)
    assert.include(mail.subject, 'Deploy main to production')
    const links = mailLinks(mail)
    assert.lengthOf(links.Approve, 1)
    assert.lengthOf(links.Reject, 1)
    const approve = links.Approve[0]

    const session = await browser.newContext()
    cleanup(() => session.close())
    const page = await session.newPage()
    await page.goto(approve)
    await page.getByRole('heading', { name: 'Approve?' }).waitFor()
    await page.getByText('Deploy main to production').waitFor()
    // Opening the link decided nothing
    const opened = await ToolCall.findOrFail(row.id)
    assert.equal(opened.status, 'pending')

    await page.getByRole('button', { name: 'Approve' }).click()
    await page.getByRole('heading', { name: 'Done' }).waitFor()
    assert.include(await page.getByRole('status').innerText(), 'settled by ada via mail')
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'approved')
    assert.equal(settled.answeredBy, 'ada')
    assert.equal(settled.answeredVia, 'mail')

    // The link again: who settled it, and no form; a second POST settles nothing
    await page.goto(approve)
    await page.getByRole('heading', { name: 'Done' }).waitFor()
    assert.equal(await page.getByRole('button').count(), 0)
    const again = await page.request.post(approve, { form: { digest: viewDigest(settled) } })
    assert.equal(again.status(), 409)
    assert.include(await again.text(), 'Already settled')
    const settledEvents = await InboxEvent.query().where('row_id', row.id).where('type', 'settled')
    assert.lengthOf(settledEvents, 1)
    assert.equal(settledEvents[0].channel, 'mail')
  })

  test('a tampered or stale link does nothing', async ({ assert, cleanup }) => {
    const row = await app.openApproval('ada', 'Rotate the keys')
    const [mail] = await app.smtp.received(1)
    const approve = mailLinks(mail).Approve[0]
    const session = await browser.newContext()
    cleanup(() => session.close())
    const page = await session.newPage()

    // Another person, another action, a broken signature: 403, nothing shown
    for (const tampered of [
      approve.replace('person=ada', 'person=grace'),
      approve.replace('action=approve', 'action=reject'),
      approve.replace(/signature=([^&]{5})/, 'signature=AAAAA'),
    ]) {
      assert.notEqual(tampered, approve)
      const response = await page.goto(tampered)
      assert.equal(response?.status(), 403)
      await page.getByRole('heading', { name: 'This link does not work' }).waitFor()
      const posted = await page.request.post(tampered, { form: { digest: viewDigest(row) } })
      assert.equal(posted.status(), 403)
    }
    // A decision on another version of the row than the page showed
    const stale = await page.request.post(approve, { form: { digest: 'f'.repeat(64) } })
    assert.equal(stale.status(), 409)
    const untouched = await ToolCall.findOrFail(row.id)
    assert.equal(untouched.status, 'pending')
  })

  test('a link past its time is a 403', async ({ assert, cleanup }) => {
    const row = await app.openApproval('ada', 'Renew the certificate')
    await app.smtp.received(1)
    const router = await app.app.container.make('router')
    const short = linkMaker(router, { notifiers: [], baseUrl: app.baseUrl, linkTtl: 1 })!
    const [approve] = short.links(row, 'ada')
    await new Promise((resolve) => setTimeout(resolve, 50))
    const session = await browser.newContext()
    cleanup(() => session.close())
    const page = await session.newPage()
    const response = await page.goto(approve.url)
    assert.equal(response?.status(), 403)
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor()
    const untouched = await ToolCall.findOrFail(row.id)
    assert.equal(untouched.status, 'pending')
  })

  test('a link to a row settled elsewhere says who settled it', async ({ assert, cleanup }) => {
    const row = await app.openApproval('ada', 'Drop the staging database')
    const [mail] = await app.smtp.received(1)
    const reject = mailLinks(mail).Reject[0]
    await app.agents.inbox.settle(
      row,
      { approved: false, reason: 'not today' },
      {
        by: 'grace',
        via: 'web',
      }
    )
    const session = await browser.newContext()
    cleanup(() => session.close())
    const page = await session.newPage()
    await page.goto(reject)
    await page.getByRole('heading', { name: 'Already settled' }).waitFor()
    assert.include(await page.getByRole('status').innerText(), 'settled by grace via web')
    assert.equal(await page.getByRole('button').count(), 0)
    const posted = await page.request.post(reject, { form: { digest: viewDigest(row) } })
    assert.equal(posted.status(), 409)
    const decided = await ToolCall.findOrFail(row.id)
    assert.equal(decided.answeredBy, 'grace')
  })

  test('a question set is confirmed on its defaults through its link', async ({
    assert,
    cleanup,
  }) => {
    const row = await app.agents.inbox.open(
      { id: null, ownerId: 'ada' },
      { kind: 'ask', set: DEPLOY_QUESTIONS }
    )
    const [mail] = await app.smtp.received(1)
    assert.include(mail.text!, 'Which database should it use? — default: PostgreSQL')
    assert.include(mail.text!, 'How many replicas? — default: 2')
    const session = await browser.newContext()
    cleanup(() => session.close())
    const page = await session.newPage()
    await page.goto(mailLinks(mail)['Confirm the defaults'][0])
    await page.getByRole('button', { name: 'Confirm the defaults' }).click()
    await page.getByRole('heading', { name: 'Done' }).waitFor()
    const answered = await ToolCall.findOrFail(row.id)
    assert.equal(answered.status, 'answered')
    assert.equal(answered.answeredVia, 'mail')
    assert.deepEqual((answered.outcome as any).answers, { db: ['pg'], replicas: ['2'] })
  })
})
