/*
 * An outside agent's question answered on the inbox page (docs/design.md
 * §7.8): the SDK's real `Client` calls `ask_human` on the fixture app's MCP
 * server over Streamable HTTP, the question set is a card in Ada's inbox in
 * Chromium, and the answers she confirms there reach the client typed.
 * Once, on React: the cards are the inbox's own, tested on both pages.
 */

import { test } from '@japa/runner'
import { dbName } from '../helpers/database.ts'
import { eventually } from '../helpers/browser.ts'
import {
  ADA,
  cardOf,
  openInbox,
  reloadInbox,
  settledCard,
  settledRow,
  useBrowserSuite,
} from '../helpers/inbox_browser.ts'
import { mcpClient, mcpRows, mcpSecret, structured } from '../helpers/mcp_clients.ts'

test.group(`MCP server: a question answered on the page | react | ${dbName()}`, (group) => {
  const suite = useBrowserSuite(group, 'react', { MCP_WAIT: '60000' })

  test('ask_human becomes a card; the answers confirmed in Chromium reach the client typed', async ({
    assert,
    cleanup,
  }) => {
    const client = await mcpClient(suite.fixture.baseUrl, await mcpSecret(ADA, 'claude-code'))
    cleanup(() => client.close())
    const call = client.callTool({
      name: 'ask_human',
      arguments: {
        preamble: 'Before I migrate the billing service:',
        questions: [
          {
            id: 'db',
            header: 'Database',
            prompt: 'Which database should it use?',
            options: [
              { value: 'pg', label: 'PostgreSQL' },
              { value: 'mysql', label: 'MySQL' },
            ],
            defaults: ['pg'],
          },
          {
            id: 'replicas',
            prompt: 'How many replicas?',
            input: { type: 'integer', min: 1, max: 9 },
            defaults: ['2'],
          },
        ],
      },
    })
    const asked = await eventually('the ask_human row', async () =>
      mcpRows().then((rows) => rows.find((row) => row.status === 'pending'))
    )

    const { session, page } = await openInbox(suite, ADA)
    cleanup(() => session.close())
    await reloadInbox(page)
    const card = cardOf(page, asked.id)
    await card.getByText('Before I migrate the billing service:').waitFor()
    assert.isTrue(await card.getByRole('radio', { name: 'PostgreSQL' }).isChecked())
    await card.getByRole('radio', { name: 'MySQL' }).check()
    await card.getByLabel('How many replicas?').fill('3')
    await card.getByRole('button', { name: 'Confirm' }).click()
    await settledCard(page, asked.id, ADA)

    const answer = structured(await call)
    assert.equal(answer.status, 'answered')
    assert.deepEqual(answer.answers, { db: 'mysql', replicas: 3 })
    assert.equal(answer.answeredVia, 'web')
    const settled = await settledRow(asked.id)
    assert.equal(settled.answeredBy, String(ADA))
  })
})
