/*
 * Every input of every package route, walked (issue 34): the routes are
 * read from the app's router after boot (the inbox's, its mail links', the
 * console's, the chat's, Transmit's three), and in each path param, query
 * value, body field and header a route reads, one at a time, the test sends NUL and other
 * control characters, 10,000 characters, wrong types (arrays, objects,
 * numbers, null; a query key given twice or with brackets), broken
 * percent-encodings, ids in capitals, and a field no route reads: as the
 * owner of the rows and runs named, as another signed-in person and as a
 * guest. No answer may be a 5xx; where the docs promise it, a malformed id
 * is a 404 and a malformed filter, reply or stream request a 422 naming the
 * field. A last test names a grant, a run and a row by their ids in
 * capitals on every route (and runtime call) that takes one: not found,
 * on MySQL/MariaDB too.
 *
 * The server is tests/fixtures/gate_app.ts, in a process of its own (why:
 * its module comment); rows are written here, on the same database.
 */

import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { inParallel, startClusterProcess, type ClusterProcess } from '../helpers/cluster.ts'
import { createActionRow, createAskRow, createRun, rowsAgent } from '../helpers/rows.ts'
import {
  bodyValue,
  describe,
  isPackageRoute,
  keeps,
  paramsOf,
  pathSegment,
  promised,
  queryString,
  ROUTE_INPUTS,
  routeKey,
  UNKNOWN,
  valuesFor,
  type Answer,
  type ListedRoute,
  type Place,
  type Request,
} from '../helpers/input_gate.ts'
import { defineConfig } from '../../src/define_config.ts'
import { Grant } from '../../src/persistence/models/grant.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { AgentConversation } from '../../src/persistence/models/agent_conversation.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { appendEvents, rowEvents, runEvents } from '../../src/inbox/audit_log.ts'

const GATE_APP = fileURLToPath(new URL('../fixtures/gate_app.ts', import.meta.url))

/** The inbox's 9 routes, its 2 mail-link routes, the console's 4, the chat's 2 and Transmit's 3 */
const PACKAGE_ROUTES = 20

/** Who sends: the owner of every row, run and grant named; someone else; nobody */
const IDENTITIES: Identity[] = [
  { who: 'owner', person: 'user:1' },
  { who: 'other', person: 'user:2' },
  { who: 'guest', person: null },
]
type Identity = Request['identity']

/** A live grant of the owner's, for any deploy */
function createGrant() {
  return Grant.create({
    id: randomUUID(),
    personId: 'user:1',
    scope: 'person',
    toolName: 'deploy',
    createdAt: DateTime.now(),
    expiresAt: DateTime.now().plus({ days: 1 }),
  })
}

/** Routes that change what they name: each owner's case gets a row (or grant) of its own */
const CHANGING = [
  'agent_inbox.rows.reply',
  'agent_inbox.bulk',
  'agent_inbox.mail.confirm',
  'agent_inbox.grants.revoke',
  'agent_console.runs.retry',
  'agent_console.runs.cancel',
  'agent_console.rows.reassign',
  'agent_chat.messages',
]
/** The fields of a reply that go with an approval, not a question set */
const DECISION_FIELDS = ['approved', 'reason', 'editedInput', 'grant']

