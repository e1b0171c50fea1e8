/*
 * The chat page in Chromium (React and Vue) against the fixture app and its
 * streaming `chatter` agent (fixtures/app/config/chatter.ts): a message
 * starts a turn whose text streams in; a question shows inline with the
 * inbox's card and its default, and confirming it continues the turn; an
 * approval approved from the inbox in a second tab shows settled in the
 * chat, which continues; the chat's card and the inbox's racing on one row
 * give one winner, and the loser is told who won, as do two tabs of one
 * chat (the second opened while the turn waits); a failed turn says so
 * and the next message starts the next turn; a reload mid-stream
 * reconnects to the live turn; a follow-up is answered with the earlier
 * transcript. Each test checks what the database holds too.
 */

import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { eventually } from '../helpers/browser.ts'
import {
  ADA,
  browserFrameworks,
  cardOf,
  openInbox,
  pendingRow,
  settledCard,
  settledRow,
  useBrowserSuite,
  type BrowserSuite,
} from '../helpers/inbox_browser.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'

/** Opens a new chat with the chatter, signed in as Ada */
async function openChat(suite: BrowserSuite) {
  const { session, page } = await openInbox(suite, ADA)
  const chatId = randomUUID()
  await page.goto(`/chat/${chatId}?agent=chatter`)
  await page.locator('.ai-chat[data-live="transmit"]').waitFor()
  return { session, page, chatId }
}

