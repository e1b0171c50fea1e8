/*
 * Approval cards in a real browser against the fixture app (the deployer
 * agent's `deploy` action): approve, reject with a reason, edit the args
 * (an invalid value refused inline, then a valid one), and a reply that
 * loses to another session or to the same person's other tab. Each test reads what the run received from the
 * database: the row (status, execution, outcome, who and via what) and the
 * run's result, in which the fixture model repeats the tool result it was sent.
 */

import { test } from '@japa/runner'
import type { Locator } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { screenshot } from '../helpers/browser.ts'
import {
  ADA,
  MARGARET,
  nameOf,
  cardOf,
  descriptionOf,
  finishedRun,
  openInbox,
  pendingRow,
  reloadInbox,
  settledCard,
  settledRow,
  startRun,
  useBrowserSuite,
  browserFrameworks,
} from '../helpers/inbox_browser.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { DecisionOutcome } from '../../src/questions/types.ts'

/** How often a text occurs in another */
function occurrences(text: string, part: string): number {
  return text.split(part).length - 1
}

/** The Approve / Reject / Edit buttons of a pending approval card */
function decisionButtons(card: Locator) {
  return {
    approve: card.getByRole('button', { name: 'Approve', exact: true }),
    reject: card.getByRole('button', { name: 'Reject', exact: true }),
    edit: card.getByRole('button', { name: 'Edit', exact: true }),
  }
}

