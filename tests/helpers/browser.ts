/*
 * Debian's Chromium driven by playwright-core, for the browser suite. No
 * browser is downloaded: the suite fails with the install command when
 * /usr/bin/chromium is missing (`npm test` skips these suites then, and
 * fails in CI: tests/plan/run_plan.ts). Each launch gets a
 * fresh profile (Playwright creates a temporary user-data-dir and removes
 * it on close), so no cookie or cache leaks between runs. Also: axe-core's
 * accessibility check of a page, and moving the focus with Tab alone.
 */

import { access, mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
} from 'playwright-core'
import { chromiumPath, INSTALL } from '../plan/tools.ts'

export const CHROMIUM = chromiumPath()

/**
 * Launches headless Chromium with the flags of a quiet, offline machine.
 */
export async function launchBrowser(): Promise<Browser> {
  try {
    await access(CHROMIUM)
  } catch {
    throw new Error(`No Chromium at ${CHROMIUM}. Install Debian's: ${INSTALL.chromium}`)
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-gpu',
    ],
  })
}

/**
 * A fresh browser session (its own cookies) on the fixture app; `locale`
 * is the browser's language (its Accept-Language), English by default.
 */
export async function newSession(
  browser: Browser,
  baseUrl: string,
  options: { locale?: string } = {}
): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1100, height: 900 },
    locale: options.locale,
  })
  context.setDefaultTimeout(15_000)
  return context
}

/**
 * Signs in as a fixture user (password-less fixture route) and lands on the inbox.
 */
export async function signIn(page: Page, userId: number) {
  await page.goto(`/login/${userId}`)
  await page.waitForURL('**/inbox')
}

/**
 * Sends a JSON POST from the page's session the way the app's own client
 * does, with the XSRF token Shield put in a cookie, so CSRF protection stays on.
 */
export async function postJson(page: Page, path: string, data: unknown) {
  const cookies = await page.context().cookies()
  const xsrf = cookies.find((cookie) => cookie.name === 'XSRF-TOKEN')
  if (!xsrf) throw new Error('No XSRF-TOKEN cookie: visit a page of the app first')
  const response = await page.request.post(path, {
    data,
    headers: { 'accept': 'application/json', 'x-xsrf-token': decodeURIComponent(xsrf.value) },
  })
  if (!response.ok()) {
    throw new Error(`POST ${path} answered ${response.status()}: ${await response.text()}`)
  }
  return response.json()
}

/**
 * Writes a screenshot under artifacts/ (gitignored), for a reviewer to look at.
 */
export async function screenshot(page: Page, name: string) {
  const folder = new URL('../../artifacts/', import.meta.url)
  await mkdir(folder, { recursive: true })
  const path = new URL(name, folder).pathname
  await page.screenshot({ path, fullPage: true })
  return path
}

/**
 * Polls `check` until it returns a value other than undefined/false, or
 * fails after `timeout` ms with `what` in the message. For conditions the
 * page cannot show, such as what the run received.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  { timeout = 15_000, interval = 50 } = {}
): Promise<T> {
  const deadline = Date.now() + timeout
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const value = await check()
      if (value !== undefined && value !== false) return value
    } catch (error) {
      last = error
    }
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
  throw new Error(`Timed out after ${timeout} ms waiting for ${what}`, { cause: last })
}

/** axe-core's own build, injected into the page under test */
const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url))

export type AxeViolation = { id: string; impact: string; help: string; targets: string[] }

/**
 * Runs axe-core (WCAG 2.x A and AA rules, and its best practices) on the
 * page as it is now and returns the serious and critical violations, each
 * with the elements it found them on.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE })
  const violations = await page.evaluate(async () => {
    const inPage = globalThis as unknown as { axe: typeof import('axe-core'); document: unknown }
    const result = await inPage.axe.run(inPage.document as never, { resultTypes: ['violations'] })
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }))
  })
  return violations.filter((violation) => ['serious', 'critical'].includes(violation.impact))
}

/**
 * Presses Tab until the focus is on `target`, as a person without a mouse
 * does, and fails when it does not get there within `limit` presses.
 * Returns how many presses it took.
 */
export async function tabTo(page: Page, target: Locator, limit = 80): Promise<number> {
  const handle = await target.elementHandle()
  if (!handle) throw new Error('No element to tab to')
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press('Tab')
    if (await handle.evaluate((element) => element.ownerDocument.activeElement === element)) {
      return presses
    }
  }
  throw new Error(`Tab did not reach the element within ${limit} presses`)
}
