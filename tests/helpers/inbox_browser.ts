/*
 * The browser suite's shared set-up and vocabulary: the fixture servers and
 * the Chromium its groups share (fresh browser contexts per test), a Lucid
 * reader per group, and the bounded waits the tests use to read what a run
 * received from the database the fixture apps write to.
 */

import type { Group } from '@japa/runner/core'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { AgentRun, FINISHED_RUN_STATUSES } from '../../src/persistence/models/agent_run.ts'
import { cancelRun } from '../../src/runtime/run_actions.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { USERS } from '../../fixtures/app/database/seeders/users_seeder.ts'
import { FRAMEWORKS, type InboxFramework } from '../../fixtures/app/config/inbox_client.ts'
import { createTestApp } from './database.ts'
import { migrateFixture, startFixtureApp, type FixtureApp } from './fixture_app.ts'
import { suiteShared } from './suite_shared.ts'
import { eventually, launchBrowser, newSession, postJson, signIn } from './browser.ts'

/** The fixture's people (fixtures/app/database/seeders/users_seeder.ts) */
export const ADA = 1
export const GRACE = 2
/** The admin: the fixture's authorize hook lets her settle anyone's rows */
export const MARGARET = 3

export type BrowserSuite = { fixture: FixtureApp; browser: Browser; framework: InboxFramework }

/**
 * The pages the browser suite runs its scenarios against: both (React and
 * Vue), or those BROWSER_FRAMEWORKS lists (`react`, `vue`, comma separated).
 */
export function browserFrameworks(): InboxFramework[] {
  const wanted = process.env.BROWSER_FRAMEWORKS?.split(',').map((name) => name.trim())
  return FRAMEWORKS.filter((framework) => !wanted || wanted.includes(framework))
}

/**
 * Gives the group the fixture app serving `framework`'s pages with `env`
 * added to its environment, Chromium, and a Lucid reader on the app's
 * database. The returned object is filled in by the group's setup, so read
 * it inside tests only.
 *
 * Chromium and each (framework, env)'s app are started by the first group
 * that needs them and shared by the suite's later groups (stopped at the
 * suite's end: ./suite_shared.ts): starting them for each group was a
 * third of the suite's time. So the database holds the earlier groups'
 * runs and rows: a test finds its own by their ids, never by counting
 * what is there, and leaves no run waiting (below). A test that stops or
 * restarts its app needs one of its own
 * (`startFixtureApp`). The reader is the group's own: a group between
 * (tests/browser/mail_links.spec.ts) boots an app of its own, which the
 * models then use.
 *
 * @example
 * test.group('Approval cards', (group) => {
 *   const suite = useBrowserSuite(group, 'vue')
 *   test('…', async () => {
 *     const { page } = await openInbox(suite, ADA)
 *   })
 * })
 */
export function useBrowserSuite(
  group: Group,
  framework: InboxFramework,
  env: NodeJS.ProcessEnv = {}
): BrowserSuite {
  const suite = { framework } as BrowserSuite
  group.setup(async () => {
    suite.browser = await sharedBrowser()
    suite.fixture = await suiteShared(
      `fixture app: ${framework} ${JSON.stringify(env)}`,
      async () => {
        // Once for all the apps: migrating again would drop the tables under those serving
        await suiteShared('fixture database', migrateFixture, async () => {})
        return startFixtureApp({ framework, env, migrate: false })
      },
      (fixture) => fixture.stop()
    )
    // Lucid in this process, on the fixture's database, to read what the runs received
    const reader = await createTestApp({ migrate: false })
    return () => reader.terminate()
  })
  /*
   * Each test ends the sessions it opened (live pages would go on asking
   * the apps) and cancels the runs it left unfinished: the inbox lists
   * pending rows oldest first, 50 a page, so rows the earlier groups left
   * waiting would soon push a later test's rows off the page.
   */
  group.each.setup(async () => {
    const before = new Set(await unfinishedRuns())
    return async () => {
      for (const session of suite.browser.contexts()) await session.close()
      for (const id of await unfinishedRuns()) {
        if (!before.has(id)) await cancelRun(id)
      }
    }
  })
  return suite
}

async function unfinishedRuns(): Promise<string[]> {
  const runs = await AgentRun.query().whereNotIn('status', FINISHED_RUN_STATUSES).select('id')
  return runs.map((run) => run.id)
}