for (const framework of browserFrameworks()) {
  test.group(`Approval cards | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('Approve runs the action once, with the args shown; the run gets its result', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'deployer', 'Ship main')
      const waiting = await pendingRow(run.id)
      assert.equal(waiting.kind, 'action')
      assert.isNull(waiting.execution)

      await reloadInbox(page)
      const card = cardOf(page, waiting.id)
      await card.getByRole('heading', { name: 'Approve deploy?' }).waitFor()
      assert.equal(await card.getAttribute('data-kind'), 'action')
      assert.include(await card.innerText(), 'Deploy main to production')
      assert.include(await card.locator('pre').innerText(), '"branch": "main"')

      await decisionButtons(card).approve.click()
      await settledCard(page, waiting.id, ADA)

      const settled = await settledRow(waiting.id)
      assert.equal(settled.status, 'approved')
      assert.equal(settled.answeredBy, String(ADA))
      assert.equal(settled.answeredVia, 'web')
      assert.deepEqual(settled.reply, { approved: true })
      const outcome = settled.outcome as DecisionOutcome
      assert.isTrue(outcome.approved)
      assert.notProperty(outcome, 'editedInput')

      const { received } = await finishedRun(run.id)
      const executed = await ToolCall.findOrFail(waiting.id)
      assert.equal(executed.execution, 'succeeded')
      assert.deepEqual(executed.result, { value: { deployed: 'main', force: false } })
      // One action row for the run, run once: its result reached the model once
      const actions = await ToolCall.query().where('run_id', run.id).where('kind', 'action')
      assert.lengthOf(actions, 1)
      assert.include(received, 'deploy: The person approved the call to "deploy".')
      assert.equal(occurrences(received, '{"deployed":"main","force":false}'), 1)
      assert.notInclude(received, 'edited the arguments')
    })

    test('Reject with a reason: nothing runs and the reason reaches the run', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'deployer', 'Ship main on Friday')
      const waiting = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, waiting.id)
      const buttons = decisionButtons(card)
      await buttons.reject.click()

      // The reason box takes the focus and hides the decision buttons
      const reason = card.getByLabel('Why not?')
      await reason.waitFor()
      assert.isTrue(
        await reason.evaluate((element) => element.ownerDocument.activeElement === element)
      )
      assert.equal(await buttons.approve.count(), 0)
      assert.equal(await buttons.edit.count(), 0)

      const why = 'Not on a Friday: wait until the freeze ends on Monday.'
      await reason.fill(why)
      await card.getByRole('button', { name: 'Send rejection' }).click()
      await settledCard(page, waiting.id, ADA)

      const settled = await settledRow(waiting.id)
      assert.equal(settled.status, 'rejected')
      assert.equal(settled.answeredBy, String(ADA))
      assert.equal(settled.answeredVia, 'web')
      assert.deepEqual(settled.reply, { approved: false, reason: why })
      const outcome = settled.outcome as DecisionOutcome
      assert.isFalse(outcome.approved)
      assert.equal(outcome.reason, why)

      const { received } = await finishedRun(run.id)
      const after = await ToolCall.findOrFail(waiting.id)
      assert.isNull(after.execution)
      assert.isNull(after.result)
      assert.include(
        received,
        'deploy: The person rejected the call to "deploy", so it was not run.'
      )
      assert.include(received, `\`\`\`untrusted\n${why}\n\`\`\``)
      assert.notInclude(received, '"deployed"')
    })

    test('Edit: the form from the tool schema; an invalid value is refused beside its field, a valid one runs with the edited args', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'deployer', 'Ship a release branch')
      const waiting = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, waiting.id)
      const buttons = decisionButtons(card)
      await buttons.edit.click()
      // A field per property of the tool's Vine schema, on the args shown; the first takes the focus
      const branch = card.getByLabel('Branch')
      const force = card.getByRole('checkbox', { name: 'Force' })
      await branch.waitFor()
      assert.equal(await branch.inputValue(), 'main')
      assert.isFalse(await force.isChecked())
      assert.isTrue(
        await branch.evaluate((element) => element.ownerDocument.activeElement === element)
      )
      assert.equal(await buttons.approve.count(), 0)
      assert.equal(await buttons.reject.count(), 0)
      // The form stands in for the raw JSON of the args while it is open
      assert.equal(await card.locator('.ai-args').count(), 0, 'the raw args above the form')

      // An empty branch breaks the tool's Vine schema: refused server-side, shown beside the field
      await branch.fill('')
      await force.check()
      await card.getByRole('button', { name: 'Approve with changes' }).click()
      await card.locator('[data-field="branch"] .ai-field-error').waitFor()
      assert.equal(await branch.getAttribute('aria-invalid'), 'true')
      const branchError = await descriptionOf(page, branch)
      assert.match(await branchError.innerText(), /branch/i)
      assert.equal(await card.getAttribute('data-status'), 'pending')
      assert.equal(await buttons.approve.count(), 0)
      await waiting.refresh()
      assert.equal(waiting.status, 'pending')
      assert.isNull(waiting.reply)
      assert.isNull(waiting.execution)
      await screenshot(page, `${framework}-edit-form.png`)

      // The raw JSON stays available, and holds what the form holds
      await card.getByRole('button', { name: 'Edit as JSON (advanced)' }).click()
      const editor = card.getByLabel('Arguments (JSON)')
      assert.deepEqual(JSON.parse(await editor.inputValue()), { branch: '', force: true })
      await editor.fill('{ "branch": "release-7", "force": false }')
      await card.getByRole('button', { name: 'Edit in the form' }).click()
      assert.equal(await branch.inputValue(), 'release-7')
      assert.isFalse(await force.isChecked())
      await force.check()
      await card.getByRole('button', { name: 'Approve with changes' }).click()
      await settledCard(page, waiting.id, ADA)

      const settled = await settledRow(waiting.id)
      assert.equal(settled.status, 'approved')
      assert.equal(settled.answeredBy, String(ADA))
      assert.equal(settled.answeredVia, 'web')
      const outcome = settled.outcome as DecisionOutcome
      assert.isTrue(outcome.approved)
      assert.deepEqual(outcome.editedInput, { branch: 'release-7', force: true })

      const { received } = await finishedRun(run.id)
      const executed = await ToolCall.findOrFail(waiting.id)
      assert.equal(executed.execution, 'succeeded')
      assert.deepEqual(executed.result, { value: { deployed: 'release-7', force: true } })
      assert.include(
        received,
        'The person edited the arguments before approving: it runs with their arguments, not the ones you proposed.'
      )
      assert.equal(occurrences(received, '{"deployed":"release-7","force":true}'), 1)
      assert.notInclude(received, '"deployed":"main"')

      // The history and the run's page tell the edit as the form's fields, before → after
      await page.goto('/inbox/history')
      const told = await page.locator(`li[data-row-id="${waiting.id}"]`).innerText()
      assert.include(told, 'With edited args:')
      assert.include(told, 'Branch: main → release-7')
      assert.include(told, 'Force: No → Yes')
      assert.notInclude(told, '{"branch"')
      await page.goto(`/inbox/runs/${run.id}`)
      const entry = await page.locator(`li[data-row-id="${waiting.id}"]`).innerText()
      assert.include(entry, 'Branch: main → release-7')
      assert.include(entry, 'Force: No → Yes')
    })

    test('a reply that loses to another session shows who settled the row; the first reply stands', async ({
      assert,
      cleanup,
    }) => {
      const owner = await openInbox(suite, ADA)
      cleanup(() => owner.session.close())
      const admin = await openInbox(suite, MARGARET)
      cleanup(() => admin.session.close())
      const run = await startRun(owner.page, 'deployer', 'Ship main twice')
      const waiting = await pendingRow(run.id)

      await reloadInbox(owner.page)
      await reloadInbox(admin.page)
      const ownerCard = cardOf(owner.page, waiting.id)
      const adminCard = cardOf(admin.page, waiting.id)

      // The admin starts a rejection (an open box holds the page's live updates)...
      await decisionButtons(adminCard).reject.click()
      await adminCard.getByLabel('Why not?').fill('Too risky today')

      // ...while the owner approves
      await decisionButtons(ownerCard).approve.click()
      await settledCard(owner.page, waiting.id, ADA)
      const first = await settledRow(waiting.id)
      assert.equal(first.status, 'approved')

      await adminCard.getByRole('button', { name: 'Send rejection' }).click()
      const alert = admin.page.getByRole('alert')
      await alert.getByText('Already settled.').waitFor()
      assert.equal(await alert.getAttribute('data-status'), '409')
      assert.include(await alert.innerText(), `Settled by ${nameOf(ADA)}, via web, at `)
      // The card stays, saying who settled it
      await settledCard(admin.page, waiting.id, ADA)

      const kept = await ToolCall.findOrFail(waiting.id)
      assert.equal(kept.status, 'approved')
      assert.equal(kept.answeredBy, String(ADA))
      assert.equal(kept.answeredVia, 'web')
      assert.deepEqual(kept.reply, { approved: true })
      assert.isTrue(kept.settledAt!.equals(first.settledAt!))

      const { received } = await finishedRun(run.id)
      const executed = await ToolCall.findOrFail(waiting.id)
      assert.equal(executed.execution, 'succeeded')
      assert.include(received, 'deploy: The person approved the call to "deploy".')
      assert.notInclude(received, 'Too risky today')
    })

    test("a reply that loses to the same person's other tab says so", async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'deployer', 'Ship main from two tabs')
      const waiting = await pendingRow(run.id)
      const other = await session.newPage()
      await other.goto('/inbox')
      await reloadInbox(page)

      // This tab starts a rejection (its open box holds the live updates) while the other approves
      const card = cardOf(page, waiting.id)
      await decisionButtons(card).reject.click()
      await card.getByLabel('Why not?').fill('Not today')
      await decisionButtons(cardOf(other, waiting.id)).approve.click()
      await settledCard(other, waiting.id, ADA)

      await card.getByRole('button', { name: 'Send rejection' }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('Already settled.').waitFor()
      assert.include(await alert.innerText(), 'Settled by you, in another tab, at ')
      const settled = await settledCard(page, waiting.id, ADA)
      assert.include(await settled.innerText(), 'via web')
      const kept = await settledRow(waiting.id)
      assert.equal(kept.status, 'approved')
      await finishedRun(run.id)
    })
  })
}
