/*
 * The operator's console in a real browser against the fixture app, on
 * both pages (React, Vue): its uPlot charts drawn from seeded rows (a
 * canvas each, of real size), their hidden tables counting what was
 * seeded (on top of what the suite's earlier groups left); axe finds no serious or critical violation; Retry
 * completes a failed run, Cancel (once confirmed) cancels a waiting one,
 * and Reassign moves an overdue row to the person picked, who then finds
 * it in their inbox and settles it; a person the console's ability does
 * not allow gets 403. Also writes the screenshot docs/console.png shows
 * (artifacts/<framework>-console.png; with DOCS_SCREENSHOTS=1 the React
 * one to docs/console.png).
 */

import { copyFile } from 'node:fs/promises'
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import type { Page } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { screenshot, seriousViolations } from '../helpers/browser.ts'
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
import { DEPLOY_QUESTIONS } from '../helpers/rows.ts'
import type { InboxFramework } from '../../fixtures/app/config/inbox_client.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Notification } from '../../src/persistence/models/notification.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const TOOLS = {
  planner: { tool: 'ask', kind: 'ask' },
  deployer: { tool: 'deploy', kind: 'action' },
  refunder: { tool: 'refund', kind: 'action' },
} as const

const DEPLOY_ACTION = { args: { branch: 'main' }, summary: 'Deploy main' }

type Decision = { agent: keyof typeof TOOLS; by: string; opened: DateTime; settled: DateTime }

/** p-th percentile by nearest rank, as the console reads it */
function nearestRank(sorted: number[], p: number) {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]
}

/**
 * A fortnight of `approvers` deciding (24 rows over 10 days, by three
 * agents), five pending rows from 10 minutes to 9 days old (two of them
 * overdue), a failed run and a failing notice. Returns the decisions and
 * the noticed row.
 */
async function seedActivity(now: DateTime, approvers: string[]) {
  const decisions: Decision[] = []
  let noticed = ''
  for (const [index, agent] of Object.keys(TOOLS).entries()) {
    const run = await AgentRun.create({
      agent,
      ownerId: String(ADA),
      status: 'completed',
      input: 'Seeded',
      createdAt: now.minus({ days: 12 }),
    })
    for (let step = 0; step < 8; step++) {
      const i = index * 8 + step
      const settled = now.minus({ milliseconds: (i % 10) * DAY + (i % 3) * HOUR })
      const opened = settled.minus({ milliseconds: (((i * 7) % 11) + 1) * 3 * MINUTE })
      const by = approvers[(i * 5) % 3]
      const { tool, kind } = TOOLS[agent as keyof typeof TOOLS]
      await ToolCall.create({
        runId: run.id,
        sequence: step + 1,
        toolName: tool,
        kind,
        status: kind === 'ask' ? 'answered' : 'approved',
        ownerId: String(ADA),
        // As the agents ask: the history (tests/browser/kit_layout.spec.ts) shows these rows too
        request: kind === 'ask' ? DEPLOY_QUESTIONS : DEPLOY_ACTION,
        answeredBy: by,
        answeredVia: 'web',
        settledAt: settled,
        createdAt: opened,
      })
      decisions.push({ agent: agent as Decision['agent'], by, opened, settled })
    }
  }
  const waiting = await AgentRun.create({
    agent: 'deployer',
    ownerId: String(ADA),
    status: 'waiting',
    input: 'Seeded',
  })
  const ages = [10 * MINUTE, 30 * MINUTE, 3 * HOUR, 2 * DAY, 9 * DAY]
  for (const [index, age] of ages.entries()) {
    const ask = index % 2 === 0
    const row = await ToolCall.create({
      runId: waiting.id,
      sequence: index + 1,
      toolName: ask ? 'ask' : 'deploy',
      kind: ask ? 'ask' : 'action',
      status: 'pending',
      ownerId: String(ADA),
      request: ask ? DEPLOY_QUESTIONS : DEPLOY_ACTION,
      createdAt: now.minus({ milliseconds: age }),
    })
    if (index === 3) {
      noticed = row.id
      await Notification.create({
        personId: String(ADA),
        rowId: row.id,
        reason: 'created',
        dueAt: now.plus({ minutes: 5 }),
        attempts: 2,
        lastError: '550 mailbox unavailable',
        createdAt: now.minus({ minutes: 20 }),
      })
    }
  }
  await AgentRun.create({
    agent: 'deployer',
    ownerId: String(GRACE),
    status: 'failed',
    input: 'Seeded',
    error: 'The model provider answered 503 three times',
  })
  return { decisions, noticed }
}