/**
 * The browser suite's Chromium, started by the first group that asks and
 * shared by the others (./suite_shared.ts). A test closes the sessions it
 * opens in it.
 */
export function sharedBrowser(): Promise<Browser> {
  return suiteShared('chromium', launchBrowser, (browser) => browser.close())
}

/**
 * A fresh browser session signed in as `userId`, on the inbox page. Close
 * `session` when done (a test's `cleanup`).
 */
export async function openInbox(
  suite: BrowserSuite,
  userId: number,
  options: { locale?: string } = {}
): Promise<{ session: BrowserContext; page: Page }> {
  const session = await newSession(suite.browser, suite.fixture.baseUrl, options)
  const page = await session.newPage()
  await signIn(page, userId)
  return { session, page }
}

/**
 * Starts a run of a fixture agent owned by the page's signed-in user, over
 * HTTP with the page's session (and its CSRF token).
 */
export async function startRun(page: Page, agent: string, input: string): Promise<{ id: string }> {
  const { run } = await postJson(page, '/runs', { agent, input })
  return run
}

/**
 * The run's pending row, once the run has reached its wait.
 */
export function pendingRow(runId: string): Promise<ToolCall> {
  return eventually(`a pending row of run ${runId}`, async () => {
    const row = await ToolCall.query().where('run_id', runId).where('status', 'pending').first()
    return row ?? undefined
  })
}

/**
 * The row once it is no longer pending.
 */
export function settledRow(rowId: string): Promise<ToolCall> {
  return eventually(`row ${rowId} to be settled`, async () => {
    const row = await ToolCall.findOrFail(rowId)
    return row.status === 'pending' ? undefined : row
  })
}

/**
 * The run once finished, with its result text: the fixture model's last
 * turn repeats every tool result it was sent, so this is what the run received.
 */
export async function finishedRun(runId: string): Promise<{ run: AgentRun; received: string }> {
  const run = await eventually(`run ${runId} to finish`, async () => {
    const found = await AgentRun.findOrFail(runId)
    return ['completed', 'failed', 'cancelled'].includes(found.status) ? found : undefined
  })
  if (run.status !== 'completed') {
    throw new Error(`Run ${runId} ended ${run.status}: ${run.error ?? 'no error recorded'}`)
  }
  return { run, received: (run.result as { text: string }).text }
}

/**
 * Reloads the inbox page and waits until it is live on Transmit (the
 * fixture's default). Right after a load the page connects and subscribes,
 * and a reply sent in that moment can lose its flashed word to those
 * requests of the same session (the page then asks the row, but a test of
 * the word itself would not see it).
 */
export async function reloadInbox(page: Page) {
  await page.reload()
  await page.locator('.agent-inbox[data-live="transmit"]').waitFor()
}

/**
 * A row's card on the page, whatever its state.
 */
export function cardOf(page: Page, rowId: string): Locator {
  return page.locator(`[data-row-id="${rowId}"]`)
}

/**
 * A fixture user's name, as the pages show people (the fixture's
 * `displayName` hook).
 */
export function nameOf(userId: number): string {
  const user = USERS.find((item) => item.id === userId)
  if (!user) throw new Error(`No fixture user ${userId}`)
  return user.fullName
}

/**
 * Waits until the row's card says who settled it and returns the card: a
 * fixture user (a number) by their name, anyone else as `by` says.
 */
export async function settledCard(
  page: Page,
  rowId: string,
  by: number | string
): Promise<Locator> {
  const card = page.locator(`[data-row-id="${rowId}"][data-status="settled"]`)
  await card.getByText(`Settled by ${typeof by === 'number' ? nameOf(by) : by}`).waitFor()
  return card
}

/**
 * Counts the replies the page posts from now on, to prove what did not
 * send one (a key press) once something that did (a click) has come back.
 */
export function countReplies(page: Page): () => number {
  let count = 0
  page.on('request', (request) => {
    if (request.method() === 'POST' && /\/inbox\/rows\/[^/]+\/reply$/.test(request.url())) {
      count += 1
    }
  })
  return () => count
}

/**
 * The element an input's `aria-describedby` points at: where the page
 * shows the input's errors.
 */
export async function descriptionOf(page: Page, input: Locator): Promise<Locator> {
  const ids = await input.getAttribute('aria-describedby')
  if (!ids) throw new Error('The input has no aria-describedby')
  return page.locator(
    ids
      .split(' ')
      .map((id) => `[id="${id}"]`)
      .join(', ')
  )
}