test.group(`Input gate | every package route | ${dbName()}`, (group) => {
  let server: ClusterProcess
  let baseUrl: string
  let listed: ListedRoute[]
  let agents: Agents
  const shared: {
    ask?: ToolCall
    action?: ToolCall
    run?: AgentRun
    grant?: Grant
    conversation?: AgentConversation
  } = {}

  group.setup(async () => {
    const testApp = await createTestApp({ agents: defineConfig({ agents: [rowsAgent()] }) })
    agents = await testApp.app.container.make('agents.runtime')
    server = startClusterProcess([], {}, GATE_APP)
    const ready = JSON.parse(await server.line((line) => line.startsWith('{"ready"')))
    baseUrl = `http://127.0.0.1:${ready.ready}`
    listed = (ready.routes as ListedRoute[]).filter(isPackageRoute)
    shared.ask = await createAskRow()
    shared.action = await createActionRow()
    shared.run = await createRun()
    shared.grant = await createGrant()
    shared.conversation = await AgentConversation.create({
      id: randomUUID(),
      agent: 'chatter',
      ownerId: 'user:1',
      headRunId: null,
      turns: 0,
    })
    return async () => {
      await server.kill('SIGTERM')
      await testApp.terminate()
    }
  })

  /** A signed mail link's path and query, made by the server */
  async function signed(id: unknown, qs: Record<string, unknown>) {
    const response = await fetch(`${baseUrl}/__gate/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, qs }),
    })
    const { url, error } = (await response.json()) as { url?: string; error?: string }
    if (!url) throw new Error(`Could not sign a link to ${JSON.stringify(id)}: ${error}`)
    const link = new URL(url, baseUrl)
    return `${link.pathname}${link.search}`
  }

  /** The valid request a case changes one input of */
  async function baseline(route: ListedRoute, identity: Identity, name: string) {
    const key = routeKey(route)
    const fresh = identity.who === 'owner' && CHANGING.includes(key)
    const revokes = key === 'agent_inbox.grants.revoke'
    const decision = DECISION_FIELDS.includes(name)
    const row =
      fresh && !revokes
        ? await (decision ? createActionRow() : createAskRow())
        : decision
          ? shared.action!
          : shared.ask!
    const reply = decision
      ? { approved: name !== 'reason', reason: 'not now' }
      : { answers: { db: ['mysql'] } }
    const uid = randomUUID()
    const person = identity.person ?? 'user:3'
    const grant = fresh && revokes ? await createGrant() : shared.grant!
    // The console's Retry and Cancel take a run of their own, failed or waiting
    const consoleRun =
      key === 'agent_console.runs.retry' || key === 'agent_console.runs.cancel'
        ? fresh
          ? await AgentRun.create({
              agent: 'deployer',
              ownerId: 'user:1',
              status: key.endsWith('retry') ? 'failed' : 'waiting',
              input: { task: 'ship' },
            })
          : shared.run!
        : null
    const ids: Record<string, string> = {
      'agent_inbox.runs.show': shared.run!.id,
      'agent_chat.show': shared.conversation!.id,
      // The owner writes to a new conversation each time; anyone else to the owner's
      'agent_chat.messages': fresh ? randomUUID() : shared.conversation!.id,
      'agent_inbox.grants.revoke': grant.id,
      ...(consoleRun && { [key]: consoleRun.id }),
    }
    const bases: Record<string, { query?: Record<string, string>; body?: object }> = {
      'agent_inbox.rows.reply': { body: { ...reply, digest: viewDigest(row) } },
      'agent_inbox.bulk': {
        body: { ...reply, rowIds: [row.id], digests: { [row.id]: viewDigest(row) } },
      },
      'agent_inbox.mail': { query: { person, action: 'confirm' } },
      'agent_inbox.mail.confirm': {
        query: { person, action: decision ? 'reject' : 'confirm' },
        body: { digest: viewDigest(row), reason: 'not now' },
      },
      'agent_console.rows.reassign': { body: { to: 'user:2' } },
      'agent_chat.messages': { body: { text: 'Hello', agent: 'chatter' } },
      'GET /__transmit/events': { query: { uid } },
      'POST /__transmit/subscribe': { body: { uid, channel: `agent_inbox/${person}` } },
      'POST /__transmit/unsubscribe': { body: { uid, channel: `agent_inbox/${person}` } },
    }
    return { id: ids[key] ?? row.id, query: bases[key]?.query ?? {}, body: bases[key]?.body }
  }

  /** Sends one case; the answer's status and body */
  async function send(request: Request): Promise<Answer> {
    const { route, identity, place, name, value } = request
    const base = await baseline(route, identity, name)
    const changed = (at: Place) => (place === at ? { name, value } : {})
    // Each route here has one param at most, `:id`
    const segment = place === 'param' ? pathSegment(value, base.id) : base.id
    let target = `${route.pattern.replace(':id', segment)}${queryString(base.query, changed('query'))}`
    // A mail link with a signature (a guest's has none): the case's id and query are what is signed
    if (ROUTE_INPUTS[routeKey(route)].signed && identity.person !== null) {
      const qs: Record<string, unknown> = { ...base.query }
      if (place === 'query') qs[name] = bodyValue(value, base.id)
      target = await signed(place === 'param' ? bodyValue(value, base.id) : base.id, qs)
    }
    const headers: Record<string, string> = { accept: 'application/json' }
    if (identity.person) headers['x-person'] = identity.person
    if (place === 'header') headers[name] = String(bodyValue(value, base.id))
    const method = route.methods.includes('POST') ? 'POST' : 'GET'
    let body: string | undefined
    if (method === 'POST') {
      const fields: Record<string, unknown> = { ...base.body }
      if (place === 'body') fields[name] = bodyValue(value, base.id)
      body = JSON.stringify(fields)
      headers['content-type'] = 'application/json'
    }
    const aborter = new AbortController()
    const response = await fetch(`${baseUrl}${target}`, {
      method,
      headers,
      body,
      signal: aborter.signal,
    })
    // An opened stream never ends: its status is all there is to read
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      aborter.abort()
      return { ...request, status: response.status, body: null }
    }
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // an HTML or empty answer: kept as text for the failure's message
    }
    return { ...request, status: response.status, body: parsed }
  }

  /** Every case: each input of each route, each value, each identity */
  function cases(): Request[] {
    const all: Request[] = []
    for (const route of listed) {
      const inputs = ROUTE_INPUTS[routeKey(route)]
      const slots: [Place, string][] = [
        ...paramsOf(route.pattern).map((name): [Place, string] => ['param', name]),
        ...(inputs.query ?? []).map((name): [Place, string] => ['query', name]),
        ...(inputs.body ?? []).map((name): [Place, string] => ['body', name]),
        ...(inputs.headers ?? []).map((name): [Place, string] => ['header', name]),
        [route.methods.includes('POST') ? 'body' : 'query', UNKNOWN],
      ]
      for (const [place, name] of slots) {
        for (const value of valuesFor(place)) {
          for (const identity of IDENTITIES) all.push({ route, identity, place, name, value })
        }
      }
    }
    return all
  }

  test('it walks every route the package registers, and knows what each reads', async ({
    assert,
  }) => {
    const keys = listed.map(routeKey).sort()
    assert.lengthOf(keys, PACKAGE_ROUTES, keys.join(', '))
    assert.deepEqual(keys, Object.keys(ROUTE_INPUTS).sort())
    // The walk puts a case's id in `:id`: a route with another param needs more of it
    assert.deepEqual([...new Set(listed.flatMap((route) => paramsOf(route.pattern)))], ['id'])
  })

  // About 3,000 requests, a chat turn among them: a bound against a wedge on a loaded machine
  test('no input of any package route is a 5xx; malformed ids, filters, replies and streams are refused as documented', async ({
    assert,
  }) => {
    const answers: Answer[] = []
    await inParallel(cases(), 6, async (request) => {
      answers.push(await send(request))
    })
    const label = (answer: Answer) =>
      `${answer.identity.who} ${routeKey(answer.route)} ${answer.place} ${answer.name}=${describe(answer.value)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`
    assert.isAbove(answers.length, 2000)
    assert.deepEqual(answers.filter((answer) => answer.status >= 500).map(label), [])
    const broken = answers.filter((answer) => {
      const promise = promised(answer)
      return promise !== null && !keeps(answer, promise)
    })
    assert.deepEqual(broken.map(label), [])
    // Not every case was refused: the walk reached the routes' work too
    assert.isAbove(answers.filter((answer) => answer.status < 300).length, 100)
  }).timeout(120_000)

  test('an id in capitals is no grant, run or row, on every database', async ({ assert }) => {
    const owner = { 'x-person': 'user:1', 'accept': 'application/json' }
    const post = (path: string, body: object) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { ...owner, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const row = await createActionRow()
    const run = await createRun()
    const grant = await createGrant()
    const ROW = row.id.toUpperCase()
    const digest = viewDigest(row)
    const statusOf = async (response: Response) => {
      const body = (await response.json()) as { errors?: { code: string }[] }
      return `${response.status} ${body.errors?.[0]?.code}`
    }

    const shown = await fetch(`${baseUrl}/inbox/rows/${ROW}`, { headers: owner })
    assert.equal(await statusOf(shown), '404 E_NOT_FOUND', 'row detail')
    const replied = await post(`/inbox/rows/${ROW}/reply`, { approved: true, digest })
    assert.equal(await statusOf(replied), '404 E_NOT_FOUND', 'settle')
    const bulk = await post('/inbox/bulk', {
      approved: true,
      rowIds: [ROW],
      digests: { [ROW]: digest },
    })
    const { results } = (await bulk.json()) as { results: any[] }
    assert.equal(results[0].error.errors[0].code, 'E_NOT_FOUND', 'bulk settle')
    const page = await fetch(`${baseUrl}/inbox/runs/${run.id.toUpperCase()}`, { headers: owner })
    assert.equal(await statusOf(page), '404 E_NOT_FOUND', 'run page')
    const revoked = await post(`/inbox/grants/${grant.id.toUpperCase()}/revoke`, {})
    assert.equal(await statusOf(revoked), '404 E_NOT_FOUND', 'revoke')
    // A mail link signed for the id in capitals opens nothing, and settles nothing
    const link = await signed(ROW, { person: 'user:1', action: 'approve' })
    const opened = await fetch(`${baseUrl}${link}`)
    assert.notEqual(opened.status, 200)
    const confirmed = await post(link, { digest })
    assert.notEqual(confirmed.status, 200)

    // The runtime's own lookups by id, which an app's routes (and agents:audit) may call
    assert.isNull(await agents.run(run.id.toUpperCase()))
    assert.isNull(await agents.inbox.find(ROW))
    await assert.rejects(() => agents.cancel(run.id.toUpperCase()), /No run/)
    await appendEvents([{ type: 'created', runId: run.id, rowId: row.id, actor: 'user:1' }])
    assert.lengthOf(await runEvents(run.id), 1)
    assert.deepEqual(await runEvents(run.id.toUpperCase()), [])
    assert.deepEqual(await rowEvents(ROW), [])

    // Nothing was settled, revoked or cancelled; the ids as written still name them
    const [untouched, live, going] = await Promise.all([
      ToolCall.findOrFail(row.id),
      Grant.findOrFail(grant.id),
      AgentRun.findOrFail(run.id),
    ])
    assert.equal(untouched.status, 'pending')
    assert.isNull(live.revokedAt)
    assert.notEqual(going.status, 'cancelled')
    const own = await fetch(`${baseUrl}/inbox/rows/${row.id}`, { headers: owner })
    assert.equal(own.status, 200)
  })
})
