/*
 * The pages in a person's language, in a real browser, against both pages
 * (React, Vue), in the fixture app that has @adonisjs/i18n as `node ace
 * add` sets it up: a browser that asks for French gets the inbox, a run's
 * page and the history in French (the package's catalogue), its cards
 * answered in French and its times written the French way, with no
 * English label left, and the operator's console too; a browser that asks for German, a language the app
 * translated three words of, gets those words and English for the rest,
 * never a key.
 */

import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { screenshot } from '../helpers/browser.ts'
import { PAGE_WORDS } from '../../src/i18n/catalogue/pages.ts'
import { PAGE_WORDS_FR } from '../../src/i18n/catalogue/pages_fr.ts'
import {
  ADA,
  MARGARET,
  browserFrameworks,
  cardOf,
  nameOf,
  openInbox,
  pendingRow,
  reloadInbox,
  startRun,
  useBrowserSuite,
} from '../helpers/inbox_browser.ts'

/**
 * The pages' English labels that French says otherwise, whole (no
 * placeholder): none may be a line of a French page.
 */
const ENGLISH_LABELS = new Set(
  (Object.keys(PAGE_WORDS) as (keyof typeof PAGE_WORDS)[])
    .filter((key) => !PAGE_WORDS[key].includes('{') && PAGE_WORDS[key] !== PAGE_WORDS_FR[key])
    .map((key) => PAGE_WORDS[key].trim())
)

/** The lines of the page's text that are an English label */
async function englishLines(page: Page): Promise<string[]> {
  const text = await page.locator('.agent-inbox').innerText()
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => ENGLISH_LABELS.has(line))
}

/** A key shown instead of its words */
const KEY = /\bpage\.[a-z_]+\.[a-z_]+/

for (const framework of browserFrameworks()) {
  test.group(`Languages | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('a French browser gets the inbox, the run page and the history in French', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA, { locale: 'fr-FR' })
      cleanup(() => session.close())
      const run = await startRun(page, 'release', 'Ship the public API')
      const intake = await pendingRow(run.id)
      await reloadInbox(page)

      // The inbox: its heading, who is signed in, the card's title and controls
      assert.equal(await page.locator('h1').innerText(), 'Boîte de réception')
      assert.match(await page.title(), /^Boîte de réception \(\d+\)/)
      await page.getByText('Connecté en tant que').first().waitFor()
      const card = cardOf(page, intake.id)
      assert.include(await card.innerText(), 'Avant que l’agent commence')
      const runGroup = page.locator(`section[data-run-id="${run.id}"]`)
      assert.equal(await runGroup.locator('.ai-run-status').innerText(), 'en attente')
      assert.deepEqual(await englishLines(page), [])

      // Answered in French
      await card.getByRole('radio', { name: 'Web app' }).check()
      await card.getByRole('button', { name: 'Confirmer', exact: true }).click()
      const settled = page.locator(`[data-row-id="${intake.id}"][data-status="settled"]`)
      await settled.getByText(`Tranché par ${nameOf(ADA)}`).waitFor()
      const asked = await pendingRow(run.id)
      assert.notEqual(asked.id, intake.id)

      // The run's page tells the run in French, times the French way
      const runPage = await session.newPage()
      await runPage.goto(`/inbox/runs/${run.id}`)
      await runPage.locator('li[data-entry="input"]').getByText('L’exécution a commencé').waitFor()
      assert.equal(
        await runPage.locator('ol.ai-timeline').getAttribute('aria-label'),
        'Ce qu’a fait l’exécution'
      )
      const answered = runPage.locator(`li[data-row-id="${intake.id}"]`)
      assert.include(await answered.innerText(), 'Formulaire d’accueil')
      assert.match(
        await answered.innerText(),
        new RegExp(`Par ${nameOf(ADA)} via web à \\d\\d:\\d\\d\\.`)
      )
      const waiting = runPage.locator(`li[data-row-id="${asked.id}"]`)
      assert.include(await waiting.innerText(), `En attente de ${nameOf(ADA)}.`)
      assert.include(await waiting.innerText(), '(par défaut)')
      assert.match(await runPage.locator('header').innerText(), /pour .* · début : \d\d:\d\d/)
      assert.deepEqual(await englishLines(runPage), [])
      await screenshot(runPage, `${framework}-run-fr.png`)

      // The history: its filters and the row just settled
      await runPage.goto('/inbox/history')
      assert.equal(await runPage.locator('h1').innerText(), 'Historique')
      assert.equal(
        await runPage.getByLabel('Afficher').locator('option:checked').innerText(),
        'Demandes tranchées'
      )
      const row = runPage.locator(`li[data-row-id="${intake.id}"]`)
      assert.equal(await row.locator('.ai-chip').innerText(), 'répondu')
      assert.include(await row.innerText(), `par ${nameOf(ADA)} via web à`)
      assert.deepEqual(await englishLines(runPage), [])
      assert.notMatch(await runPage.locator('.agent-inbox').innerText(), KEY)
    })

    test("the operator's console speaks French too", async ({ assert, cleanup }) => {
      const { session, page } = await openInbox(suite, MARGARET, { locale: 'fr-FR' })
      cleanup(() => session.close())
      await page.goto('/inbox/console')
      await page.locator('.ac-counts').waitFor()
      assert.equal(
        await page.locator('[data-count="pending"] dt').innerText(),
        'Demandes en attente'
      )
      assert.equal(await page.locator('#ac-charts-title').innerText(), 'Graphiques')
      assert.equal(
        await page.getByLabel('Période').locator('option:checked').innerText(),
        '14 derniers jours'
      )
      assert.deepEqual(await englishLines(page), [])
      assert.notMatch(await page.locator('.agent-inbox').innerText(), KEY)
    })

    test('a word the language lacks shows in English, never as its key', async ({
      assert,
      cleanup,
    }) => {
      // The fixture app translated three words to German (resources/lang/de); the package none
      const { session, page } = await openInbox(suite, ADA, { locale: 'de-DE' })
      cleanup(() => session.close())
      const run = await startRun(page, 'release', 'Ship the public API')
      const intake = await pendingRow(run.id)
      await reloadInbox(page)
      assert.equal(await page.locator('h1').innerText(), 'Posteingang')
      await page.getByText('Signed in as').first().waitFor()
      assert.include(await cardOf(page, intake.id).innerText(), 'Before the agent starts')
      assert.notMatch(await page.locator('.agent-inbox').innerText(), KEY)

      await page.goto('/inbox/history')
      assert.equal(await page.locator('h1').innerText(), 'Verlauf')
      await page.getByText('Rows settled, newest first').waitFor()
      assert.notMatch(await page.locator('.agent-inbox').innerText(), KEY)
    })
  })
}
