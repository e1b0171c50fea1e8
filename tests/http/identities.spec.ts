/*
 * People's ids compare exactly through the HTTP listing with the default
 * access scope (rows they own), on every database: MySQL's and MariaDB's
 * default collations would otherwise match other case and trailing spaces
 * (the migration stub gives the identity columns a binary collation).
 */

import { test } from '@japa/runner'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { createAskRow } from '../helpers/rows.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { say, scriptedModel } from '../helpers/runtime.ts'

test.group(`Inbox API, default access | ${dbName()}`, (group) => {
  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'deployer',
            model: scriptedModel([[say('done')]]),
            instructions: '.',
          }),
        ],
        // Only who is asking is the test's; authorize and scope are the defaults
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
    })
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('rows of Ada@Example.com and "ada@example.com " are not listed for ada@example.com', async ({
    client,
    assert,
  }) => {
    const own = await createAskRow({ ownerId: 'ada@example.com' })
    const upper = await createAskRow({ ownerId: 'Ada@Example.com' })
    const spaced = await createAskRow({ ownerId: 'ada@example.com ' })

    const response = await client
      .get('/inbox')
      .headers({ 'x-person': 'ada@example.com', 'accept': 'application/json' })
    response.assertStatus(200)
    const listed = response.body().groups.flatMap((g: any) => g.rows.map((r: any) => r.id))
    assert.deepEqual(listed, [own.id])

    for (const other of [upper, spaced]) {
      const detail = await client
        .get(`/inbox/rows/${other.id}`)
        .headers({ 'x-person': 'ada@example.com', 'accept': 'application/json' })
      detail.assertStatus(403)
    }
  })
})
