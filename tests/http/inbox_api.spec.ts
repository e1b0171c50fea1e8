/*
 * The inbox's JSON API over a real Adonis HTTP server: every status code of
 * the reply endpoint, the authorization matrix (owner, another person, a
 * guest, an admin allowed by the hook), paging and its refused query
 * strings, errors rendering themselves through the app's stock exception
 * handler, and a run resumed by an HTTP reply.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import type { ApplicationService } from '@adonisjs/core/types'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { createActionRow, createAskRow } from '../helpers/rows.ts'
import { ask, DB_QUESTION, promptText, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'
import { AlreadySettledException } from '../../src/errors.ts'
import { viewDigest } from '../../src/governance/view.ts'

/** What the app's route below flashed, as a session would keep it */
const flashed: Record<string, unknown> = {}

/** Identity comes from a header here: the identify hook is the app's to write */
const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })

test.group(`Inbox API | ${dbName()}`, (group) => {
  let app: ApplicationService
  // One model for the whole group: a run asks, then finishes with what it was told
  const model = scriptedModel([
    [ask('c1', DB_QUESTION)],
    (options) => [say(promptText(options).includes('MySQL') ? 'Chose MySQL' : 'No answer seen')],
  ])

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [
          defineAgent({ name: 'helper', model, instructions: 'Help.' }),
          // rows made directly by tests/helpers/rows.ts belong to this agent's runs
          defineAgent({
            name: 'deployer',
            model: scriptedModel(Array.from({ length: 50 }, () => [say('done')])),
            instructions: 'Deploy.',
          }),
        ],
        inbox: {
          identify: (ctx) => ctx.request.header('x-person') ?? null,
          authorize: (_ctx, row, who) => who === 'admin' || row.ownerId === who,
          scope: (query, _ctx, who) => {
            if (who !== 'admin') query.where('owner_id', who)
          },
        },
      }),
      // A route of the app's own, outside the inbox's controller, that hits a settled row
      preload: async (preloaded) => {
        const router = await preloaded.container.make('router')
        router.post('/app/settle-late', (ctx) => {
          if (ctx.request.header('x-with-session')) {
            Object.assign(ctx, {
              session: { flash: (key: string, value: unknown) => (flashed[key] = value) },
            })
          }
          throw new AlreadySettledException(
            'row-1',
            'user:1',
            'web',
            new Date('2030-01-02T03:04:05.000Z')
          )
        })
      },
    })
    app = httpApp.app
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('the owner lists their pending rows grouped by run; others do not see them', async ({
    client,
    assert,
  }) => {
    const row = await createAskRow()
    await createActionRow({ ownerId: 'user:2' })

    const own = await client.get('/inbox').headers(person('user:1'))
    own.assertStatus(200)
    const groups = own.body().groups
    assert.lengthOf(groups, 1)
    assert.equal(groups[0].rows[0].id, row.id)
    assert.equal(groups[0].rows[0].questionSet.questions[0].id, 'db')
    assert.equal(groups[0].run.agent, 'deployer')

    const other = await client.get('/inbox').headers(person('user:2'))
    assert.notInclude(
      other.body().groups.flatMap((g: any) => g.rows.map((r: any) => r.id)),
      row.id
    )

    const admin = await client.get('/inbox').headers(person('admin'))
    assert.lengthOf(admin.body().groups, 2)

    const guest = await client.get('/inbox').header('accept', 'application/json')
    guest.assertStatus(403)
    assert.equal(guest.body().errors[0].code, 'E_FORBIDDEN')
  })

  test('reply authorization: owner and admin settle; another person and a guest get 403', async ({
    client,
    assert,
  }) => {
    const row = await createAskRow()
    const reply = { answers: { db: ['mysql'] } }

    const otherResponse = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:2'))
      .json({ ...reply, digest: viewDigest(row) })
    otherResponse.assertStatus(403)
    const guestResponse = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .header('accept', 'application/json')
      .json({ ...reply, digest: viewDigest(row) })
    guestResponse.assertStatus(403)
    const untouched = await ToolCall.findOrFail(row.id)
    assert.equal(untouched.status, 'pending')

    const ownerResponse = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:1'))
      .json({ ...reply, digest: viewDigest(row) })
    ownerResponse.assertStatus(200)
    assert.equal(ownerResponse.body().row.settled.by, 'user:1')
    assert.equal(ownerResponse.body().row.settled.via, 'api')

    const adminRow = await createActionRow()
    const adminResponse = await client
      .post(`/inbox/rows/${adminRow.id}/reply`)
      .headers(person('admin'))
      .json({ approved: false, reason: 'Freeze week', digest: viewDigest(adminRow) })
    adminResponse.assertStatus(200)
    const settled = await ToolCall.findOrFail(adminRow.id)
    assert.equal(settled.answeredBy, 'admin')
    assert.equal(settled.status, 'rejected')
  })

  test('422 with field errors for bad answers, and for answers sent to an approval', async ({
    client,
    assert,
  }) => {
    const row = await createAskRow()
    const bad = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:1'))
      .json({ answers: { db: ['mongo'], replicas: ['0'] }, digest: viewDigest(row) })
    bad.assertStatus(422)
    assert.equal(bad.body().errors[0].code, 'E_INVALID_REPLY')
    assert.includeMembers(
      bad.body().errors.map((error: any) => error.field),
      ['answers.db.0', 'answers.replicas.0']
    )
    // One entry per field, as Vine reports field errors, each with the stable code
    for (const entry of bad.body().errors) {
      assert.equal(entry.code, 'E_INVALID_REPLY')
      assert.equal(entry.rule, 'value')
    }

    const action = await createActionRow()
    const lenient = await client
      .post(`/inbox/rows/${action.id}/reply`)
      .headers(person('user:1'))
      .json({ approved: 'on', digest: viewDigest(action) })
    lenient.assertStatus(422)
    assert.deepEqual(lenient.body(), {
      errors: [
        {
          message: 'must be true or false',
          code: 'E_INVALID_REPLY',
          field: 'approved',
          rule: 'boolean',
        },
      ],
    })
    const jsonApi = await client
      .post(`/inbox/rows/${action.id}/reply`)
      .headers({ ...person('user:1'), accept: 'application/vnd.api+json' })
      .json({ approved: 'on', digest: viewDigest(action) })
    jsonApi.assertStatus(422)
    assert.deepEqual(JSON.parse(jsonApi.text()).errors, [
      {
        title: 'must be true or false',
        code: 'E_INVALID_REPLY',
        status: 422,
        source: { pointer: 'approved' },
        meta: { rule: 'boolean' },
      },
    ])

    const mismatch = await client
      .post(`/inbox/rows/${action.id}/reply`)
      .headers(person('user:1'))
      .json({ answers: { db: ['pg'] }, digest: viewDigest(action) })
    mismatch.assertStatus(422)
    assert.equal(mismatch.body().errors[0].code, 'E_REPLY_MISMATCH')
    assert.equal(mismatch.body().errors[0].field, 'approved')
    const stillPending = await ToolCall.findOrFail(action.id)
    assert.equal(stillPending.status, 'pending')
  })

  test('lenient replies are 422s naming the field, and settle nothing', async ({
    client,
    assert,
  }) => {
    const action = await createActionRow()
    const row = await createAskRow()
    const cases = [
      { id: action.id, body: { approved: 'on' }, field: 'approved' },
      { id: action.id, body: { approved: 1 }, field: 'approved' },
      { id: action.id, body: { approved: true, editedInput: null }, field: 'editedInput' },
      { id: row.id, body: { skip: 1 }, field: 'skip' },
      { id: row.id, body: { skip: true, junk: 'x' }, field: 'junk' },
      { id: row.id, body: { skip: true, junk: 'x'.repeat(900 * 1024) }, field: 'reply' },
      // Names the body parser drops (prototype pollution guards) are refused all the same
      { id: row.id, body: { skip: true, toString: 'x' }, field: 'toString' },
      { id: row.id, body: { skip: true, constructor: { prototype: {} } }, field: 'constructor' },
      {
        id: action.id,
        body: { approved: true, constructor: { prototype: {} } },
        field: 'constructor',
      },
      {
        id: row.id,
        body: { skip: true, ...JSON.parse('{"__proto__": {"x": 1}}') },
        field: '__proto__',
      },
      {
        id: action.id,
        body: { approved: true, editedInput: { env: 'prod', constructor: { prototype: {} } } },
        field: 'editedInput.constructor',
      },
    ]
    for (const { id, body, field } of cases) {
      const digest = viewDigest(id === action.id ? action : row)
      const response = await client
        .post(`/inbox/rows/${id}/reply`)
        .headers(person('user:1'))
        .json({ ...body, digest })
      response.assertStatus(422)
      assert.equal(response.body().errors[0].code, 'E_INVALID_REPLY')
      assert.deepEqual(
        response.body().errors.map((error: any) => error.field),
        [field],
        JSON.stringify(body).slice(0, 60)
      )
    }
    // A form body's parser (qs) drops every name of Object.prototype
    for (const name of ['toString', 'constructor', 'valueOf']) {
      const form = await client
        .post(`/inbox/rows/${row.id}/reply`)
        .headers(person('user:1'))
        .form({ 'answers[db]': 'mysql', [name]: 'x', 'digest': viewDigest(row) })
      form.assertStatus(422)
      assert.deepEqual(
        form.body().errors.map((error: any) => error.field),
        [name]
      )
    }
    for (const id of [action.id, row.id]) {
      const untouched = await ToolCall.findOrFail(id)
      assert.equal(untouched.status, 'pending')
      assert.isNull(untouched.reply)
    }
  })

  test('409 for a settled row says who settled it and when; 404 for no such row', async ({
    client,
    assert,
  }) => {
    const row = await createAskRow()
    const first = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:1'))
      .json({ answers: {}, skip: true, digest: viewDigest(row) })
    first.assertStatus(200)
    const second = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('admin'))
      .json({ answers: { db: ['mysql'] }, digest: viewDigest(row) })
    second.assertStatus(409)
    assert.equal(second.body().errors[0].code, 'E_ALREADY_SETTLED')
    assert.lengthOf(second.body().errors, 1)
    const { meta } = second.body().errors[0]
    assert.equal(meta.settledBy, 'user:1')
    assert.equal(meta.settledVia, 'api')
    assert.isString(meta.settledAt)

    const missing = await client
      .post('/inbox/rows/00000000-0000-0000-0000-000000000000/reply')
      .headers(person('user:1'))
      .json({ approved: true })
    missing.assertStatus(404)
    assert.equal(missing.body().errors[0].code, 'E_NOT_FOUND')
  })

  test('a row id that is not a UUID is a 404 before any query (a NUL byte is one)', async ({
    client,
    assert,
  }) => {
    const row = await createAskRow()
    // A row has one id on every database: in capitals, MySQL's collation alone would find it
    for (const id of ['%00', `${row.id}%00`, 'x'.repeat(5000), 'not-a-row', row.id.toUpperCase()]) {
      const shown = await client.get(`/inbox/rows/${id}`).headers(person('user:1'))
      shown.assertStatus(404)
      assert.equal(shown.body().errors[0].code, 'E_NOT_FOUND')
      const replied = await client
        .post(`/inbox/rows/${id}/reply`)
        .headers(person('user:1'))
        .json({ answers: {}, skip: true })
      replied.assertStatus(404)
      assert.equal(replied.body().errors[0].code, 'E_NOT_FOUND')
    }
    const untouched = await ToolCall.findOrFail(row.id)
    assert.equal(untouched.status, 'pending')
  })

  test('410 for expired and cancelled rows', async ({ client, assert }) => {
    const expired = await createAskRow({ expiresAt: DateTime.now().minus({ minutes: 1 }) })
    const late = await client
      .post(`/inbox/rows/${expired.id}/reply`)
      .headers(person('user:1'))
      .json({ answers: { db: ['mysql'] }, digest: viewDigest(expired) })
    late.assertStatus(410)
    assert.equal(late.body().errors[0].code, 'E_EXPIRED')

    const cancelled = await createAskRow({ status: 'cancelled' })
    const toCancelled = await client
      .post(`/inbox/rows/${cancelled.id}/reply`)
      .headers(person('user:1'))
      .json({ answers: {}, digest: viewDigest(cancelled) })
    toCancelled.assertStatus(410)
    assert.equal(toCancelled.body().errors[0].code, 'E_CANCELLED')
  })

  test('a row detail carries its run record; settled rows are listed newest first', async ({
    client,
    assert,
  }) => {
    const row = await createAskRow()
    const forbidden = await client.get(`/inbox/rows/${row.id}`).headers(person('user:2'))
    forbidden.assertStatus(403)

    await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:1'))
      .json({ answers: { db: ['sqlite'] }, digest: viewDigest(row) })
    const detail = await client.get(`/inbox/rows/${row.id}`).headers(person('user:1'))
    detail.assertStatus(200)
    assert.equal(detail.body().row.settled.by, 'user:1')
    assert.deepEqual(detail.body().row.settled.outcome.answers.db, ['sqlite'])
    assert.equal(detail.body().run.id, row.runId)
    assert.isArray(detail.body().journal)
    assert.equal(detail.body().rows[0].id, row.id)

    const settled = await client.get('/inbox/settled').headers(person('user:1'))
    settled.assertStatus(200)
    assert.equal(settled.body().rows[0].id, row.id)
  })

  test('the inbox is paged: ?limit= then ?cursor=<next> until next is null', async ({
    client,
    assert,
  }) => {
    // A minute apart, so the expected order does not hang on ids
    const since = DateTime.now().minus({ hours: 1 })
    const created: string[] = []
    for (let index = 0; index < 5; index++) {
      const row = await createAskRow({ createdAt: since.plus({ minutes: index }) })
      created.push(row.id)
    }
    await createAskRow({ ownerId: 'user:2' })

    const seen: string[] = []
    const sizes: number[] = []
    let cursor: string | null = null
    do {
      const response = await client
        .get('/inbox')
        .qs(cursor ? { limit: 2, cursor } : { limit: 2 })
        .headers(person('user:1'))
      response.assertStatus(200)
      const ids = response.body().groups.flatMap((g: any) => g.rows.map((r: any) => r.id))
      sizes.push(ids.length)
      seen.push(...ids)
      cursor = response.body().next
    } while (cursor && sizes.length < 10)

    assert.deepEqual(sizes, [2, 2, 1])
    assert.deepEqual(seen, created)

    // Settled rows page the same way, newest first
    for (const id of created.slice(0, 3)) {
      await client
        .post(`/inbox/rows/${id}/reply`)
        .headers(person('user:1'))
        .json({ answers: {}, skip: true, digest: viewDigest(await ToolCall.findOrFail(id)) })
    }
    const first = await client.get('/inbox/settled').qs({ limit: 2 }).headers(person('user:1'))
    first.assertStatus(200)
    assert.lengthOf(first.body().rows, 2)
    const second = await client
      .get('/inbox/settled')
      .qs({ limit: 2, cursor: first.body().next })
      .headers(person('user:1'))
    assert.lengthOf(second.body().rows, 1)
    assert.isNull(second.body().next)
    assert.sameMembers(
      [...first.body().rows, ...second.body().rows].map((row: any) => row.id),
      created.slice(0, 3)
    )
  })

  test('a cursor the inbox did not give out is a 400 E_INVALID_CURSOR', async ({
    client,
    assert,
  }) => {
    await createAskRow()
    const response = await client
      .get('/inbox')
      .qs({ cursor: 'not-a-cursor' })
      .headers(person('user:1'))
    response.assertStatus(400)
    assert.equal(response.body().errors[0].code, 'E_INVALID_CURSOR')
    assert.lengthOf(response.body().errors, 1)
    assert.include(response.body().errors[0].message, 'next')
  })

  test('a limit that is not a whole number from 1 to 200 is a 422, not a default', async ({
    client,
    assert,
  }) => {
    for (const limit of ['0', '201', 'abc', '2.5', '-1', '']) {
      const response = await client.get(`/inbox?limit=${limit}`).headers(person('user:1'))
      response.assertStatus(422)
      assert.equal(response.body().errors[0].code, 'E_INVALID_QUERY')
      assert.deepEqual(
        response.body().errors.map((error: any) => error.field),
        ['limit'],
        `limit=${limit}`
      )
    }
    const twoCursors = await client
      .get('/inbox/settled?cursor=a&cursor=b')
      .headers(person('user:1'))
    twoCursors.assertStatus(422)
    assert.equal(twoCursors.body().errors[0].field, 'cursor')

    const fine = await client.get('/inbox?limit=200').headers(person('user:1'))
    fine.assertStatus(200)
  })

  test('the errors render themselves through the stock exception handler, outside the controller', async ({
    client,
    assert,
  }) => {
    const response = await client.post('/app/settle-late').header('accept', 'application/json')
    response.assertStatus(409)
    assert.deepEqual(response.body(), {
      errors: [
        {
          message:
            'Row row-1 was already settled by user:1 via web at 2030-01-02T03:04:05.000Z. Reload to see the outcome',
          code: 'E_ALREADY_SETTLED',
          meta: { settledBy: 'user:1', settledVia: 'web', settledAt: '2030-01-02T03:04:05.000Z' },
        },
      ],
    })

    // JSON:API clients get its error objects, as the stock handler writes them
    const jsonApi = await client
      .post('/app/settle-late')
      .header('accept', 'application/vnd.api+json')
    jsonApi.assertStatus(409)
    assert.deepEqual(JSON.parse(jsonApi.text()), {
      errors: [
        {
          title: response.body().errors[0].message,
          code: 'E_ALREADY_SETTLED',
          status: 409,
          meta: { settledBy: 'user:1', settledVia: 'web', settledAt: '2030-01-02T03:04:05.000Z' },
        },
      ],
    })

    // A browser without a session gets the message as HTML, escaped
    const html = await client.post('/app/settle-late').header('accept', 'text/html')
    html.assertStatus(409)
    assert.include(html.header('content-type'), 'text/html')
    assert.equal(html.text(), `<p> ${response.body().errors[0].message} </p>`)

    // A form post from an Inertia page, with a session: flashed and sent back
    const fromPage = await client
      .post('/app/settle-late')
      .headers({ 'x-inertia': 'true', 'x-with-session': '1', 'referer': '/inbox' })
      .redirects(0)
    fromPage.assertStatus(302)
    assert.equal(fromPage.header('location'), '/inbox')
    // One key of the package's own, which the inbox page's controller reads back
    assert.deepEqual(Object.keys(flashed), ['agentInbox'])
    assert.deepEqual(flashed.agentInbox, {
      rowId: null,
      error: { status: 409, ...response.body() },
    })
  })

  test('a reply over HTTP resumes the run, which receives the answer', async ({
    client,
    assert,
  }) => {
    const agents = await app.container.make('agents.runtime')
    const run = await agents.start('helper', { input: 'pick a db', owner: 'user:7' })
    await agents.idle()
    const [row] = await ToolCall.query().where('run_id', run.id)
    assert.equal(row.status, 'pending')

    const response = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:7'))
      .json({ answers: { db: ['mysql'] }, digest: viewDigest(row) })
    response.assertStatus(200)
    await agents.idle()
    await run.refresh()
    assert.equal(run.status, 'completed')
    assert.deepEqual(run.result, { text: 'Chose MySQL' })
    const settled = await ToolCall.findOrFail(row.id)
    assert.deepEqual((settled.outcome as QuestionOutcome).answers.db, ['mysql'])
  })
})
