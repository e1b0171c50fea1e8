/*
 * Bulk decisions and the history in a real browser, against both pages
 * (React, Vue): cards selected together are rejected with one reason in
 * one request, a row someone settled meanwhile is reported by name and the
 * others settle, each run completes; question sets are confirmed on their
 * defaults together; the history lists what was settled and the runs that
 * finished, filtered from its form, each linking to its run's page, and
 * nothing of another person's.
 */

import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { postJson } from '../helpers/browser.ts'
import {
  ADA,
  GRACE,
  browserFrameworks,
  cardOf,
  finishedRun,
  nameOf,
  openInbox,
  pendingRow,
  reloadInbox,
  settledCard,
  settledRow,
  startRun,
  useBrowserSuite,
} from '../helpers/inbox_browser.ts'
import type { DecisionOutcome, QuestionOutcome } from '../../src/questions/types.ts'
import { viewDigest } from '../../src/governance/view.ts'

/** Ticks a card's box that selects it for a bulk decision */
async function select(page: Page, rowId: string) {
  await cardOf(page, rowId)
    .getByRole('checkbox', { name: /for a bulk decision/ })
    .check()
}

for (const framework of browserFrameworks()) {
  test.group(`Bulk decisions and history | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('one reason rejects the selected approvals; a row settled meanwhile is reported, the others settle', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const runs = [
        await startRun(page, 'deployer', 'Ship alpha'),
        await startRun(page, 'deployer', 'Ship beta'),
        await startRun(page, 'deployer', 'Ship gamma'),
      ]
      const rows = []
      for (const run of runs) rows.push(await pendingRow(run.id))
      await reloadInbox(page)

      const bulk = page.locator('.ai-bulk')
      for (const row of rows) await select(page, row.id)
      await bulk.getByText('3 of 3 selected.').waitFor()
      await bulk.getByRole('button', { name: 'Reject 3…' }).click()
      const reason = bulk.getByLabel('Why not?')
      await reason.fill('Release freeze this week')

      // While the reason box is open the page holds still: the third row is approved elsewhere
      await postJson(page, `/inbox/rows/${rows[2].id}/reply`, {
        approved: true,
        digest: viewDigest(rows[2]),
      })
      await bulk.getByRole('button', { name: 'Send 3 rejections' }).click()

      const alert = page.getByRole('alert')
      await alert.getByText('Some rows were not settled:').waitFor()
      assert.include(await alert.innerText(), `already settled by ${nameOf(ADA)} via api`)
      await page.getByRole('status').getByText('Settled 2 of 3.').waitFor()
      for (const row of rows) await settledCard(page, row.id, ADA)

      for (const row of rows.slice(0, 2)) {
        const settled = await settledRow(row.id)
        assert.equal(settled.status, 'rejected')
        assert.equal(settled.answeredVia, 'web')
        assert.equal((settled.outcome as DecisionOutcome).reason, 'Release freeze this week')
      }
      const first = await settledRow(rows[2].id)
      assert.equal(first.status, 'approved')
      assert.equal(first.answeredVia, 'api')
      for (const run of runs) await finishedRun(run.id)
    })

    test('question sets selected together are confirmed on their defaults', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const runs = [
        await startRun(page, 'planner', 'Plan billing'),
        await startRun(page, 'planner', 'Plan search'),
      ]
      const rows = [await pendingRow(runs[0].id), await pendingRow(runs[1].id)]
      await reloadInbox(page)
      await page.locator('.ai-bulk').getByRole('button', { name: 'Select all' }).click()
      await page.locator('.ai-bulk').getByRole('button', { name: 'Confirm 2 on defaults' }).click()
      await page.getByRole('status').getByText('Settled 2 of 2.').waitFor()
      for (const row of rows) {
        const settled = await settledRow(row.id)
        assert.equal(settled.status, 'answered')
        assert.deepEqual((settled.outcome as QuestionOutcome).answers, {
          db: ['pg'],
          replicas: ['2'],
        })
        assert.deepEqual(settled.reply, { answers: {} })
      }
      for (const run of runs) await finishedRun(run.id)
    })

    test('the history lists what was settled and what finished, filtered, each linked to its run', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const deploy = await startRun(page, 'deployer', 'Ship the history')
      const approval = await pendingRow(deploy.id)
      await postJson(page, `/inbox/rows/${approval.id}/reply`, {
        approved: true,
        digest: viewDigest(approval),
      })
      const plan = await startRun(page, 'planner', 'Plan the history')
      const asked = await pendingRow(plan.id)
      await postJson(page, `/inbox/rows/${asked.id}/reply`, {
        answers: { db: ['mysql'] },
        digest: viewDigest(asked),
      })
      await finishedRun(deploy.id)
      await finishedRun(plan.id)
      // Another person's settled row, which ada's history never shows
      const grace = await openInbox(suite, GRACE)
      cleanup(() => grace.session.close())
      const graces = await startRun(grace.page, 'deployer', 'Ship grace')
      const gracesRow = await pendingRow(graces.id)
      await postJson(grace.page, `/inbox/rows/${gracesRow.id}/reply`, {
        approved: true,
        digest: viewDigest(gracesRow),
      })

      await page.goto('/inbox')
      await page
        .getByRole('navigation', { name: 'Agent inbox' })
        .getByRole('link', { name: 'History' })
        .click()
      await page.getByRole('heading', { name: 'History' }).waitFor()
      const listed = page.getByRole('list', { name: 'Rows settled' })
      await listed.locator(`[data-row-id="${asked.id}"]`).waitFor()
      assert.include(
        await listed.locator(`[data-row-id="${asked.id}"]`).innerText(),
        'Which database should it use? MySQL'
      )
      assert.equal(await listed.locator(`[data-row-id="${gracesRow.id}"]`).count(), 0)

      // Filtered from the form: approved actions only
      const filters = page.getByRole('form', { name: 'Filters' })
      await filters.getByLabel('Status').selectOption('approved')
      await filters.getByLabel('Kind').selectOption('action')
      await filters.getByRole('button', { name: 'Show' }).click()
      await page.waitForURL(/status=approved/)
      await listed.locator(`[data-row-id="${approval.id}"]`).waitFor()
      assert.equal(await listed.locator(`[data-row-id="${asked.id}"]`).count(), 0)
      const item = listed.locator(`[data-row-id="${approval.id}"]`)
      assert.include(await item.innerText(), `by ${nameOf(ADA)} via api`)

      // The runs that finished, and a link to a run's page: the rows' own filters stay behind
      await filters.getByLabel('Show').selectOption('runs')
      assert.isTrue(await filters.getByLabel('Kind').isDisabled())
      await filters.getByLabel('Status').selectOption('')
      await filters.getByRole('button', { name: 'Show' }).click()
      await page.waitForURL(/view=runs/)
      // The statuses on offer are now a run's
      await filters.getByLabel('Status').selectOption('completed')
      await filters.getByRole('button', { name: 'Show' }).click()
      await page.waitForURL(/status=completed/)
      const finished = page.getByRole('list', { name: 'Runs finished' })
      await finished.locator(`[data-run-id="${plan.id}"]`).waitFor()
      assert.equal(await finished.locator(`[data-run-id="${graces.id}"]`).count(), 0)
      await finished.locator(`[data-run-id="${plan.id}"]`).getByRole('link').click()
      await page.waitForURL(`**/inbox/runs/${plan.id}`)
      await page.locator('li[data-entry="end"]').getByText('The run completed').waitFor()
    })
  })
}
