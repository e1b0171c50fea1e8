/*
 * Rows the app changed since they were asked, on the inbox page (React and
 * Vue), in Chromium. Deploy A is a runtime in this process, on the fixture
 * app's database, whose agents differ from the fixture's: it starts runs
 * that wait. The fixture app is deploy B, frozen on `read_logs` by its
 * operator (INBOX_FREEZE). Each changed card says what changed and offers
 * only what can still happen — a removed tool: Reject; a changed schema:
 * the edit form in the new schema, prefilled with what still fits, then
 * Reject; a frozen tool: Reject, its reason shown; a removed agent: Close
 * — and each does what it offers. Screenshots of each state go to
 * artifacts/changed-rows/<framework>-<state>.png. axe and the keyboard
 * still find their way on a page of changed rows.
 */

import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Locator } from 'playwright-core'
import { dbName } from '../helpers/database.ts'
import { eventually, screenshot, seriousViolations, tabTo } from '../helpers/browser.ts'
import {
  ADA,
  browserFrameworks,
  cardOf,
  openInbox,
  reloadInbox,
  settledCard,
  settledRow,
  useBrowserSuite,
  type BrowserSuite,
} from '../helpers/inbox_browser.ts'
import { call, createAgents, rowsOf, scriptedModel } from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { Agents } from '../../src/runtime/agents.ts'

const FREEZE_REASON = 'Frozen by the operator during the release'

/** One model for deploy A's runs: its input names the tool to call and the args */
const model = scriptedModel(
  [
    ({ input }) => {
      const { tool, args } = JSON.parse(input) as { tool: string; args: unknown }
      return [call('a-1', tool, args)]
    },
  ],
  { by: 'turn' }
)

function action(name: string, input = vine.object({ target: vine.string() })) {
  return defineTool({
    name,
    description: `The ${name} action`,
    kind: 'action',
    input,
    handle: async () => `${name} ran on A`,
  })
}

/**
 * Deploy A: `deployer`'s `deploy` took a `target` the fixture's no longer
 * does, and it had a `rollback`; `inspector` read logs unfrozen; `ghost`
 * is an agent the fixture does not define.
 */
function deployA(): Agents {
  const readLogs = defineTool({
    name: 'read_logs',
    description: 'Read the logs of a service',
    kind: 'read',
    needsApproval: true,
    grants: [{ scope: 'run' }, { scope: 'person', ttl: '24h' }],
    input: vine.object({ service: vine.string() }),
    handle: async ({ service }) => `${service}: all quiet`,
  })
  const deploy = action('deploy', vine.object({ branch: vine.string(), target: vine.string() }))
  const agent = (name: string, tools: ReturnType<typeof defineTool>[]) =>
    defineAgent({ name, model, instructions: 'Deploy A.', tools })
  return createAgents({
    agents: [
      agent('deployer', [deploy, action('rollback')]),
      agent('inspector', [readLogs]),
      agent('ghost', [action('haunt')]),
    ],
  })
}

type State = 'tool-removed' | 'schema-changed' | 'policy-denies' | 'agent-removed'

/** The four changed rows, each in a run deploy A started for ADA and left waiting */
async function changedRows(a: Agents): Promise<Record<State, ToolCall>> {
  const waiting = async (agent: string, tool: string, args: unknown) => {
    const run = await a.start(agent, { input: JSON.stringify({ tool, args }), owner: String(ADA) })
    await a.idle()
    const [row] = await rowsOf(run.id)
    if (row?.status !== 'pending') throw new Error(`run ${run.id} of ${agent} should wait`)
    return row
  }
  return {
    'tool-removed': await waiting('deployer', 'rollback', { target: 'api' }),
    'schema-changed': await waiting('deployer', 'deploy', { branch: 'main', target: 'eu' }),
    'policy-denies': await waiting('inspector', 'read_logs', { service: 'payments' }),
    'agent-removed': await waiting('ghost', 'haunt', { target: 'attic' }),
  }
}

/**
 * The changed rows, and ADA's inbox once each card says what changed.
 */
async function changedInbox(
  suite: BrowserSuite,
  a: Agents,
  cleanup: (close: () => Promise<void>) => void
) {
  const rows = await changedRows(a)
  const { session, page } = await openInbox(suite, ADA)
  cleanup(() => session.close())
  await reloadInbox(page)
  for (const [state, row] of Object.entries(rows) as [State, ToolCall][]) {
    await noteOf(cardOf(page, row.id), state).waitFor()
  }
  return { rows, page }
}

/** The buttons a card offers, by name, in order */
async function buttonsOf(card: Locator): Promise<string[]> {
  const names = await card.locator('.ai-actions button').allInnerTexts()
  return names.map((name) => name.trim())
}

/** The note of a changed card */
function noteOf(card: Locator, state: State): Locator {
  return card.locator(`[role="note"][data-changed="${state}"]`)
}

/** The card alone, at artifacts/changed-rows/<framework>-<state>.png */
async function cardScreenshot(card: Locator, name: string) {
  const folder = new URL('../../artifacts/changed-rows/', import.meta.url)
  await mkdir(folder, { recursive: true })
  await card.screenshot({ path: fileURLToPath(new URL(name, folder)) })
}

