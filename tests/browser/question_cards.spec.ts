/*
 * Question cards in a real browser against the fixture app: a set with
 * every input type answered (some defaults changed, some kept, one cleared),
 * a skip, keyboard use, and a card that arrives on the open page without a
 * reload (Transmit or polling, whichever the fixture runs). Each test reads what the run received from the
 * database: the row's outcome, and the run's result, in which the fixture
 * model repeats the tool result it was sent.
 */

import { test } from '@japa/runner'
import { dbName } from '../helpers/database.ts'
import { eventually } from '../helpers/browser.ts'
import {
  ADA,
  cardOf,
  countReplies,
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
import type { QuestionOutcome, QuestionSet } from '../../src/questions/types.ts'

/** The page's global object, as far as the live test marks it (no DOM types here) */
type Marked = { inboxMarker?: string }

/** CONFIGURE_QUESTIONS' defaults (fixtures/app/config/agents.ts) */
const DEFAULTS = {
  tier: ['m'],
  region: ['eu'],
  team: ['platform'],
  code: ['OPS-001'],
  ratio: ['0.1'],
  batches: ['3'],
  notify: ['false'],
  day: ['2030-01-15'],
  at: ['2030-01-14T18:00'],
  contact: ['ops@example.com'],
  runbook: ['https://example.com/runbook'],
}

for (const framework of browserFrameworks()) {
  test.group(`Question cards | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('every input type: changed values, kept defaults and a cleared field reach the run', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'configurator', 'Provision staging')
      const asked = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      await card.getByRole('heading', { name: 'The agent asks 11 questions' }).waitFor()
      assert.equal(await card.getAttribute('data-kind'), 'ask')

      // Every control is there, showing its default
      const tier = card.getByRole('radiogroup', { name: 'Which instance size?' })
      assert.isTrue(await tier.getByRole('radio', { name: 'Medium' }).isChecked())
      assert.isTrue(await card.getByRole('checkbox', { name: 'Europe' }).isChecked())
      assert.isFalse(await card.getByRole('checkbox', { name: 'United States' }).isChecked())
      assert.isTrue(await card.getByRole('radio', { name: 'Platform' }).isChecked())
      const code = card.getByLabel('Cost centre code?')
      assert.equal(await code.inputValue(), 'OPS-001')
      assert.equal(await code.getAttribute('pattern'), '^[A-Z]{3}-[0-9]{3}$')
      const ratio = card.getByLabel('Canary share?')
      assert.equal(await ratio.getAttribute('type'), 'number')
      assert.equal(await ratio.inputValue(), '0.1')
      const batches = card.getByLabel('How many batches?')
      assert.equal(await batches.getAttribute('step'), '1')
      assert.equal(await batches.inputValue(), '3')
      const notify = card.getByRole('radiogroup', { name: 'Notify customers?' })
      assert.isTrue(await notify.getByRole('radio', { name: 'No' }).isChecked())
      const day = card.getByLabel('Go-live day?')
      assert.equal(await day.getAttribute('type'), 'date')
      assert.equal(await day.inputValue(), '2030-01-15')
      const at = card.getByLabel('Freeze starts at?')
      assert.equal(await at.getAttribute('type'), 'datetime-local')
      assert.equal(await at.inputValue(), '2030-01-14T18:00')
      const contact = card.getByLabel('Contact e-mail?')
      assert.equal(await contact.getAttribute('type'), 'email')
      assert.equal(await contact.inputValue(), 'ops@example.com')
      const runbook = card.getByLabel('Runbook URL?')
      assert.equal(await runbook.getAttribute('type'), 'url')
      assert.equal(await runbook.inputValue(), 'https://example.com/runbook')

      // Change some; keep ratio, at and runbook; clear contact
      await tier.getByRole('radio', { name: 'Large' }).check()
      await card.getByRole('checkbox', { name: 'United States' }).check()
      await card.getByRole('textbox', { name: 'Other answer' }).fill('Data science')
      assert.isTrue(await card.getByRole('radio', { name: 'Other' }).isChecked())
      await batches.fill('5')
      await notify.getByRole('radio', { name: 'Yes' }).check()
      await day.fill('2030-02-01')
      await contact.fill('')

      // A code off the pattern is refused beside its question; nothing is settled
      await code.fill('ops-1')
      await card.getByRole('button', { name: 'Confirm' }).click()
      await card.locator('[data-question-id="code"] .ai-field-error').waitFor()
      const codeError = await descriptionOf(page, code)
      assert.include(await codeError.innerText(), 'Must match the pattern ^[A-Z]{3}-[0-9]{3}$')
      assert.equal(await code.getAttribute('aria-invalid'), 'true')
      assert.equal(await card.getAttribute('data-status'), 'pending')
      await asked.refresh()
      assert.equal(asked.status, 'pending')
      assert.isNull(asked.reply)

      // The person's other changes survived the refusal
      assert.isTrue(await tier.getByRole('radio', { name: 'Large' }).isChecked())
      assert.equal(await batches.inputValue(), '5')

      await code.fill('XYZ-042')
      await card.getByRole('button', { name: 'Confirm' }).click()
      await settledCard(page, asked.id, ADA)

      const settled = await settledRow(asked.id)
      assert.equal(settled.status, 'answered')
      assert.equal(settled.answeredBy, String(ADA))
      assert.equal(settled.answeredVia, 'web')
      const outcome = settled.outcome as QuestionOutcome
      assert.isFalse(outcome.skipped)
      assert.deepEqual(outcome.answers, {
        tier: ['l'],
        region: ['eu', 'us'],
        team: ['Data science'],
        code: ['XYZ-042'],
        ratio: DEFAULTS.ratio,
        batches: ['5'],
        notify: ['true'],
        day: ['2030-02-01'],
        at: DEFAULTS.at,
        contact: DEFAULTS.contact,
        runbook: DEFAULTS.runbook,
      })
      // Confirm sends what the card shows: kept defaults were confirmed by the
      // person; the cleared field sent nothing and took its default
      assert.deepEqual(outcome.defaulted, ['contact'])
      const sources = Object.fromEntries(outcome.questions.map((item) => [item.id, item.source]))
      for (const id of ['ratio', 'at', 'runbook', 'tier', 'code']) {
        assert.equal(sources[id], 'answered', id)
      }
      assert.equal(sources.contact, 'defaulted')
      assert.equal(outcome.questions.find((item) => item.id === 'team')?.freeText, 'Data science')
      assert.deepEqual((settled.reply as { answers: Record<string, string[]> }).answers.contact, [])

      const { received } = await finishedRun(run.id)
      assert.include(received, 'ask: The person answered your questions.')
      assert.include(received, '1. [Size] Which instance size?\n   Answer: Large')
      assert.include(received, 'Which regions?\n   Answer: Europe, United States')
      assert.include(received, 'Which team owns it?\n   Answer, in their own words:')
      assert.include(received, '```untrusted\nData science\n```')
      assert.include(received, 'How many batches?\n   Answer: "5"')
      assert.include(received, 'Canary share?\n   Answer: "0.1"')
      assert.include(
        received,
        'Contact e-mail?\n   Answer: "ops@example.com" (your default: the person gave no valid answer)'
      )
      assert.notInclude(received, 'Medium')
    })

    test('a nested pattern stored before the rules is not handed to <input pattern>; the server checks it', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'configurator', 'Provision staging')
      const asked = await pendingRow(run.id)
      // As a row written before patterns were checked could hold it
      const request = structuredClone(asked.request) as QuestionSet
      const question = request.questions.find((item) => item.id === 'code')!
      question.input = { type: 'text', pattern: '^(a+)+$' }
      question.defaults = []
      asked.request = request
      await asked.save()

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      const code = card.getByLabel('Cost centre code?')
      assert.isNull(await code.getAttribute('pattern'))

      // The value that takes a backtracking engine minutes is refused at once
      await code.fill('a'.repeat(40) + '!')
      await card.getByRole('button', { name: 'Confirm' }).click()
      await card.locator('[data-question-id="code"] .ai-field-error').waitFor()
      const codeError = await descriptionOf(page, code)
      assert.include(await codeError.innerText(), 'Must match the pattern ^(a+)+$')
      await asked.refresh()
      assert.equal(asked.status, 'pending')
    })

    test('Skip proceeds on every default, marked skipped; the run is told they are assumptions', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'planner', 'Scaffold the search service')
      const asked = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      // A change the skip must ignore
      await card.getByRole('radio', { name: 'SQLite' }).check()
      await card.getByRole('button', { name: 'Skip' }).click()
      await settledCard(page, asked.id, ADA)

      const settled = await settledRow(asked.id)
      assert.equal(settled.status, 'answered')
      assert.equal(settled.answeredBy, String(ADA))
      assert.equal(settled.answeredVia, 'web')
      assert.deepEqual(settled.reply, { answers: {}, skip: true })
      const outcome = settled.outcome as QuestionOutcome
      assert.isTrue(outcome.skipped)
      assert.deepEqual(outcome.answers, { db: ['pg'], replicas: ['2'] })
      assert.sameMembers(outcome.defaulted, ['db', 'replicas'])

      const { received } = await finishedRun(run.id)
      assert.include(
        received,
        'ask: The person skipped these questions, so each answer below is your own default, not their choice. Treat them as assumptions and state them in your final answer.'
      )
      assert.include(
        received,
        'Which database should it use?\n   Answer: PostgreSQL (your default)'
      )
      assert.include(received, 'How many replicas?\n   Answer: "2" (your default)')
      assert.notInclude(received, 'SQLite')
    })

    test('keyboard: hotkeys pick options on a focused card; Enter in a text field sends nothing', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())
      const run = await startRun(page, 'configurator', 'Provision production')
      const asked = await pendingRow(run.id)

      await reloadInbox(page)
      const card = cardOf(page, asked.id)
      const tier = card.getByRole('radiogroup', { name: 'Which instance size?' })
      await tier.waitFor()
      const replies = countReplies(page)

      // Focus on the card itself: a hotkey picks the first option carrying it
      await card.focus()
      await page.keyboard.press('l')
      const large = tier.getByRole('radio', { name: 'Large' })
      await eventually('l to pick Large', () => large.isChecked())
      assert.isFalse(await tier.getByRole('radio', { name: 'Medium' }).isChecked())
      await page.keyboard.press('u')
      const us = card.getByRole('checkbox', { name: 'United States' })
      await eventually('u to tick United States', () => us.isChecked())
      assert.isTrue(await card.getByRole('checkbox', { name: 'Europe' }).isChecked())
      assert.equal(await us.getAttribute('aria-keyshortcuts'), 'u')

      // In a text field the letters are text (L, M and S are hotkeys too), and Enter sends nothing
      const code = card.getByLabel('Cost centre code?')
      await code.focus()
      await page.keyboard.press('Control+A')
      await page.keyboard.type('LMS-007')
      await page.keyboard.press('Enter')
      assert.equal(await code.inputValue(), 'LMS-007')
      assert.isTrue(await large.isChecked())
      assert.equal(await card.getAttribute('data-status'), 'pending')

      // Enter on the Confirm button is what sends
      await card.getByRole('button', { name: 'Confirm' }).focus()
      await page.keyboard.press('Enter')
      await settledCard(page, asked.id, ADA)
      // The one reply is Confirm's: the Enter in the text field posted nothing
      assert.equal(replies(), 1)

      const settled = await settledRow(asked.id)
      const outcome = settled.outcome as QuestionOutcome
      assert.deepEqual(outcome.answers.tier, ['l'])
      assert.deepEqual(outcome.answers.region, ['eu', 'us'])
      assert.deepEqual(outcome.answers.code, ['LMS-007'])
      assert.equal(settled.answeredVia, 'web')

      const { received } = await finishedRun(run.id)
      assert.include(received, 'Which instance size?\n   Answer: Large')
      assert.include(received, 'Which regions?\n   Answer: Europe, United States')
      assert.include(received, 'LMS-007')
    })

    test('a new row appears on the open page without a reload', async ({ assert, cleanup }) => {
      const { session, page } = await openInbox(suite, ADA)
      cleanup(() => session.close())

      // The page keeps itself fresh (polling, or Transmit where installed)
      // The page starts 'off' and turns live once its effect runs: wait for that, do not race it
      const live = await page
        .locator('.agent-inbox[data-live="polling"], .agent-inbox[data-live="transmit"]')
        .getAttribute('data-live')
      assert.oneOf(live, ['polling', 'transmit'])

      // Marks this document: a full reload would lose the marker and fire `load` again
      const marker = `marker-${Date.now()}`
      await page.evaluate((value) => ((globalThis as Marked).inboxMarker = value), marker)
      let loads = 0
      page.on('load', () => (loads += 1))
      const before = page.url()

      // A run started outside the page (its own request, same person)
      const run = await startRun(page, 'planner', 'Scaffold the audit service')
      const asked = await pendingRow(run.id)

      const card = cardOf(page, asked.id)
      await card.waitFor({ timeout: 20_000 })
      assert.equal(await card.getAttribute('data-status'), 'pending')
      assert.equal(
        await page.locator(`[data-run-id="${run.id}"]`).locator('.ai-agent').innerText(),
        'planner'
      )
      assert.equal(await page.evaluate(() => (globalThis as Marked).inboxMarker), marker)
      assert.equal(loads, 0)
      assert.equal(page.url(), before)

      // Settled from the card that arrived live: the run receives the change
      await card.getByRole('radio', { name: 'MySQL' }).check()
      await card.getByRole('button', { name: 'Confirm' }).click()
      await settledCard(page, asked.id, ADA)
      const settled = await settledRow(asked.id)
      assert.deepEqual((settled.outcome as QuestionOutcome).answers.db, ['mysql'])
      const { received } = await finishedRun(run.id)
      assert.include(received, 'Which database should it use?\n   Answer: MySQL')

      // Still the same document
      assert.equal(await page.evaluate(() => (globalThis as Marked).inboxMarker), marker)
      assert.equal(loads, 0)
    })
  })
}
