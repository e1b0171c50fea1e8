/*
 * Governance in a real browser against the fixture app (docs/design.md
 * §11), on both pages: a refund that needs 2 of finance, never the
 * requester — the requester sees the count and cannot vote, each approver
 * votes from their own inbox, the second vote settles it, and the run's
 * page shows an approver their call, not the run's input; and a read
 * approved "for this run", which lets the run's next read through without
 * a card, listed under the remembered approvals until it is revoked.
 */

import { test } from '@japa/runner'
import { dbName } from '../helpers/database.ts'
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
  settledCard,
  startRun,
  useBrowserSuite,
} from '../helpers/inbox_browser.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Grant } from '../../src/persistence/models/grant.ts'

for (const framework of browserFrameworks()) {
  test.group(`Governance | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('a quorum: the requester waits, each approver votes, the second vote settles', async ({
      assert,
      cleanup,
    }) => {
      const ada = await openInbox(suite, ADA)
      cleanup(() => ada.session.close())
      const run = await startRun(ada.page, 'refunder', 'Refund order 42')
      const row = await pendingRow(run.id)
      await ada.page.reload()
      const requested = cardOf(ada.page, row.id)
      await requested.getByText('0 of 2 approvals').waitFor()
      await requested
        .getByText('You requested this call, so another approver must decide.')
        .waitFor()
      assert.equal(await requested.getByRole('button', { name: 'Approve', exact: true }).count(), 0)

      const grace = await openInbox(suite, GRACE)
      cleanup(() => grace.session.close())
      const asked = cardOf(grace.page, row.id)
      await asked.getByText('0 of 2 approvals').waitFor()
      await asked.getByRole('button', { name: 'Approve', exact: true }).click()
      await asked.getByText('1 of 2 approvals').waitFor()
      await asked.getByText(`${nameOf(GRACE)} approved`).waitFor()
      await asked.getByText('You voted on this call.').waitFor()
      const counting = await ToolCall.findOrFail(row.id)
      assert.equal(counting.status, 'pending')

      const margaret = await openInbox(suite, MARGARET)
      cleanup(() => margaret.session.close())
      const last = cardOf(margaret.page, row.id)
      await last.getByText(`${nameOf(GRACE)} approved`).waitFor()
      await last.getByRole('button', { name: 'Approve', exact: true }).click()
      await settledCard(margaret.page, row.id, MARGARET)

      const { received } = await finishedRun(run.id)
      assert.include(received, '"refunded":120')
      const settled = await ToolCall.findOrFail(row.id)
      assert.equal(settled.status, 'approved')
      assert.equal(settled.answeredBy, String(MARGARET))

      // The run's page shows the call's audit log: each vote, by whom, through what
      await ada.page.goto(`/inbox/runs/${run.id}`)
      const entry = ada.page.locator(`[data-row-id="${row.id}"]`)
      await entry.getByText(`voted — ${nameOf(GRACE)}, web: approve`).waitFor()
      await entry.getByText(`settled — ${nameOf(MARGARET)}, web`).waitFor()
      assert.include(await ada.page.content(), 'Refund order 42')

      // An approver opens the run page the inbox links to: their call and its votes, not the input
      await grace.page.goto(`/inbox/runs/${run.id}`)
      await grace.page
        .getByText(
          `Only the calls you were asked to decide are shown: the run's input and its other steps stay with ${nameOf(ADA)}.`
        )
        .waitFor()
      const theirs = grace.page.locator(`[data-row-id="${row.id}"]`)
      await theirs.getByText(`voted — ${nameOf(GRACE)}, web: approve`).waitFor()
      assert.notInclude(await grace.page.content(), 'Refund order 42')
    })

    test('approved for this run: the next read needs no card; the grant is listed and revoked', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'inspector', 'Look at the logs')
      const row = await pendingRow(run.id)
      await page.reload()
      const card = cardOf(page, row.id)
      await card.getByRole('button', { name: 'Approve and allow read_logs for this run' }).click()
      await settledCard(page, row.id, ADA)

      const { received } = await finishedRun(run.id)
      // The model reports the last call's result: the read the grant let through
      assert.include(received, 'web: all quiet')
      const rows = await ToolCall.query().where('run_id', run.id).orderBy('sequence')
      assert.deepEqual(
        rows.map((item) => [item.status, item.answeredVia]),
        [
          ['approved', 'web'],
          ['auto', 'grant'],
        ]
      )

      await page.reload()
      const grants = page.getByRole('region', { name: 'Remembered approvals' })
      await grants.getByText(`read_logs in run ${run.id.slice(0, 8)}`).waitFor()
      await grants.getByRole('button', { name: 'Revoke' }).click()
      await grants.waitFor({ state: 'detached' })
      const grant = await Grant.query().where('run_id', run.id).firstOrFail()
      assert.isNotNull(grant.revokedAt)
      assert.equal(grant.revokedBy, String(ADA))
    })
  })
}