/** Approvers of the seeded decisions, the console test's own people (one set per framework's group) */
const APPROVERS: Record<InboxFramework, string[]> = {
  react: ['Katherine Johnson', 'Dorothy Vaughan', 'Mary Jackson'],
  vue: ['Annie Easley', 'Christine Darden', 'Evelyn Boyd Granville'],
}

/**
 * Adds people to the fixture's users table (the console names approvers
 * through its displayName hook, as it names the seeded ones); their ids.
 * The ids are given, after the highest: the fixture's seeder gives its
 * people theirs, which leaves PostgreSQL's sequence behind them.
 */
async function addPeople(names: string[]): Promise<string[]> {
  const client = AgentRun.query().client
  const highest = await client.from('users').max('id as id').first()
  const ids = names.map((_, index) => Number(highest?.id ?? 0) + 1 + index)
  await client
    .insertQuery()
    .table('users')
    .multiInsert(
      names.map((fullName, index) => ({
        id: ids[index],
        full_name: fullName,
        email: `approver-${ids[index]}@example.com`,
        is_admin: false,
        created_at: DateTime.now().toFormat('yyyy-LL-dd HH:mm:ss'),
      }))
    )
  return ids.map(String)
}

/**
 * What `after` adds to `before`, row by row (the first cell names the row,
 * the others are counts): the console counts every row of the database,
 * which holds the suite's earlier groups' rows too.
 */
function added(before: string[][], after: string[][]): string[][] {
  const earlier = new Map(before.map((row) => [row[0], row]))
  return after.map(([name, ...counts]) => [
    name,
    ...counts.map((count, at) => String(Number(count) - Number(earlier.get(name)?.[at + 1] ?? 0))),
  ])
}

/** The console's tables that count, and its count of overdue rows */
async function countsOf(page: Page) {
  // Each chart has its table, with or without numbers to draw
  await page.locator('figure[data-chart] table').nth(4).waitFor({ state: 'attached' })
  const byAgent = await tableOf(page, 'decisions-agent')
  return {
    daily: await tableOf(page, 'daily'),
    byAgent: byAgent.map((row) => row.slice(0, 2)),
    pendingAge: await tableOf(page, 'pending-age'),
    overdue: Number(await page.locator('[data-count="overdue"] dd').innerText()),
  }
}

/** The cells of a chart's hidden table, without its header row */
function tableOf(page: Page, chart: string): Promise<string[][]> {
  return page
    .locator(`figure[data-chart="${chart}"] .ai-visually-hidden table`)
    .evaluate((table) => {
      type Cells = { cells: ArrayLike<{ textContent: string | null }> }
      const rows = Array.from((table as unknown as { rows: ArrayLike<Cells> }).rows)
      return rows.slice(1).map((row) => Array.from(row.cells, (cell) => cell.textContent!.trim()))
    })
}