for (const framework of browserFrameworks()) {
  test.group(`Changed rows | ${framework} | ${dbName()}`, (group) => {
    const suite = useBrowserSuite(group, framework, { INBOX_FREEZE: 'read_logs' })
    let a: Agents
    group.setup(() => {
      a = deployA()
    })

    test('each changed card says what changed and offers only what can still happen; each does it', async ({
      assert,
      cleanup,
    }) => {
      const { rows, page } = await changedInbox(suite, a, cleanup)
      const expected: Record<State, { words: string; buttons: string[] }> = {
        'tool-removed': { words: 'This tool was removed', buttons: ['Reject'] },
        'schema-changed': { words: "This tool's input changed", buttons: ['Reject', 'Edit'] },
        'policy-denies': { words: `Denied by policy: ${FREEZE_REASON}`, buttons: ['Reject'] },
        'agent-removed': { words: 'This agent was removed', buttons: ['Close'] },
      }
      for (const [state, row] of Object.entries(rows) as [State, ToolCall][]) {
        const card = cardOf(page, row.id)
        const note = noteOf(card, state)
        await note.waitFor()
        assert.include(await note.innerText(), expected[state].words, state)
        assert.deepEqual(await buttonsOf(card), expected[state].buttons, state)
        await cardScreenshot(card, `${framework}-${state}.png`)
      }
      // What no longer fits is named
      const schemaNote = noteOf(cardOf(page, rows['schema-changed'].id), 'schema-changed')
      assert.include(await schemaNote.innerText(), 'target: is no longer accepted by the tool')

      // A changed schema: the form is the new schema's, prefilled with what still fits
      const schemaCard = cardOf(page, rows['schema-changed'].id)
      await schemaCard.getByRole('button', { name: 'Edit', exact: true }).click()
      const branch = schemaCard.getByLabel('Branch')
      assert.equal(await branch.inputValue(), 'main')
      await schemaCard.getByLabel('Force').waitFor()
      assert.equal(await schemaCard.getByLabel('Target').count(), 0)
      await cardScreenshot(schemaCard, `${framework}-schema-changed-edit.png`)
      await schemaCard.getByRole('button', { name: 'Approve with changes' }).click()
      await settledCard(page, rows['schema-changed'].id, ADA)
      const deployed = await settledRow(rows['schema-changed'].id)
      assert.equal(deployed.status, 'approved')
      const ran = await eventuallyExecuted(deployed.id)
      assert.equal(ran.execution, 'succeeded')
      assert.deepEqual(ran.result, { value: { deployed: 'main', force: false } })

      // A removed tool and a frozen one: Reject, with a reason the agent reads
      for (const state of ['tool-removed', 'policy-denies'] as const) {
        const card = cardOf(page, rows[state].id)
        await card.getByRole('button', { name: 'Reject', exact: true }).click()
        await card.getByLabel('Why not?').fill(`Not now (${state})`)
        await card.getByRole('button', { name: 'Send rejection' }).click()
        await settledCard(page, rows[state].id, ADA)
        const settled = await settledRow(rows[state].id)
        assert.equal(settled.status, 'rejected', state)
        assert.isNull(settled.execution, state)
      }

      // A removed agent: Close ends the run and closes its rows, and the page says so
      const ghost = cardOf(page, rows['agent-removed'].id)
      await ghost.getByRole('button', { name: 'Close', exact: true }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('the run cannot continue: it was ended and its rows closed').waitFor()
      await screenshot(page, `changed-rows/${framework}-agent-removed-closed.png`)
      const closed = await settledRow(rows['agent-removed'].id)
      assert.equal(closed.status, 'cancelled')
      const run = await AgentRun.findOrFail(closed.runId!)
      assert.equal(run.status, 'failed')
      assert.equal(run.errorCode, 'E_UNKNOWN_AGENT')
    })

    test('axe finds no serious violation on a page of changed rows, and the keyboard approves the edit in the new schema', async ({
      assert,
      cleanup,
    }) => {
      const { rows, page } = await changedInbox(suite, a, cleanup)
      const violations = await seriousViolations(page)
      assert.deepEqual(
        violations.map((violation) => `${violation.id}: ${violation.targets.join(', ')}`),
        []
      )

      const card = cardOf(page, rows['schema-changed'].id)
      await page.locator('body').focus()
      await tabTo(page, card.getByRole('button', { name: 'Edit', exact: true }))
      await page.keyboard.press('Enter')
      // The form opens with the focus in its first field, prefilled
      const branch = card.getByLabel('Branch')
      await branch.waitFor()
      assert.isTrue(
        await branch.evaluate((element) => element.ownerDocument.activeElement === element)
      )
      await page.keyboard.press('End')
      await page.keyboard.type('-hotfix')
      assert.deepEqual(await seriousViolations(page), [])
      await tabTo(page, card.getByRole('button', { name: 'Approve with changes' }))
      await page.keyboard.press('Enter')
      await settledCard(page, rows['schema-changed'].id, ADA)
      const ran = await eventuallyExecuted(rows['schema-changed'].id)
      assert.deepEqual(ran.result, { value: { deployed: 'main-hotfix', force: false } })
      for (const waiting of Object.values(rows)) {
        if (waiting.runId) await a.cancel(waiting.runId)
      }
    })
  })
}

/** The row once its action has run (or was not run) on deploy B */
function eventuallyExecuted(rowId: string): Promise<ToolCall> {
  return eventually(`row ${rowId} to be executed`, async () => {
    const row = await ToolCall.findOrFail(rowId)
    return row.execution ? row : undefined
  })
}