/** Sends a message from the chat's input box */
async function say(page: Page, text: string) {
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

/** Resolves once the input box takes a message again */
function inputOpen(page: Page) {
  return eventually('the input box open again', async () =>
    (await page.getByLabel('Message').isDisabled()) ? undefined : true
  )
}

/** The agent's replies on the page, in order */
function replies(page: Page) {
  return page.locator('[data-role="assistant"] .ai-chat-text')
}

/** The runs of a chat, by turn */
function turnsOf(chatId: string) {
  return AgentRun.query().where('conversation_id', chatId).orderBy('conversation_turn', 'asc')
}

/** The chat's first turn, once started */
function firstTurn(chatId: string) {
  return eventually('the first turn', async () => {
    const runs = await turnsOf(chatId)
    return runs[0]
  })
}

/** The chat's turn `turn` once it has finished */
function finishedTurn(chatId: string, turn: number) {
  return eventually(`turn ${turn} of chat ${chatId} to finish`, async () => {
    const runs = await turnsOf(chatId)
    const run = runs[turn - 1]
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined
  })
}

for (const framework of browserFrameworks()) {
  test.group(`Chat page | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('a message streams its reply; a follow-up is answered with the earlier transcript', async ({
      assert,
      cleanup,
    }) => {
      const { session, page, chatId } = await openChat(suite)
      cleanup(() => session.close())
      // Counted as the reply grows: more than one length on its way means it streamed
      await page.evaluate(() => {
        const browser = globalThis as any
        const seen = new Set<number>()
        browser.__lengths = seen
        new browser.MutationObserver(() => {
          const text = browser.document.querySelector('[data-role="assistant"] .ai-chat-text')
          if (text) seen.add(text.textContent?.length ?? 0)
        }).observe(browser.document.body, { subtree: true, childList: true, characterData: true })
      })
      await say(page, 'Hello there')
      await replies(page).first().getByText('You said: Hello there. Messages so far: 1.').waitFor()
      const lengths = await page.evaluate(() => [...(globalThis as any).__lengths] as number[])
      assert.isAbove(lengths.length, 2, `the reply grew in pieces: ${lengths.join(', ')}`)
      const first = await finishedTurn(chatId, 1)
      assert.equal(first.status, 'completed')

      await say(page, 'And again')
      await replies(page)
        .nth(1)
        .getByText('You said: Hello there | And again. Messages so far: 2.')
        .waitFor()
      const second = await finishedTurn(chatId, 2)
      assert.equal(second.input, 'And again')
      // A reload shows the conversation as the server holds it
      await page.reload()
      assert.equal(await page.locator('[data-role="user"]').count(), 2)
      assert.equal(await replies(page).count(), 2)
    })

    test('a question inline with its default; confirming it continues the turn', async ({
      assert,
      cleanup,
    }) => {
      const { session, page, chatId } = await openChat(suite)
      cleanup(() => session.close())
      await say(page, 'ask me')
      const turn = await firstTurn(chatId)
      const row = await pendingRow(turn.id)
      const card = cardOf(page, row.id)
      await card.getByText('Which environment?').waitFor()
      assert.isTrue(await card.getByLabel('Staging').isChecked())
      // The input box waits for the answer
      assert.isTrue(await page.getByLabel('Message').isDisabled())
      await card.getByRole('button', { name: 'Confirm' }).click()
      await settledCard(page, row.id, ADA)
      await replies(page).getByText('Answer: Staging').waitFor()
      const settled = await settledRow(row.id)
      assert.deepEqual((settled.outcome as any).answers, { environment: ['staging'] })
      const finished = await finishedTurn(chatId, 1)
      assert.equal(finished.status, 'completed')
      // Open again once the page has the finished turn
      await inputOpen(page)
    })

    test('an approval approved from the inbox in another tab shows settled in the chat, which goes on', async ({
      assert,
      cleanup,
    }) => {
      const { session, page, chatId } = await openChat(suite)
      cleanup(() => session.close())
      await say(page, 'deploy main')
      const turn = await firstTurn(chatId)
      const row = await pendingRow(turn.id)
      await cardOf(page, row.id).getByRole('button', { name: 'Approve', exact: true }).waitFor()

      const inbox = await session.newPage()
      await inbox.goto('/inbox')
      await cardOf(inbox, row.id).getByRole('button', { name: 'Approve', exact: true }).click()
      await settledCard(inbox, row.id, ADA)

      // The chat hears of it, shows who settled it, and streams the rest of the turn
      const settled = await settledCard(page, row.id, ADA)
      assert.include(await settled.innerText(), 'via web')
      await replies(page).getByText('Thanks, going on.').waitFor()
      const finished = await finishedTurn(chatId, 1)
      assert.equal(finished.status, 'completed')
      const decided = await settledRow(row.id)
      assert.equal(decided.status, 'approved')
    })

    test('the chat and the inbox racing on one row: one winner, and the loser is told who won', async ({
      assert,
      cleanup,
    }) => {
      const { session, page, chatId } = await openChat(suite)
      cleanup(() => session.close())
      await say(page, 'deploy main')
      const turn = await firstTurn(chatId)
      const row = await pendingRow(turn.id)
      const chatCard = cardOf(page, row.id)
      // The chat starts a rejection (its open box holds its updates) while the inbox approves
      await chatCard.getByRole('button', { name: 'Reject', exact: true }).click()
      await chatCard.getByLabel('Why not?').fill('Not today')
      const inbox = await session.newPage()
      await inbox.goto('/inbox')
      await cardOf(inbox, row.id).getByRole('button', { name: 'Approve', exact: true }).click()
      await settledCard(inbox, row.id, ADA)

      await chatCard.getByRole('button', { name: 'Send rejection' }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('Already settled.').waitFor()
      assert.include(await alert.innerText(), 'Settled by you, in another tab, at ')
      const decided = await settledRow(row.id)
      assert.equal(decided.status, 'approved')
      await replies(page).getByText('Thanks, going on.').waitFor()
      const finished = await finishedTurn(chatId, 1)
      assert.equal(finished.status, 'completed')
    })

    test('two tabs of one chat racing on one row: one winner, and the loser is told who won', async ({
      assert,
      cleanup,
    }) => {
      const { session, page, chatId } = await openChat(suite)
      cleanup(() => session.close())
      await say(page, 'deploy main')
      const turn = await firstTurn(chatId)
      const row = await pendingRow(turn.id)
      const first = cardOf(page, row.id)
      await first.getByRole('button', { name: 'Reject', exact: true }).click()
      await first.getByLabel('Why not?').fill('Not today')
      // The same chat in a second tab, opened while the turn waits: the card is there too
      const other = await session.newPage()
      await other.goto(`/chat/${chatId}`)
      await other.locator('.ai-chat[data-live="transmit"]').waitFor()
      assert.isTrue(await other.getByLabel('Message').isDisabled())
      await cardOf(other, row.id).getByRole('button', { name: 'Approve', exact: true }).click()
      await settledCard(other, row.id, ADA)

      await first.getByRole('button', { name: 'Send rejection' }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('Already settled.').waitFor()
      assert.include(await alert.innerText(), 'Settled by you, in another tab, at ')
      const decided = await settledRow(row.id)
      assert.equal(decided.status, 'approved')
      // Both tabs see the turn go on
      await replies(page).getByText('Thanks, going on.').waitFor()
      await replies(other).getByText('Thanks, going on.').waitFor()
      const finished = await finishedTurn(chatId, 1)
      assert.equal(finished.status, 'completed')
    })

    test('a turn that fails says so, and the input box opens again', async ({
      assert,
      cleanup,
    }) => {
      const { session, page, chatId } = await openChat(suite)
      cleanup(() => session.close())
      await say(page, 'fail')
      await page.locator('[data-chat-error]').getByText('The agent failed').waitFor()
      const finished = await finishedTurn(chatId, 1)
      assert.equal(finished.status, 'failed')
      await eventually('the input box open again', async () =>
        (await page.getByLabel('Message').isDisabled()) ? undefined : true
      )
      // The next message starts the next turn
      await say(page, 'after')
      await replies(page).getByText('You said: fail | after. Messages so far: 2.').waitFor()
      const next = await finishedTurn(chatId, 2)
      assert.equal(next.status, 'completed')
    })

    test('a reload mid-stream reconnects to the live turn', async ({ assert, cleanup }) => {
      const { session, page, chatId } = await openChat(suite)
      cleanup(() => session.close())
      const gate = fileURLToPath(new URL(`../../tmp/chat-gate-${randomUUID()}`, import.meta.url))
      await say(page, `hold ${gate}`)
      // Some pieces arrived, then the model holds
      await replies(page).getByText('Streaming slowly').waitFor()
      const turn = await firstTurn(chatId)
      assert.equal(turn.status, 'running')

      await page.reload()
      await page.locator('.ai-chat[data-live="transmit"]').waitFor()
      assert.isTrue(await page.getByLabel('Message').isDisabled())
      writeFileSync(gate, '')
      await replies(page).getByText('until the gate opens, then the rest.').waitFor()
      const finished = await finishedTurn(chatId, 1)
      assert.equal(finished.status, 'completed')
      await inputOpen(page)
    })
  })
}
