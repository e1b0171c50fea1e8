/*
 * `answered_via` names the channel a reply came through, not what the
 * client accepts: the inbox page posts as Inertia visits (`web`), any other
 * client of the routes is the JSON API (`api`). The app here has a
 * stand-in Inertia and session, as an Inertia app's middleware would put
 * on the context, so the controller takes its page paths.
 */

import { test } from '@japa/runner'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { createAskRow, rowsAgent } from '../helpers/rows.ts'
import { defineConfig } from '../../src/define_config.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { viewDigest } from '../../src/governance/view.ts'

/** What an Inertia app's middleware adds to the context, reduced to what the inbox uses */
class StandInInertiaMiddleware {
  handle(ctx: HttpContext, next: NextFn) {
    Object.assign(ctx, {
      inertia: { render: (page: string, props: unknown) => ({ page, props }) },
      session: { flash() {} },
    })
    return next()
  }
}

test.group(`Inbox API, the channel of a reply | ${dbName()}`, (group) => {
  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        // The rows' runs belong to an agent of the app (tests/helpers/rows.ts)
        agents: [rowsAgent()],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
      preload: async (app) => {
        const router = await app.container.make('router')
        router.use([async () => ({ default: StandInInertiaMiddleware })])
      },
    })
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('{label} is recorded as {via}')
    .with<{ label: string; headers: Record<string, string>; via: string }[]>([
      { label: 'the page (an Inertia visit)', headers: { 'x-inertia': 'true' }, via: 'web' },
      { label: 'a client preferring HTML', headers: { accept: 'text/html' }, via: 'api' },
      { label: 'a JSON client', headers: { accept: 'application/json' }, via: 'api' },
    ])
    .run(async ({ client, assert }, { headers, via }) => {
      const row = await createAskRow()
      await client
        .post(`/inbox/rows/${row.id}/reply`)
        .headers({ 'x-person': 'user:1', ...headers })
        .json({ answers: {}, skip: true, digest: viewDigest(row) })
        .redirects(0)
      const settled = await ToolCall.findOrFail(row.id)
      assert.equal(settled.status, 'answered')
      assert.equal(settled.answeredVia, via)
      assert.equal(settled.answeredBy, 'user:1')
    })
})
