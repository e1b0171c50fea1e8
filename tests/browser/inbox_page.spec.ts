/*
 * The inbox page in a real browser (Debian's Chromium) against the fixture
 * app: a real AdonisJS server with sessions, Shield's CSRF, auth, Inertia and
 * built assets, on the suite's database. Each test checks what the run
 * received afterwards, not only what the page shows.
 */

import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { eventually, newSession, postJson, screenshot, signIn } from '../helpers/browser.ts'
import {
  ADA,
  cardOf,
  openInbox,
  pendingRow,
  reloadInbox,
  settledCard,
  settledRow,
  startRun,
  useBrowserSuite,
  browserFrameworks,
} from '../helpers/inbox_browser.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'

/**
 * Makes the next replies' word get lost on the way back, as when another
 * request of the session (a live-update subscription sent at the same
 * moment) takes the flash first: the reply goes through, then a routed
 * request with the session's cookies reads the flash, and the page follows
 * the redirect without it.
 */
async function loseTheWord(page: Page) {
  await page.route('**/inbox/rows/*/reply', async (route) => {
    const response = await route.fetch({ maxRedirects: 0 })
    // Reads (and so clears) the flash the reply left in the session
    await page.request.get('/', { headers: { accept: 'text/html' } })
    const location = response.headers()['location']
    await route.fulfill({ status: response.status(), headers: location ? { location } : {} })
  })
}

for (const framework of browserFrameworks()) {
  test.group(`Inbox page | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('a run asks; its owner confirms the defaults with one click; the run receives them', async ({
      assert,
    }) => {
      const session = await newSession(suite.browser, suite.fixture.baseUrl)
      const page = await session.newPage()
      await signIn(page, ADA)

      // One run of each fixture agent, so the page shows a card of each kind
      const { run } = await postJson(page, '/runs', {
        agent: 'planner',
        input: 'Scaffold the billing service',
      })
      const others = [
        await postJson(page, '/runs', { agent: 'surveyor', input: 'Prepare the spring release' }),
        await postJson(page, '/runs', { agent: 'deployer', input: 'Ship main' }),
      ]

      const asked = await eventually('the planner run to ask', async () => {
        const row = await ToolCall.query()
          .where('run_id', run.id)
          .where('status', 'pending')
          .first()
        return row ?? undefined
      })
      assert.equal(asked.kind, 'ask')
      assert.equal(asked.ownerId, String(ADA))

      await page.goto('/inbox')
      // The page of this group's framework, from its own build
      const bundle = suite.framework === 'vue' ? '/assets-vue/' : '/assets/'
      assert.include(
        await page.locator('script[type="module"]').first().getAttribute('src'),
        bundle
      )
      const card = page.locator(`[data-row-id="${asked.id}"]`)
      await card.getByRole('heading', { name: 'The agent asks 2 questions' }).waitFor()
      // The others' cards too (the suite's earlier groups' rows may be listed besides)
      for (const other of others) {
        const row = await pendingRow(other.run.id)
        await page.locator(`[data-row-id="${row.id}"][data-status="pending"]`).waitFor()
      }

      // The defaults are pre-filled: the person can confirm rather than decide
      assert.isTrue(await card.getByRole('radio', { name: 'PostgreSQL' }).isChecked())
      assert.isFalse(await card.getByRole('radio', { name: 'MySQL' }).isChecked())
      assert.include(await card.innerText(), 'Before I scaffold the service:')
      assert.equal(await card.getByRole('spinbutton').inputValue(), '2')

      await screenshot(page, `${framework}-inbox.png`)

      // Shield's CSRF check guards the reply endpoint: the session cookie alone is
      // not enough (Shield answers a bad token by redirecting back)
      const forged = await page.request.post(`/inbox/rows/${asked.id}/reply`, {
        data: { answers: { db: ['mysql'] } },
        headers: { accept: 'application/json' },
        maxRedirects: 0,
      })
      assert.equal(forged.status(), 302)
      const untouched = await ToolCall.findOrFail(asked.id)
      assert.equal(untouched.status, 'pending')

      await card.getByRole('button', { name: 'Confirm' }).click()

      // The page says who settled it...
      await page
        .locator(`[data-row-id="${asked.id}"][data-status="settled"]`)
        .getByText('Settled by')
        .waitFor()

      // ...and the row and the run say what was received
      const settled = await eventually('the row to be settled', async () => {
        const row = await ToolCall.findOrFail(asked.id)
        return row.status === 'pending' ? undefined : row
      })
      assert.equal(settled.status, 'answered')
      assert.equal(settled.answeredBy, String(ADA))
      assert.equal(settled.answeredVia, 'web')
      const outcome = settled.outcome as QuestionOutcome
      assert.deepEqual(outcome.answers, { db: ['pg'], replicas: ['2'] })
      assert.isFalse(outcome.skipped)
      assert.deepEqual(settled.reply, { answers: { db: ['pg'], replicas: ['2'] } })

      const finished = await eventually('the run to finish', async () => {
        const found = await AgentRun.findOrFail(run.id)
        return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : undefined
      })
      assert.equal(finished.status, 'completed', `run failed: ${finished.error}`)
      // The fixture model's last turn repeats the tool result it was sent
      const received = (finished.result as { text: string }).text
      assert.include(received, 'ask: The person answered your questions.')
      assert.include(received, 'Which database should it use?\n   Answer: PostgreSQL')
      assert.include(received, 'How many replicas?\n   Answer: "2"')
      assert.notInclude(received, 'MySQL')

      await session.close()
    })

    test('when the word about a reply is lost, the page asks the row and claims only what the server recorded', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'planner', 'Scaffold the audit service')
      const asked = await pendingRow(run.id)
      await reloadInbox(page)
      await loseTheWord(page)
      const card = cardOf(page, asked.id)

      // Refused, but the page never hears why: it says the row still waits, and claims nothing
      await card.getByLabel('How many replicas?').fill('99')
      await card.getByRole('button', { name: 'Confirm' }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('No word came back about this reply').waitFor()
      assert.equal(await card.getAttribute('data-status'), 'pending')
      await asked.refresh()
      assert.equal(asked.status, 'pending')

      // Settled, the word lost again: the card shows who settled it as the server recorded it
      await card.getByLabel('How many replicas?').fill('3')
      await card.getByRole('button', { name: 'Confirm' }).click()
      const settled = await settledCard(page, asked.id, ADA)
      assert.include(await settled.innerText(), 'via web')
      const row = await settledRow(asked.id)
      assert.equal(row.answeredVia, 'web')
    })
  })
}
