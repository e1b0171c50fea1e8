/*
 * A run's page and the run's status in a real browser, against both pages
 * (React, Vue): the page tells the run's timeline (its intake, the model's
 * steps, the question set and its answers, the approved action with its
 * args, what it returned and how it ran (in its transaction, committed,
 * its idempotency key, the effect after the commit), the final answer,
 * each with who answered, through what and when, by name), and follows the run live while it
 * moves; the inbox's badge of a run follows its status without a reload,
 * and says the run moves on the moment its last row is settled (for its
 * owner and for an admin, whom no live message tells); a person sees only
 * the runs the access hooks let them see.
 */

import { randomUUID } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { screenshot } from '../helpers/browser.ts'
import {
  ADA,
  GRACE,
  MARGARET,
  browserFrameworks,
  cardOf,
  finishedRun,
  nameOf,
  openInbox,
  pendingRow,
  reloadInbox,
  settledCard,
  startRun,
  useBrowserSuite,
} from '../helpers/inbox_browser.ts'

/** Counts the page's full loads from now on: a live page never reloads as a whole */
function countLoads(page: Page): () => number {
  let loads = 0
  page.on('load', () => (loads += 1))
  return () => loads
}

for (const framework of browserFrameworks()) {
  test.group(`Run page | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test("the run's page tells its timeline and follows it live; the inbox's badge follows its status", async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'release', 'Ship the public API')
      const intake = await pendingRow(run.id)
      await reloadInbox(page)

      // The inbox links a run to its page
      const runGroup = page.locator(`section[data-run-id="${run.id}"]`)
      const runLink = runGroup.getByRole('link', { name: /^run / })
      assert.equal(await runLink.getAttribute('href'), `/inbox/runs/${run.id}`)
      const runPage = await session.newPage()
      await runPage.goto(`/inbox/runs/${run.id}`)
      await runPage.locator('.agent-inbox[data-live="transmit"]').waitFor()
      const loads = countLoads(runPage)
      const entry = (rowId: string) => runPage.locator(`li[data-row-id="${rowId}"]`)
      await entry(intake.id)
        .getByText(`Waiting for ${nameOf(ADA)}`)
        .waitFor()
      assert.equal(
        await runPage.locator('li[data-entry="input"] pre').innerText(),
        'Ship the public API'
      )

      // Answered in the inbox: the run's page follows without a reload
      await cardOf(page, intake.id).getByRole('radio', { name: 'Web app' }).check()
      await cardOf(page, intake.id).getByRole('button', { name: 'Confirm' }).click()
      await settledCard(page, intake.id, ADA)
      await entry(intake.id)
        .getByText(`By ${nameOf(ADA)} via web`)
        .waitFor()
      assert.include(await entry(intake.id).innerText(), 'Which service are we releasing? Web app')

      const asked = await pendingRow(run.id)
      await entry(asked.id)
        .getByText(`Waiting for ${nameOf(ADA)}`)
        .waitFor()
      await reloadInbox(page)
      await cardOf(page, asked.id).getByRole('button', { name: 'Skip' }).click()
      await settledCard(page, asked.id, ADA)

      const approval = await pendingRow(run.id)
      await entry(approval.id).getByText('Action deploy').waitFor()
      await reloadInbox(page)
      const badge = page.locator(`section[data-run-id="${run.id}"] .ai-run-status`)
      assert.equal(await badge.innerText(), 'waiting')
      const inboxLoads = countLoads(page)
      await cardOf(page, approval.id).getByRole('button', { name: 'Approve', exact: true }).click()
      await settledCard(page, approval.id, ADA)

      // The run completes: its badge says so without a reload (run:status over Transmit)
      await page.locator(`section[data-run-id="${run.id}"] .ai-run-completed`).waitFor()
      assert.equal(await badge.innerText(), 'completed')
      assert.equal(inboxLoads(), 0, 'the inbox reloaded as a whole')

      // ...and so does its page, which tells the whole run
      await runPage.locator('.agent-inbox[data-run-status="completed"]').waitFor()
      const end = runPage.locator('li[data-entry="end"]')
      await end.getByText('The run completed').waitFor()
      const { received } = await finishedRun(run.id)
      assert.equal(await end.locator('pre').innerText(), received)
      const asking = await entry(asked.id).innerText()
      assert.include(asking, 'Skipped: the defaults were used.')
      assert.include(
        asking,
        'How should the release roll out? Canary first (10%, then everyone) (default)'
      )
      const deploy = await entry(approval.id).innerText()
      assert.include(deploy, 'Approved')
      assert.include(deploy, `By ${nameOf(ADA)} via web`)
      assert.include(deploy, '"branch": "release"')
      assert.include(deploy, '"deployed": "release"')
      // How the action ran: in its transaction, committed, its key, and the effect after the commit
      const facts = await entry(approval.id).locator('dl.ai-facts').innerText()
      assert.include(facts, 'In one transaction with its writes')
      assert.match(facts, /Committed/)
      assert.match(facts, /Idempotency key\s+[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-/)
      assert.match(
        facts,
        /After the commit: announce\s+delivered .*\(1 attempt\) · key [0-9a-f-]{36}/
      )
      assert.isAtLeast(await runPage.locator('li[data-entry="step"]').count(), 3)
      assert.equal(loads(), 0, "the run's page reloaded as a whole")
      await screenshot(runPage, `${framework}-run.png`)
    })

    test('the run page fits a phone on long unbroken model text', async ({ assert, cleanup }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      await page.setViewportSize({ width: 390, height: 800 })
      const long = `${'x'.repeat(400)} https://example.com/${'a'.repeat(300)}`
      const run = await startRun(page, 'narrator', long)
      await finishedRun(run.id)
      await page.goto(`/inbox/runs/${run.id}`)
      await page.locator('.agent-inbox[data-run-status="completed"]').waitFor()
      await page.locator('li[data-entry="step"]').first().waitFor()
      const { scrollWidth, innerWidth } = await page.locator('html').evaluate((html) => ({
        scrollWidth: html.scrollWidth,
        innerWidth: html.ownerDocument.defaultView!.innerWidth,
      }))
      assert.isAtMost(scrollWidth, innerWidth, 'the page scrolls sideways')
    })

    test("the run page shows a pending question set's questions, read-only, with a link to answer", async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'planner', 'Scaffold a service')
      const asked = await pendingRow(run.id)
      await page.goto(`/inbox/runs/${run.id}`)
      const entry = page.locator(`li[data-row-id="${asked.id}"]`)
      await entry.getByText(`Waiting for ${nameOf(ADA)}`).waitFor()
      const shown = await entry.innerText()
      assert.include(shown, 'Which database should it use? PostgreSQL (default) · MySQL · SQLite')
      assert.include(shown, 'How many replicas? Default: 2')
      assert.equal(await entry.locator('input, select, textarea, button').count(), 0)
      await entry.getByRole('link', { name: 'Answer it in the inbox' }).waitFor()
    })

    test("the group's chip says the run moves on as soon as its last row is settled, for its owner and for an admin", async ({
      assert,
      cleanup,
    }) => {
      const owner = await openInbox(suite, ADA)
      cleanup(() => owner.session.close())
      const admin = await openInbox(suite, MARGARET)
      cleanup(() => admin.session.close())
      for (const [who, page] of [
        [ADA, owner.page],
        [MARGARET, admin.page],
      ] as const) {
        // The ponderer's run stays `running` after its answer until the gate opens
        const gate = join(tmpdir(), `agent-inbox-gate-${randomUUID()}`)
        cleanup(() => rm(gate, { force: true }))
        const run = await startRun(owner.page, 'ponderer', gate)
        const row = await pendingRow(run.id)
        await reloadInbox(page)
        const chip = page.locator(`section[data-run-id="${run.id}"] .ai-run-status`)
        assert.equal(await chip.innerText(), 'waiting')
        await cardOf(page, row.id).getByRole('button', { name: 'Confirm' }).click()
        await settledCard(page, row.id, who)
        assert.equal(await chip.innerText(), 'running', `as ${nameOf(who)} settles the last row`)
        // The run ends: the owner hears it (Transmit), the admin's page asks (no message reaches her)
        await writeFile(gate, '')
        await page.locator(`section[data-run-id="${run.id}"] .ai-run-completed`).waitFor()
      }
    })

    test('a person sees only the runs the access hooks let them see', async ({
      assert,
      cleanup,
    }) => {
      const ada = await openInbox(suite, ADA)
      cleanup(() => ada.session.close())
      const run = await startRun(ada.page, 'deployer', 'Ship main')
      await pendingRow(run.id)

      const grace = await openInbox(suite, GRACE)
      cleanup(() => grace.session.close())
      const refused = await grace.page.goto(`/inbox/runs/${run.id}`)
      assert.equal(refused?.status(), 403)

      // The fixture's hooks let the admin settle (and see) anyone's rows, and so their runs
      const admin = await openInbox(suite, MARGARET)
      cleanup(() => admin.session.close())
      const allowed = await admin.page.goto(`/inbox/runs/${run.id}`)
      assert.equal(allowed?.status(), 200)
      await admin.page
        .getByRole('heading', { name: /deployer/ })
        .first()
        .waitFor()
      assert.include(await admin.page.locator('header').innerText(), `for ${nameOf(ADA)}`)
    })
  })
}
