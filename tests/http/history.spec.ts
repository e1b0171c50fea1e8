/*
 * The history over a real Adonis HTTP server (`GET /inbox/history`):
 * settled rows and finished runs, newest first, filtered by agent, status,
 * kind, who settled and a range of days, a page at a time by keyset
 * cursor, only what the access hooks let a person see; refused query
 * strings. And the database's own plan for a person's history page: an
 * index range in order (no scan of the table, no sort), on every database,
 * for the very SQL the listing sends.
 */

import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { Database } from '@adonisjs/lucid/database'
import { dbName } from '../helpers/database.ts'
import { analyzeTables } from '../helpers/statements.ts'
import { createHttpApp } from '../helpers/http.ts'
import { defineConfig } from '../../src/define_config.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { preparedRows } from '../../src/persistence/prepared_columns.ts'
import { listRows } from '../../src/inbox/list.ts'
import { listRuns } from '../../src/runtime/run_list.ts'

const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })

const DAY_ONE = DateTime.fromISO('2030-03-01T10:00:00Z')

let sequence = 0

/** A finished run and one settled row of it */
async function settledRow(options: {
  agent?: string
  owner?: string
  kind?: ToolCall['kind']
  status?: ToolCall['status']
  by?: string
  day?: number
  runStatus?: AgentRun['status']
  request?: Record<string, unknown>
}) {
  const at = DAY_ONE.plus({ days: options.day ?? 0, minutes: ++sequence })
  const run = await AgentRun.create({
    agent: options.agent ?? 'deployer',
    ownerId: options.owner ?? 'ada',
    status: options.runStatus ?? 'completed',
    input: 'go',
    finishedAt: at.plus({ minutes: 1 }),
  })
  const kind = options.kind ?? 'action'
  return ToolCall.create({
    runId: run.id,
    sequence: 1,
    toolName: kind === 'action' ? 'deploy' : kind,
    kind,
    status: options.status ?? 'approved',
    ownerId: run.ownerId,
    request:
      options.request ?? (kind === 'action' ? { args: {}, summary: 'Deploy' } : { questions: [] }),
    answeredBy: options.by ?? run.ownerId,
    answeredVia: 'web',
    settledAt: at,
  })
}

