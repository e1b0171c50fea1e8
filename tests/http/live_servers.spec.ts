/*
 * Live updates across web servers: two servers of the cluster fixture
 * (tests/fixtures/cluster_app.ts), each with Transmit on its Redis
 * transport, as docs/guides/scaling_out.md sets them up. A person's page
 * subscribed on server B hears of a row settled through server A, and a
 * subscription refused on B stays refused whichever server broadcasts.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { prepareClusterTables, reply, startWebServer } from '../helpers/cluster.ts'
import { seedExpiring } from '../helpers/expiry.ts'
import { openTransmitStream } from '../helpers/transmit.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'

test.group(`Live updates across servers | Transmit over Redis | ${dbName()}`, (group) => {
  const cleanups: (() => Promise<unknown> | void)[] = []
  let servers: Awaited<ReturnType<typeof startWebServer>>[]

  group.setup(async () => {
    const testApp = await createTestApp()
    await prepareClusterTables(testApp.db, 'redis')
    const env = { QUEUE_BACKEND: 'redis', RECOVER_ON_START: '0', RECOVER_INTERVAL: '0' }
    servers = await Promise.all([startWebServer(env), startWebServer(env)])
    return async () => {
      for (const server of servers) await server.kill()
      await testApp.terminate()
    }
  })
  group.each.setup(() => async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })

  test("a row settled through server A reaches the page on server B, and only its owner's page", async ({
    assert,
  }) => {
    const [serverA, serverB] = servers
    const [ada, bob] = [
      await openTransmitStream(serverB.baseUrl, { 'x-person': 'user:1' }),
      await openTransmitStream(serverB.baseUrl, { 'x-person': 'user:2' }),
    ]
    cleanups.push(
      () => ada.close(),
      () => bob.close()
    )
    assert.equal(await ada.subscribe('agent_inbox/user:1', { 'x-person': 'user:1' }), 204)
    assert.equal(await bob.subscribe('agent_inbox/user:1', { 'x-person': 'user:2' }), 400)
    assert.equal(await bob.subscribe('agent_inbox/user:2', { 'x-person': 'user:2' }), 204)

    const [row] = await seedExpiring(1, {
      agent: 'painter',
      expiresAt: DateTime.now().plus({ hours: 1 }),
    })
    const status = await reply(serverA.baseUrl, await ToolCall.findOrFail(row.id), {
      answers: { region: ['us'] },
    })
    assert.equal(status, 200)

    const heard = await ada.next((message) => message.payload.type === 'row:settled')
    assert.deepEqual(heard, {
      channel: 'agent_inbox/user:1',
      payload: { type: 'row:settled', rowId: row.id, runId: row.runId },
    })
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'answered')
    assert.deepEqual(bob.messages, [])
  }).timeout(60_000)
})