for (const framework of browserFrameworks()) {
  test.group(`Console | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework)

    test('charts drawn from seeded rows, their tables the same numbers; axe; 403 for others', async ({
      assert,
      cleanup,
    }) => {
      const { session, page } = await openInbox(suite, MARGARET)
      cleanup(() => session.close())
      await page.goto('/inbox/console')
      const before = await countsOf(page)
      const approvers = await addPeople(APPROVERS[framework])
      const now = DateTime.now()
      const { decisions, noticed } = await seedActivity(now, approvers)
      await page.reload()

      // Five charts, each a uPlot canvas of real size
      const figures = page.locator('figure[data-chart]')
      await page.locator('figure[data-chart] canvas').nth(4).waitFor()
      const after = await countsOf(page)
      assert.equal(await figures.count(), 5)
      for (const figure of await figures.all()) {
        const box = await figure.locator('canvas').first().boundingBox()
        assert.isAbove(box!.width, 200)
        assert.isAbove(box!.height, 100)
      }

      // Per UTC day, as seeded: the last 14 days, opened (pending rows too) and settled
      const days = Array.from({ length: 14 }, (_, index) =>
        now
          .toUTC()
          .minus({ days: 13 - index })
          .toISODate()
      )
      const pendingOpened = [10 * MINUTE, 30 * MINUTE, 3 * HOUR, 2 * DAY, 9 * DAY].map((age) =>
        now.minus({ milliseconds: age })
      )
      const onDay = (times: DateTime[], day: string | null) =>
        String(times.filter((time) => time.toUTC().toISODate() === day).length)
      const opened = [...decisions.map((entry) => entry.opened), ...pendingOpened]
      const settled = decisions.map((entry) => entry.settled)
      assert.deepEqual(
        added(before.daily, after.daily),
        days.map((day) => [day, onDay(opened, day), onDay(settled, day)])
      )

      // Time to decision by approver: each one's count, p50 and p90 of what was seeded
      const byApprover = approvers.map((id) => {
        const took = decisions
          .filter((entry) => entry.by === id)
          .map((entry) => entry.settled.diff(entry.opened).as('milliseconds'))
          .sort((a, b) => a - b)
        return [
          APPROVERS[framework][approvers.indexOf(id)],
          String(took.length),
          // Every seeded decision took whole minutes, under an hour
          `${nearestRank(took, 0.5) / MINUTE} min`,
          `${nearestRank(took, 0.9) / MINUTE} min`,
        ]
      })
      const approverRows = await tableOf(page, 'decisions-approver')
      assert.sameDeepMembers(
        approverRows.filter((row) => APPROVERS[framework].includes(row[0])),
        byApprover
      )
      assert.sameDeepMembers(
        added(before.byAgent, after.byAgent).filter((row) => row[1] !== '0'),
        Object.keys(TOOLS).map((agent) => [agent, '8'])
      )
      assert.deepEqual(added(before.pendingAge, after.pendingAge), [
        ['under 1 hour', '1', '1', '0', '2'],
        ['1 to 24 hours', '0', '1', '0', '1'],
        ['1 to 7 days', '1', '0', '0', '1'],
        ['over 7 days', '0', '1', '0', '1'],
      ])
      assert.equal(after.overdue - before.overdue, 2)
      await page
        .locator('[data-list="deliveries"] .ac-item', { hasText: `row ${noticed.slice(0, 8)}` })
        .getByText('550 mailbox unavailable')
        .waitFor()

      await screenshot(page, `${framework}-console.png`).then(async (path) => {
        if (process.env.DOCS_SCREENSHOTS && framework === 'react') {
          await copyFile(path, new URL('../../docs/console.png', import.meta.url))
        }
      })

      // With a Cancel waiting for its confirmation, and every list filled
      await page
        .locator('[data-list="waiting"] .ac-item')
        .first()
        .getByRole('button', { name: 'Cancel' })
        .click()
      await page.getByRole('button', { name: 'Cancel the run' }).waitFor()
      const violations = await seriousViolations(page)
      assert.deepEqual(
        violations.map((violation) => `${violation.id}: ${violation.targets.join(', ')}`),
        []
      )

      // A person the console's ability does not allow
      const ada = await openInbox(suite, ADA)
      cleanup(() => ada.session.close())
      const refused = await ada.page.goto('/inbox/console')
      assert.equal(refused?.status(), 403)
      assert.equal(await ada.page.locator('canvas').count(), 0)
    })

    test('the console fits a phone: the page never scrolls sideways', async ({
      assert,
      cleanup,
    }) => {
      await seedActivity(DateTime.now(), [ADA, GRACE, MARGARET].map(String))
      const { session, page } = await openInbox(suite, MARGARET)
      cleanup(() => session.close())
      await page.setViewportSize({ width: 390, height: 800 })
      await page.goto('/inbox/console')
      await page.locator('figure[data-chart] canvas').nth(4).waitFor()
      const { scrollWidth, innerWidth } = await page.locator('html').evaluate((html) => ({
        scrollWidth: html.scrollWidth,
        innerWidth: html.ownerDocument.defaultView!.innerWidth,
      }))
      assert.isAtMost(scrollWidth, innerWidth, 'the page scrolls sideways')
    })

    test('Retry completes a failed run, Cancel cancels, Reassign moves an overdue row', async ({
      assert,
      cleanup,
    }) => {
      const failed = await AgentRun.create({
        agent: 'narrator',
        ownerId: String(ADA),
        status: 'failed',
        input: 'Told again',
        error: 'The model provider answered 503',
      })
      const ada = await openInbox(suite, ADA)
      cleanup(() => ada.session.close())
      const planned = await startRun(ada.page, 'planner', 'Plan something to cancel')
      const asked = await pendingRow(planned.id)
      const deploy = await startRun(ada.page, 'deployer', 'Ship it late')
      const late = await pendingRow(deploy.id)
      await late.merge({ createdAt: DateTime.now().minus({ days: 2 }) }).save()

      const { session, page } = await openInbox(suite, MARGARET)
      cleanup(() => session.close())
      await page.goto('/inbox/console')
      const status = page.getByRole('status')

      await page
        .locator(`[data-list="failed"] [data-run-id="${failed.id}"]`)
        .getByRole('button', { name: 'Retry' })
        .click()
      await status.getByText(`Retried run ${failed.id.slice(0, 8)}`).waitFor()
      const { received } = await finishedRun(failed.id)
      assert.include(received, 'Told again')
      await page.locator(`[data-list="failed"] [data-run-id="${failed.id}"]`).waitFor({
        state: 'detached',
      })

      const waiting = page.locator(`[data-list="waiting"] [data-run-id="${planned.id}"]`)
      await waiting.getByRole('button', { name: 'Cancel' }).click()
      await waiting.getByRole('button', { name: 'Keep it' }).click()
      const kept = await AgentRun.findOrFail(planned.id)
      assert.equal(kept.status, 'waiting')
      await waiting.getByRole('button', { name: 'Cancel' }).click()
      await waiting.getByRole('button', { name: 'Cancel the run' }).click()
      await status.getByText(`Cancelled run ${planned.id.slice(0, 8)}`).waitFor()
      await waiting.waitFor({ state: 'detached' })
      const [cancelled, row] = await Promise.all([
        AgentRun.findOrFail(planned.id),
        ToolCall.findOrFail(asked.id),
      ])
      assert.equal(cancelled.status, 'cancelled')
      assert.equal(row.status, 'cancelled')

      const overdue = page.locator(`[data-list="overdue"] [data-row-id="${late.id}"]`)
      await overdue.getByRole('combobox').selectOption({ label: nameOf(GRACE) })
      await overdue.getByRole('button', { name: 'Reassign' }).click()
      await status.getByText(`Reassigned row ${late.id.slice(0, 8)} to ${nameOf(GRACE)}.`).waitFor()

      // Grace, its approver now, finds it in her inbox and settles it; the run goes on
      const grace = await openInbox(suite, GRACE)
      cleanup(() => grace.session.close())
      await cardOf(grace.page, late.id)
        .getByRole('button', { name: 'Approve', exact: true })
        .click()
      await settledCard(grace.page, late.id, GRACE)
      await finishedRun(deploy.id)
    })
  })
}