test.group(`History | ${dbName()}`, (group) => {
  let db: Database

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        inbox: {
          identify: (ctx) => ctx.request.header('x-person') ?? null,
          displayName: (id) => (id === 'ada' ? 'Ada Lovelace' : id),
        },
      }),
    })
    db = httpApp.db
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
    await AgentRun.query().delete()
  })

  test('settled rows, newest first, by agent, status, kind, who settled and days', async ({
    client,
    assert,
  }) => {
    const approved = await settledRow({ day: 0 })
    const rejected = await settledRow({ status: 'rejected', day: 1 })
    const answered = await settledRow({ kind: 'ask', status: 'answered', agent: 'planner', day: 2 })
    const expired = await settledRow({ kind: 'intake', status: 'expired', by: 'expiry', day: 3 })
    const bobs = await settledRow({ owner: 'bob', day: 1 })
    const byGrace = await settledRow({ by: 'grace', day: 4 })

    const ids = async (query: Record<string, string>) => {
      const response = await client.get('/inbox/history').qs(query).headers(person('ada'))
      response.assertStatus(200)
      return response.body().rows.map((item: any) => item.card.id)
    }
    // Everything ada may see, newest first; bob's row is not hers
    assert.deepEqual(await ids({}), [byGrace.id, expired.id, answered.id, rejected.id, approved.id])
    assert.notInclude(await ids({}), bobs.id)
    assert.deepEqual(await ids({ agent: 'planner' }), [answered.id])
    assert.deepEqual(await ids({ status: 'rejected' }), [rejected.id])
    assert.deepEqual(await ids({ kind: 'intake' }), [expired.id])
    assert.deepEqual(await ids({ by: 'grace' }), [byGrace.id])
    assert.deepEqual(await ids({ from: '2030-03-02', to: '2030-03-03' }), [
      answered.id,
      rejected.id,
    ])
    // A form left on "any" sends blank fields: no filter
    assert.lengthOf(await ids({ agent: '', status: '', kind: '', by: '', from: '', to: '' }), 5)

    // Each row comes with its run, and the people it shows by name
    const response = await client.get('/inbox/history').headers(person('ada'))
    const first = response.body().rows.at(-1)
    assert.equal(first.run.id, approved.runId)
    assert.equal(first.run.agent, 'deployer')
    assert.equal(first.card.settled.by, 'ada')
    assert.equal(response.body().people.ada, 'Ada Lovelace')
    assert.equal(response.body().people.grace, 'grace')
    assert.deepEqual(response.body().filters, { view: 'rows' })
    // What the page's filters offer: the statuses and kinds this query takes
    assert.deepEqual(response.body().statuses, [
      'answered',
      'approved',
      'rejected',
      'expired',
      'cancelled',
    ])
    assert.includeMembers(response.body().kinds, ['ask', 'intake', 'action'])
  })

  test('an ask row whose request lost its questions is listed with none', async ({
    client,
    assert,
  }) => {
    const asked = await settledRow({ kind: 'ask', status: 'answered', request: { preamble: 'Hi' } })
    const response = await client.get('/inbox/history').headers(person('ada'))
    response.assertStatus(200)
    const [row] = response.body().rows
    assert.equal(row.card.id, asked.id)
    assert.deepEqual(row.card.questionSet, { preamble: 'Hi', questions: [] })
  })

  test('pages follow the cursor: every row once, in order', async ({ client, assert }) => {
    const made = []
    for (let day = 0; day < 7; day++) made.push(await settledRow({ day }))
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const query: Record<string, string> = { limit: '3', ...(cursor ? { cursor } : {}) }
      const response = await client.get('/inbox/history').qs(query).headers(person('ada'))
      response.assertStatus(200)
      seen.push(...response.body().rows.map((item: any) => item.card.id))
      cursor = response.body().next
      pages += 1
    } while (cursor)
    assert.equal(pages, 3)
    assert.deepEqual(seen, made.map((row) => row.id).reverse())
  })

  test('finished runs, newest first, by agent, status and days', async ({ client, assert }) => {
    const completed = await settledRow({ day: 0 })
    const failed = await settledRow({ day: 1, runStatus: 'failed', agent: 'planner' })
    const cancelled = await settledRow({ day: 2, runStatus: 'cancelled' })
    await settledRow({ day: 3, owner: 'bob' })
    const waiting = await AgentRun.create({ agent: 'deployer', ownerId: 'ada', status: 'waiting' })

    const ids = async (query: Record<string, string>) => {
      const response = await client
        .get('/inbox/history')
        .qs({ view: 'runs', ...query })
        .headers(person('ada'))
      response.assertStatus(200)
      return response.body().runs.map((run: any) => run.id)
    }
    assert.deepEqual(await ids({}), [cancelled.runId, failed.runId, completed.runId])
    const page = await client.get('/inbox/history').qs({ view: 'runs' }).headers(person('ada'))
    assert.deepEqual(page.body().statuses, ['completed', 'failed', 'cancelled'])
    assert.notInclude(await ids({}), waiting.id)
    assert.deepEqual(await ids({ status: 'failed' }), [failed.runId])
    assert.deepEqual(await ids({ agent: 'planner' }), [failed.runId])
    assert.deepEqual(await ids({ from: '2030-03-02', to: '2030-03-02' }), [failed.runId])
    // The page's form switched from rows to runs sends the rows' filters blank: "any", not refused
    assert.deepEqual(await ids({ status: 'failed', kind: '', by: '' }), [failed.runId])
  })

  test('a query the history does not take is a 422 naming the field', async ({
    client,
    assert,
  }) => {
    const bad = async (query: Record<string, string>) => {
      const response = await client.get('/inbox/history').qs(query).headers(person('ada'))
      response.assertStatus(422)
      assert.equal(response.body().errors[0].code, 'E_INVALID_QUERY')
      return response.body().errors.map((error: any) => error.field)
    }
    assert.deepEqual(await bad({ view: 'everything' }), ['view'])
    assert.deepEqual(await bad({ from: '1 March' }), ['from'])
    assert.deepEqual(await bad({ limit: '0' }), ['limit'])
    assert.deepEqual(await bad({ view: 'runs', status: 'approved' }), ['status'])
    assert.deepEqual(await bad({ kind: 'mail' }), ['kind'])
    // A filter it does not take, or a rows filter on the runs list, is named, never ignored
    assert.deepEqual(await bad({ zzz: '1' }), ['zzz'])
    assert.deepEqual(await bad({ view: 'runs', by: 'ada' }), ['by'])
    assert.deepEqual(await bad({ view: 'runs', kind: 'ask' }), ['kind'])
    // Control characters never reach a query (PostgreSQL answered 500 to a NUL)
    assert.deepEqual(await bad({ agent: '\u0000' }), ['agent'])
    assert.deepEqual(await bad({ view: 'rows', by: '\u0000' }), ['by'])
    assert.deepEqual(await bad({ view: 'runs', agent: 'a\u0000b' }), ['agent'])
    assert.deepEqual(await bad({ cursor: 'a\u0007' }), ['cursor'])
    const cursor = await client.get('/inbox/history').qs({ cursor: 'nope' }).headers(person('ada'))
    cursor.assertStatus(400)
    const guest = await client.get('/inbox/history').header('accept', 'application/json')
    guest.assertStatus(403)
  })

  test("a person's history page is an index range in order, on this database", async ({
    assert,
  }) => {
    // A busy person with thousands of rows among others': a page is 20 of them
    const owners = Array.from({ length: 200 }, (_, index) =>
      index < 100 ? 'busy' : `person-${index}`
    )
    const at = DAY_ONE
    for (let chunk = 0; chunk < 20; chunk++) {
      const runs = preparedRows(
        AgentRun,
        owners.map((owner, index) => ({
          id: randomUUID(),
          agent: 'deployer',
          status: 'completed' as const,
          ownerId: owner,
          attempt: 1,
          askCount: 0,
          journalLength: 0,
          createdAt: at,
          updatedAt: at,
          finishedAt: at.plus({ minutes: chunk * 200 + index }),
        }))
      )
      await db.table(AgentRun.table).multiInsert(runs)
      await db.table(ToolCall.table).multiInsert(
        preparedRows(
          ToolCall,
          runs.map((run, index) => ({
            id: randomUUID(),
            runId: run.id as string,
            sequence: 1,
            attempt: 1,
            toolName: 'deploy',
            kind: 'action' as const,
            status: 'approved' as const,
            ownerId: owners[index],
            request: { args: {}, summary: 'Deploy' },
            answeredBy: owners[index],
            answeredVia: 'web' as const,
            onExpiry: 'defaults' as const,
            settledAt: at.plus({ minutes: chunk * 200 + index }),
            createdAt: at,
            updatedAt: at,
          }))
        )
      )
    }
    await analyzeTables(db, [AgentRun.table, ToolCall.table])

    const rows = await planOf(db, () => listRows({ status: 'settled', ownerId: 'busy', limit: 20 }))
    assert.include(rows.index, 'agent_tool_calls_history_index', rows.text)
    assert.isFalse(rows.scans, rows.text)
    assert.isFalse(rows.sorts, rows.text)

    const runs = await planOf(db, () => listRuns({ ownerId: 'busy', limit: 20 }))
    assert.include(runs.index, 'agent_runs_history_index', runs.text)
    assert.isFalse(runs.scans, runs.text)
    assert.isFalse(runs.sorts, runs.text)
  }).timeout(60_000)
})

