/*
 * Accessibility of both pages (React, Vue) in a real browser: axe-core
 * finds no serious or critical violation on the inbox (question cards of
 * every input type, an approval card with its edit form open, the bulk
 * bar), on a run's page and on the history; and a person with a keyboard
 * alone settles a question set (changing an answer) and approves an
 * action, reaching every control with Tab from the top of the page.
 */

import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { seriousViolations, tabTo } from '../helpers/browser.ts'
import {
  ADA,
  browserFrameworks,
  cardOf,
  finishedRun,
  openInbox,
  pendingRow,
  reloadInbox,
  settledCard,
  settledRow,
  startRun,
  useBrowserSuite,
} from '../helpers/inbox_browser.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'

/** Fails with axe's findings, by rule and element, when there are any */
async function assertAccessible(page: Page, where: string) {
  const violations = await seriousViolations(page)
  if (violations.length === 0) return
  const found = violations.map(
    (violation) =>
      `${violation.impact} ${violation.id} (${violation.help}): ${violation.targets.join(', ')}`
  )
  throw new Error(`axe found on ${where}:\n${found.join('\n')}`)
}

for (const framework of browserFrameworks()) {
  test.group(`Accessibility | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('axe finds no serious or critical violation on the inbox, a run page and the history', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const configure = await startRun(page, 'configurator', 'Provision staging')
      const deploy = await startRun(page, 'deployer', 'Ship main')
      const [asked, approval] = [await pendingRow(configure.id), await pendingRow(deploy.id)]
      await reloadInbox(page)
      await cardOf(page, approval.id).waitFor()
      await cardOf(page, asked.id).waitFor()
      await assertAccessible(page, 'the inbox')

      // The edit form open, and a refused value shown beside its field
      const card = cardOf(page, approval.id)
      await card.getByRole('button', { name: 'Edit', exact: true }).click()
      await card.getByLabel('Branch').fill('')
      await card.getByRole('button', { name: 'Approve with changes' }).click()
      await card.locator('[data-field="branch"] .ai-field-error').waitFor()
      await assertAccessible(page, 'the inbox with the edit form and its errors')
      await card.getByLabel('Branch').fill('main')
      await card.getByRole('button', { name: 'Approve with changes' }).click()
      await settledCard(page, approval.id, ADA)
      await finishedRun(deploy.id)

      await page.goto(`/inbox/runs/${deploy.id}`)
      await page.locator('li[data-entry="end"]').waitFor()
      await assertAccessible(page, 'a run page')

      await page.goto('/inbox/history')
      await page.getByRole('list', { name: 'Rows settled' }).waitFor()
      await assertAccessible(page, 'the history')

      // The check itself: a page with a nameless button and an image without text fails it
      await page.setContent('<main><img src="/missing.png"><button></button></main>')
      const found = await seriousViolations(page)
      assert.includeMembers(
        found.map((violation) => violation.id),
        ['image-alt', 'button-name']
      )
    })

    test('with a keyboard alone: a question set settled with a changed answer, an action approved', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      // Each run on its own: the inbox lists one card at a time, oldest first
      const plan = await startRun(page, 'planner', 'Plan the keyboard')
      const asked = await pendingRow(plan.id)
      await reloadInbox(page)
      await page.locator('body').focus()

      // Into the radio group (on its checked option), then an arrow picks the next
      const card = cardOf(page, asked.id)
      await tabTo(page, card.getByRole('radio', { name: 'PostgreSQL' }))
      await page.keyboard.press('ArrowDown')
      assert.isTrue(await card.getByRole('radio', { name: 'MySQL' }).isChecked())
      await tabTo(page, card.getByRole('button', { name: 'Confirm' }))
      await page.keyboard.press('Enter')
      await settledCard(page, asked.id, ADA)
      const answered = await settledRow(asked.id)
      assert.deepEqual((answered.outcome as QuestionOutcome).answers, {
        db: ['mysql'],
        replicas: ['2'],
      })
      assert.equal(answered.answeredVia, 'web')
      await finishedRun(plan.id)

      const deploy = await startRun(page, 'deployer', 'Ship by keyboard')
      const approval = await pendingRow(deploy.id)
      await reloadInbox(page)
      await page.locator('body').focus()
      const approve = cardOf(page, approval.id).getByRole('button', {
        name: 'Approve',
        exact: true,
      })
      await tabTo(page, approve)
      await page.keyboard.press('Space')
      await settledCard(page, approval.id, ADA)
      const approved = await settledRow(approval.id)
      assert.equal(approved.status, 'approved')
      assert.equal(approved.answeredBy, String(ADA))
      await finishedRun(deploy.id)

      // The run's page is reached the same way, from the card's link
      await page.locator('body').focus()
      await tabTo(page, page.getByRole('link', { name: 'See what the run did' }).first())
      await page.keyboard.press('Enter')
      await page.waitForURL(`**/inbox/runs/${deploy.id}`)
      await page.locator('li[data-entry="end"]').waitFor()
    })
  })
}
