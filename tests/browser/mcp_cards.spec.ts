/*
 * MCP elicitations on the inbox page, in Chromium against the fixture app,
 * whose `concierge` agent calls the tools of a real MCP server process
 * (stdio, the SDK's server: tests/fixtures/mcp_server.ts). A form-mode
 * elicitation is a question card with the server's defaults pre-picked,
 * answered on the page, and the server receives the typed values (the
 * run's result repeats what the server returned: the ElicitResult it got).
 * A URL-mode elicitation is a card with its URL as a real link, opened in
 * a new tab; the server completing it takes the card off the list; the
 * person may decline it; a URL that is not http(s) is never a link.
 */

import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
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
import { SPEC_2025_11_25_DEFAULTS } from '../fixtures/mcp_schemas.ts'

const MCP_SERVER = fileURLToPath(new URL('../fixtures/mcp_server.ts', import.meta.url))

/** Starts a run of the fixture's MCP agent, calling `tool` of the server */
function callTool(page: Page, tool: string, args?: Record<string, unknown>) {
  return startRun(page, 'concierge', JSON.stringify({ tool, args }))
}

/** What the server's tool returned, as the run's result repeats it: `svc_<tool>: <text>` */
async function serverResult(runId: string, tool: string): Promise<string> {
  const { received } = await finishedRun(runId)
  const prefix = `svc_${tool}: `
  if (!received.startsWith(prefix)) throw new Error(`Unexpected result: ${received}`)
  return received.slice(prefix.length)
}

for (const framework of browserFrameworks()) {
  test.group(`MCP elicitation cards | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework, { MCP_SERVER })

    test('a form elicitation is a question card with the server’s defaults; the server gets the typed answers', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await callTool(page, 'profile')
      const asked = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      await card.getByRole('heading', { name: 'The agent asks 6 questions' }).waitFor()
      assert.include(await card.innerText(), 'Please complete your profile')

      // A string with bounds, one with a format, an integer with bounds and a default
      const name = card.getByLabel('Display name')
      assert.equal(await name.inputValue(), '')
      assert.equal(await name.getAttribute('maxlength'), '50')
      const email = card.getByLabel('Your email address')
      assert.equal(await email.getAttribute('type'), 'email')
      const age = card.getByLabel('age', { exact: true })
      assert.equal(await age.inputValue(), '30')
      assert.equal(await age.getAttribute('min'), '18')
      assert.equal(await age.getAttribute('max'), '99')
      // An enum with titles, a multi-select and a boolean, their defaults pre-picked
      assert.isTrue(await card.getByRole('radio', { name: 'France' }).isChecked())
      assert.isFalse(await card.getByRole('radio', { name: 'Japan' }).isChecked())
      assert.isTrue(await card.getByRole('checkbox', { name: 'Blue' }).isChecked())
      assert.isFalse(await card.getByRole('checkbox', { name: 'Red' }).isChecked())
      const newsletter = card.getByRole('radiogroup', { name: 'Newsletter' })
      assert.isTrue(await newsletter.getByRole('radio', { name: 'Yes' }).isChecked())

      await name.fill('Ada')
      await email.fill('ada@example.com')
      await age.fill('42')
      await card.getByRole('radio', { name: 'Japan' }).check()
      await card.getByRole('checkbox', { name: 'Red' }).check()
      await newsletter.getByRole('radio', { name: 'No' }).check()
      await card.getByRole('button', { name: 'Confirm' }).click()
      await settledCard(page, asked.id, ADA)

      assert.deepEqual(JSON.parse(await serverResult(run.id, 'profile')), {
        action: 'accept',
        content: {
          name: 'Ada',
          email: 'ada@example.com',
          age: 42,
          country: 'jp',
          colors: ['red', 'blue'],
          newsletter: false,
        },
      })
      const settled = await settledRow(asked.id)
      assert.equal(settled.answeredVia, 'web')
    })

    test('the 2025-11-25 specification’s example form renders every primitive, confirmed on its defaults', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await callTool(page, 'spec_form')
      const asked = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      await card.getByRole('heading', { name: 'The agent asks 8 questions' }).waitFor()
      const question = (id: string) => card.locator(`[data-question-id="${id}"]`)
      const displayName = question('displayName').getByRole('textbox')
      assert.equal(await displayName.getAttribute('type'), 'email')
      assert.equal(await displayName.inputValue(), 'user@example.com')
      for (const [id, type] of [
        ['score', '1'],
        ['ratio', 'any'],
      ]) {
        const input = question(id).getByRole('spinbutton')
        assert.equal(await input.inputValue(), '50')
        assert.equal(await input.getAttribute('max'), '100')
        assert.equal(await input.getAttribute('step'), type)
      }
      assert.isTrue(await question('agreed').getByRole('radio', { name: 'No' }).isChecked())
      assert.isTrue(await question('color').getByRole('radio', { name: 'Red' }).isChecked())
      assert.isTrue(await question('hex').getByRole('radio', { name: 'Red' }).isChecked())
      for (const id of ['colors', 'hexes']) {
        const boxes = question(id).getByRole('checkbox')
        assert.deepEqual(
          await Promise.all(
            ['Red', 'Green', 'Blue'].map((label) =>
              question(id).getByRole('checkbox', { name: label }).isChecked()
            )
          ),
          [true, true, false]
        )
        assert.equal(await boxes.count(), 3)
      }

      await card.getByRole('button', { name: 'Confirm' }).click()
      await settledCard(page, asked.id, ADA)
      assert.deepEqual(JSON.parse(await serverResult(run.id, 'spec_form')), {
        action: 'accept',
        content: SPEC_2025_11_25_DEFAULTS,
      })
    })

    test('a URL elicitation is a link opened in a new tab; the server’s completion takes the card away', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await callTool(page, 'connect')
      const asked = await pendingRow(run.id)
      const url = asked.request.link as string

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      await card.getByRole('heading', { name: 'svc_connect asks you to open a link' }).waitFor()
      assert.include(await card.innerText(), 'Connect your calendar account')
      // The URL itself is the link's text: the person sees where it goes
      const link = card.getByRole('link', { name: url })
      assert.equal(await link.getAttribute('href'), url)
      assert.equal(await link.getAttribute('target'), '_blank')
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer')
      await card.getByRole('button', { name: 'Decline' }).waitFor()

      // Opened, the site tells the server, the server tells the inbox: the card goes
      const [tab] = await Promise.all([session.waitForEvent('page'), link.click()])
      await tab.waitForLoadState()
      assert.equal(
        await tab.evaluate(() => (globalThis as any).document.body.innerText),
        'Connected. You can close this tab.'
      )
      await card.waitFor({ state: 'detached' })

      assert.equal(await serverResult(run.id, 'connect'), 'connect: accept')
      const settled = await settledRow(asked.id)
      assert.equal(settled.status, 'approved')
      assert.equal(settled.answeredBy, 'mcp:svc')
    })

    test('a URL elicitation declined on the page is declined; a URL not http(s) is never a link', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const unsafe = 'javascript:alert(document.cookie)'
      const run = await callTool(page, 'connect', { url: unsafe })
      const asked = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      await card.getByText(unsafe).waitFor()
      assert.equal(await card.getByRole('link').count(), 0)
      assert.equal(await card.locator('a[href^="javascript:"]').count(), 0)

      await card.getByRole('button', { name: 'Decline' }).click()
      await settledCard(page, asked.id, ADA)
      assert.equal(await serverResult(run.id, 'connect'), 'connect: decline')
    })
  })
}