/**
 * The plan of the one query `list` sends: the indexes it uses, whether it
 * scans a table whole, whether it sorts, and the plan as text.
 */
async function planOf(db: Database, list: () => Promise<unknown>) {
  const knex = db.connection().getWriteClient()
  const sent: { sql: string; bindings: unknown[] }[] = []
  const listener = (query: { sql: string; bindings: unknown[] }) => void sent.push(query)
  knex.on('query', listener)
  try {
    await list()
  } finally {
    knex.off('query', listener)
  }
  ensure(sent.length === 1, `expected one query, got ${sent.length}`)
  const [{ sql, bindings }] = sent
  switch (dbName()) {
    case 'pg': {
      // pg's native placeholders ($1, $2…) come in order: knex's raw takes them as ?
      const raw = sql.replace(/\$\d+/g, '?')
      const { rows } = await db.rawQuery(`EXPLAIN (FORMAT JSON) ${raw}`, bindings as never)
      const nodes: any[] = []
      const walk = (node: any) => {
        nodes.push(node)
        for (const child of node.Plans ?? []) walk(child)
      }
      walk(rows[0]['QUERY PLAN'][0].Plan)
      return {
        index: nodes.map((node) => node['Index Name'] ?? '').join(' '),
        scans: nodes.some((node) => node['Node Type'] === 'Seq Scan'),
        sorts: nodes.some((node) => /Sort/.test(node['Node Type'])),
        text: JSON.stringify(rows[0]['QUERY PLAN']),
      }
    }
    case 'mysql': {
      const [rows] = await db.rawQuery(`EXPLAIN ${sql}`, bindings as never)
      return {
        index: rows.map((row: any) => row.key ?? '').join(' '),
        scans: rows.some((row: any) => row.type === 'ALL'),
        sorts: rows.some((row: any) => /filesort/.test(row.Extra ?? '')),
        text: JSON.stringify(rows),
      }
    }
    case 'sqlite': {
      const rows = await db.rawQuery(`EXPLAIN QUERY PLAN ${sql}`, bindings as never)
      const details = rows.map((row: any) => String(row.detail))
      return {
        index: details.join(' '),
        scans: details.some((detail: string) => /^SCAN /.test(detail)),
        sorts: details.some((detail: string) => /TEMP B-TREE/.test(detail)),
        text: details.join('\n'),
      }
    }
  }
}

function ensure(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message)
}
