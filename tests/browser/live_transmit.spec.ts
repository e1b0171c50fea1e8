/*
 * The inbox page's two ways of staying fresh, in Chromium against the
 * fixture app: with @adonisjs/transmit (INBOX_LIVE=transmit) the page
 * subscribes to its person's channel, stops polling, and reloads its rows
 * when the server says a row was created or settled; without it
 * (INBOX_LIVE=poll) the page polls. Each test checks what the run received.
 */

import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { eventually, newSession, postJson, signIn } from '../helpers/browser.ts'
import { browserFrameworks, useBrowserSuite } from '../helpers/inbox_browser.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { viewDigest } from '../../src/governance/view.ts'

/** The fixture's people (fixtures/app/database/seeders/users_seeder.ts) */
const ADA = 1

/** The page's polling interval when the app passes none (stubs/…/index.tsx) */
const DEFAULT_POLL_INTERVAL = 3000

/**
 * Counts the page's partial reloads of its rows (Inertia's `only: ['groups']`),
 * whether polling or Transmit asked for them.
 */
function countRowReloads(page: Page): () => number {
  let count = 0
  page.on('request', (request) => {
    const partial = request.headers()['x-inertia-partial-data'] ?? ''
    if (partial.split(',').includes('groups')) count += 1
  })
  return () => count
}

function pendingRow(runId: string) {
  return eventually(`a pending row of run ${runId}`, async () => {
    const row = await ToolCall.query().where('run_id', runId).where('status', 'pending').first()
    return row ?? undefined
  })
}

async function receivedBy(runId: string) {
  const run = await eventually(`run ${runId} to finish`, async () => {
    const found = await AgentRun.findOrFail(runId)
    return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : undefined
  })
  if (run.status !== 'completed') throw new Error(`Run ${runId} ended ${run.status}: ${run.error}`)
  return (run.result as { text: string }).text
}

for (const framework of browserFrameworks()) {
  test.group(`Live inbox | Transmit | ${framework} | ${dbName()}`, (group) => {
    // The fixture's default is Transmit: the suite's shared app
    const suite = useBrowserSuite(group, framework)

    test('rows created and settled elsewhere show on the open page through Transmit, not polling', async ({
      assert,
      cleanup,
    }) => {
      const session = await newSession(suite.browser, suite.fixture.baseUrl)
      cleanup(() => session.close())
      const page = await session.newPage()
      await signIn(page, ADA)

      const main = page.locator('.agent-inbox')
      await page.locator('.agent-inbox[data-live="transmit"]').waitFor()
      assert.equal(await page.locator('.ai-live').innerText(), 'Live')

      // Subscribed, the page does not poll: no reload for longer than a poll interval
      // (counted from just after the one look it takes once subscribed)
      await page.waitForTimeout(500)
      const reloads = countRowReloads(page)
      let loads = 0
      page.on('load', () => (loads += 1))
      await page.waitForTimeout(DEFAULT_POLL_INTERVAL + 1000)
      assert.equal(reloads(), 0, 'the page polled while subscribed')

      // A run started outside the page: its row arrives with the broadcast
      const { run } = await postJson(page, '/runs', { agent: 'planner', input: 'Plan billing' })
      const asked = await pendingRow(run.id)
      const card = page.locator(`[data-row-id="${asked.id}"]`)
      await card.waitFor({ timeout: 5000 })
      assert.equal(await card.getAttribute('data-status'), 'pending')
      assert.isAtLeast(reloads(), 1)
      assert.equal(await main.getAttribute('data-live'), 'transmit')

      // Settled from elsewhere (another tab's request): the card leaves the open page
      const reloadsBefore = reloads()
      await postJson(page, `/inbox/rows/${asked.id}/reply`, {
        answers: { db: ['sqlite'] },
        digest: viewDigest(asked),
      })
      await card.waitFor({ state: 'detached', timeout: 5000 })
      assert.isAbove(reloads(), reloadsBefore)
      assert.equal(loads, 0, 'the page reloaded as a whole')

      const settled = await ToolCall.findOrFail(asked.id)
      assert.equal(settled.answeredBy, String(ADA))
      const received = await receivedBy(run.id)
      assert.include(received, 'Which database should it use?\n   Answer: SQLite')
      assert.include(received, 'How many replicas?\n   Answer: "2"')
    })
  })
}

for (const framework of browserFrameworks()) {
  test.group(`Live inbox | polling | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework, { INBOX_LIVE: 'poll' })

    test('without Transmit the page polls, and a new run shows up', async ({ assert, cleanup }) => {
      const session = await newSession(suite.browser, suite.fixture.baseUrl)
      cleanup(() => session.close())
      const page = await session.newPage()
      const streams: number[] = []
      page.on('response', (response) => {
        if (new URL(response.url()).pathname === '/__transmit/events')
          streams.push(response.status())
      })
      await signIn(page, ADA)

      await page.locator('.agent-inbox[data-live="polling"]').waitFor()
      assert.equal(await page.locator('.ai-live').innerText(), 'Checking for new rows')
      const reloads = countRowReloads(page)

      const { run } = await postJson(page, '/runs', { agent: 'planner', input: 'Plan search' })
      const asked = await pendingRow(run.id)
      const card = page.locator(`[data-row-id="${asked.id}"]`)
      await card.waitFor({ timeout: DEFAULT_POLL_INTERVAL * 3 })
      assert.isAtLeast(reloads(), 1)
      // The bundled client tried once, found no Transmit routes and gave up
      assert.deepEqual(streams, [404])
      assert.equal(await page.locator('.agent-inbox').getAttribute('data-live'), 'polling')

      await card.getByRole('button', { name: 'Confirm' }).click()
      await page
        .locator(`[data-row-id="${asked.id}"][data-status="settled"]`)
        .getByText('Settled by')
        .waitFor()
      const received = await receivedBy(run.id)
      assert.include(received, 'Which database should it use?\n   Answer: PostgreSQL')
    })
  })
}
