/*
 * The pages inside a starter kit's layout (React and Vue): the fixture
 * served with FIXTURE_LAYOUT=kit wraps every page in a header and a
 * <main>, under global element rules of the kits' kind
 * (fixtures/app/resources/kit_layout.css: full-width 40 px inputs and
 * buttons, forms as right-aligned columns, a centred main). The package's
 * sizes hold, checked by bounding boxes: an option's radio stays a radio
 * and its row one line, Confirm/Skip and Approve/Reject/Edit stay side by
 * side, the title on one line, the history's filters on one row; the
 * page adds no second main landmark; at 390 px nothing overflows sideways
 * and the header stays above the first run. Screenshots in artifacts/.
 */

import { test } from '@japa/runner'
import type { Locator, Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { screenshot } from '../helpers/browser.ts'
import {
  ADA,
  browserFrameworks,
  MARGARET,
  cardOf,
  openInbox,
  pendingRow,
  reloadInbox,
  startRun,
  useBrowserSuite,
} from '../helpers/inbox_browser.ts'

async function box(locator: Locator) {
  const found = await locator.boundingBox()
  if (!found) throw new Error(`${locator} is not shown`)
  return found
}

/** Whether the boxes sit on one row: their tops within a few pixels */
async function sideBySide(locators: Locator[]) {
  const boxes = await Promise.all(locators.map((locator) => box(locator)))
  const tops = boxes.map((found) => found.y)
  return Math.max(...tops) - Math.min(...tops) < 4
}

/** How far the document is wider than the window, in pixels */
async function overflow(page: Page) {
  const html = await page.locator('html').evaluate((element) => element.scrollWidth)
  return html - (page.viewportSize()?.width ?? 0)
}

for (const framework of browserFrameworks()) {
  test.group(`Kit layout | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework, { FIXTURE_LAYOUT: 'kit' })

    test("the pages keep their sizes under the kit's global CSS, with one main landmark", async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      await page.setViewportSize({ width: 1280, height: 900 })
      const planned = await startRun(page, 'planner', 'Scaffold billing')
      const deploy = await startRun(page, 'deployer', 'Ship main')
      const question = await pendingRow(planned.id)
      const approval = await pendingRow(deploy.id)
      await reloadInbox(page)

      // The kit's layout is there, and the page adds no second main landmark
      assert.equal(await page.locator('body > header').count(), 1)
      assert.equal(await page.locator('body > main .agent-inbox').count(), 1)
      assert.equal(await page.getByRole('main').count(), 1)

      const card = cardOf(page, question.id)
      const radio = card.getByRole('radio', { name: 'PostgreSQL' })
      const radioBox = await box(radio)
      assert.isBelow(radioBox.width, 24, 'a radio, not a full-width input')
      assert.isBelow(radioBox.height, 24)
      const option = card.locator('.ai-option', {
        has: page.getByRole('radio', { name: 'PostgreSQL' }),
      })
      const optionBox = await box(option)
      assert.isBelow(optionBox.height, 56, "the option's row is one line")
      const labelBox = await box(option.getByText('PostgreSQL', { exact: true }))
      assert.isBelow(labelBox.x - radioBox.x, 40, 'the label beside its radio')

      const confirm = card.getByRole('button', { name: 'Confirm' })
      const skip = card.getByRole('button', { name: 'Skip' })
      assert.isTrue(await sideBySide([confirm, skip]), 'Confirm and Skip side by side')
      const confirmBox = await box(confirm)
      assert.isBelow(confirmBox.width, 240)

      const approvalCard = cardOf(page, approval.id)
      const decisions = ['Approve', 'Reject', 'Edit'].map((name) =>
        approvalCard.getByRole('button', { name, exact: true })
      )
      assert.isTrue(await sideBySide(decisions), 'Approve, Reject and Edit side by side')

      const title = await box(page.getByRole('heading', { level: 1, name: 'Inbox' }))
      assert.isBelow(title.height, 60, 'the title on one line')
      assert.isAtMost(await overflow(page), 0)
      await screenshot(page, `kit_layout_${framework}_1280.png`)

      // At 390 px: no sideways scroll, the header above the first run
      await page.setViewportSize({ width: 390, height: 844 })
      assert.isAtMost(await overflow(page), 0, 'nothing wider than the window at 390 px')
      const header = await box(page.locator('.ai-header'))
      const firstRun = await box(page.locator('.ai-run').first())
      assert.isAtMost(header.y + header.height, firstRun.y)
      assert.isBelow(header.height, 200, 'the header is not a column of one word per line')
      assert.isTrue(await sideBySide([confirm, skip]), 'Confirm and Skip side by side at 390 px')
      await screenshot(page, `kit_layout_${framework}_390.png`)

      // The history's filters stay one row of fields at 1280 px
      await page.setViewportSize({ width: 1280, height: 900 })
      await page.goto('/inbox/history')
      const filters = page.getByRole('form', { name: 'Filters' })
      await filters.waitFor()
      assert.equal(await page.getByRole('main').count(), 1)
      const fields = filters.locator('.ai-field')
      assert.isAbove(await fields.count(), 1)
      assert.isTrue(await sideBySide([fields.nth(0), fields.nth(1)]), 'the filters on one row')
      await screenshot(page, `kit_layout_${framework}_history.png`)

      // The operator's console: one main, its charts drawn at their size, nothing sideways
      const operator = await openInbox(suite, MARGARET)
      cleanup(() => operator.session.close())
      const consolePage = operator.page
      await consolePage.setViewportSize({ width: 1280, height: 900 })
      await consolePage.goto('/inbox/console')
      const canvas = consolePage.locator('figure[data-chart] canvas').first()
      await canvas.waitFor()
      assert.equal(await consolePage.getByRole('main').count(), 1)
      assert.equal(await consolePage.locator('body > main .agent-console').count(), 1)
      const chart = await box(canvas)
      assert.isAbove(chart.width, 200, 'the chart at its size')
      assert.isAbove(chart.height, 100)
      assert.isAtMost(await overflow(consolePage), 0)
      await screenshot(consolePage, `kit_layout_${framework}_console.png`)
    })
  })
}
