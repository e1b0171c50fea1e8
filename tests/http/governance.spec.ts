/*
 * Governance over real HTTP (docs/design.md §11): 20 concurrent votes on a
 * 3-of-5 approval settle it exactly once and the votes after it get 409; a
 * forged or stale reply (no digest, another digest, args changed after
 * they were shown, a vote from outside the set, the excluded requester) is
 * refused with its code and nothing runs; a grant is remembered from the
 * reply route, listed and revoked; the run page carries the audit log.
 */

import { test } from '@japa/runner'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { callsInput, FINANCE, governedAgent, governedTools } from '../helpers/governance.ts'
import { defineConfig } from '../../src/define_config.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Approver } from '../../src/persistence/models/approver.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { runEvents } from '../../src/inbox/audit_log.ts'
import type { Agents } from '../../src/runtime/agents.ts'

const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })
const tools = governedTools()

test.group(`Governance | HTTP | ${dbName()}`, (group) => {
  let agents: Agents
  let baseUrl: string

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [governedAgent(tools)],
        approvals: { resolveRole: (role) => (role === 'finance' ? FINANCE : []) },
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
    })
    agents = await httpApp.app.container.make('agents.runtime')
    baseUrl = httpApp.baseUrl
    return () => httpApp.terminate()
  })

  group.each.setup(async () => {
    tools.refunds.length = 0
    tools.reads.length = 0
  })

  async function pendingOf(...calls: [string, unknown][]) {
    const run = await agents.start('governed', { input: callsInput(...calls), owner: 'ada' })
    await agents.idle()
    const row = await ToolCall.query()
      .where('run_id', run.id)
      .where('status', 'pending')
      .firstOrFail()
    return { run, row }
  }

  async function post(rowId: string, who: string, body: object) {
    const response = await fetch(`${baseUrl}/inbox/rows/${rowId}/reply`, {
      method: 'POST',
      headers: { ...person(who), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  test('20 concurrent votes on a 3-of-5 approval: one settlement, 409 for the votes after it', async ({
    assert,
  }) => {
    const { run, row } = await pendingOf(['refund', { amount: 300 }])
    const digest = viewDigest(row)
    const voters = ['f1', 'f2', 'f3', 'f4', 'f5']
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        post(row.id, voters[index % 5], { approved: true, digest })
      )
    )
    const statuses = answers.map((answer) => answer.status)
    const settling = answers.filter((answer) => answer.body.row?.status === 'approved')
    assert.lengthOf(settling, 1, JSON.stringify(statuses))
    assert.equal(settling[0].body.row.quorum.approvals, 3)
    // Two votes counted before the settling one; everything after it is a conflict
    assert.lengthOf(
      answers.filter((answer) => answer.status === 200),
      3
    )
    assert.lengthOf(
      answers.filter((answer) => answer.status === 409),
      17
    )
    for (const answer of answers.filter((item) => item.status === 409)) {
      assert.oneOf(answer.body.errors[0].code, ['E_ALREADY_SETTLED', 'E_ALREADY_VOTED'])
    }
    await agents.idle()
    assert.deepEqual(tools.refunds, [300])
    const events = await runEvents(run.id)
    const logged = events.map((event) => event.type)
    assert.equal(logged.filter((type) => type === 'voted').length, 3)
    assert.equal(logged.filter((type) => type === 'settled').length, 1)
    assert.equal(logged.filter((type) => type === 'executed').length, 1)

    // Settled, its card still counts the votes: on the row, the run page and the history
    const shown = await fetch(`${baseUrl}/inbox/rows/${row.id}`, { headers: person('ada') })
    assert.deepInclude(((await shown.json()) as any).row.quorum, { approvals: 3, needed: 3 })
    const page = await fetch(`${baseUrl}/inbox/runs/${run.id}`, { headers: person('ada') })
    const { timeline } = (await page.json()) as any
    const entry = timeline.entries.find((item: any) => item.row?.id === row.id)
    assert.deepInclude(entry.row.quorum, { approvals: 3, needed: 3 })
    assert.lengthOf(entry.row.quorum.votes, 3)
  })

  test('forged and stale replies are refused with their codes, and nothing runs', async ({
    assert,
  }) => {
    const { row } = await pendingOf(['refund', { amount: 300 }])
    const digest = viewDigest(row)

    const blind = await post(row.id, 'f1', { approved: true })
    assert.equal(blind.status, 422)
    assert.equal(blind.body.errors[0].field, 'digest')
    const forged = await post(row.id, 'f1', { approved: true, digest: 'f'.repeat(64) })
    assert.equal(forged.status, 409)
    assert.equal(forged.body.errors[0].code, 'E_STALE_VIEW')
    const requester = await post(row.id, 'ada', { approved: true, digest })
    assert.equal(requester.status, 403)
    assert.equal(requester.body.errors[0].code, 'E_REQUESTER_EXCLUDED')
    // Outside the set and not allowed to see the row: the door says no
    const stranger = await post(row.id, 'mallory', { approved: true, digest })
    assert.equal(stranger.status, 403)
    assert.equal(stranger.body.errors[0].code, 'E_FORBIDDEN')

    // ada owns the run, so she sees the read approval; an approver of nothing here
    const { row: logs } = await pendingOf(['read_logs', { service: 'api' }])
    const shown = viewDigest(logs)
    await ToolCall.query()
      .where('id', logs.id)
      .update({ request: JSON.stringify({ ...logs.request, args: { service: 'payments' } }) })
    const changed = await post(logs.id, 'ada', { approved: true, digest: shown })
    assert.equal(changed.status, 409)
    assert.equal(changed.body.errors[0].code, 'E_STALE_VIEW')

    for (const id of [row.id, logs.id]) {
      const fresh = await ToolCall.findOrFail(id)
      assert.equal(fresh.status, 'pending')
    }
    await agents.idle()
    assert.deepEqual(tools.refunds, [])
    assert.deepEqual(tools.reads, [])
  })

  test('a vote from an authorized person outside the approver set is E_NOT_AN_APPROVER', async ({
    assert,
  }) => {
    // ada may see the row (she owns the run); the quorum below does not exclude her, nor name her
    const { row } = await pendingOf(['refund', { amount: 300 }])
    await ToolCall.query()
      .where('id', row.id)
      .update({
        request: JSON.stringify({
          ...row.request,
          approval: { ...row.request.approval, excludeRequester: false },
        }),
      })
    const fresh = await ToolCall.findOrFail(row.id)
    const answer = await post(row.id, 'ada', { approved: true, digest: viewDigest(fresh) })
    assert.equal(answer.status, 403)
    assert.equal(answer.body.errors[0].code, 'E_NOT_AN_APPROVER')
    const untouched = await ToolCall.findOrFail(row.id)
    assert.equal(untouched.status, 'pending')
  })

  test('a named approver whose approver record is missing is refused E_NOT_AN_APPROVER, not a 500', async ({
    assert,
  }) => {
    const { row } = await pendingOf(['refund', { amount: 300 }])
    const named = await Approver.query().where('row_id', row.id).firstOrFail()
    // A write that never was: the quorum names them, no record holds their vote
    await Approver.query().where('row_id', row.id).where('person_id', named.personId).delete()
    const fresh = await ToolCall.findOrFail(row.id)
    const answer = await post(row.id, named.personId, { approved: true, digest: viewDigest(fresh) })
    assert.equal(answer.status, 403)
    assert.equal(answer.body.errors[0].code, 'E_NOT_AN_APPROVER')
    const untouched = await ToolCall.findOrFail(row.id)
    assert.equal(untouched.status, 'pending')
  })

  test('an approver pages through the rows waiting for their vote, beside their own', async ({
    assert,
  }) => {
    const first = await pendingOf(['refund', { amount: 300 }])
    const own = await agents.start('governed', {
      input: callsInput(['read_logs', { service: 'api' }]),
      owner: 'f2',
    })
    await agents.idle()
    const second = await pendingOf(['refund', { amount: 400 }])
    const third = await pendingOf(['refund', { amount: 500 }])
    const ownRow = await ToolCall.query().where('run_id', own.id).firstOrFail()

    const pages: string[][] = []
    let cursor: string | null = null
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const response = await fetch(`${baseUrl}/inbox?limit=2${query}`, { headers: person('f2') })
      const listing = (await response.json()) as any
      pages.push(listing.groups.flatMap((item: any) => item.rows.map((card: any) => card.id)))
      cursor = listing.next
    } while (cursor && pages.length < 50)
    const listed = pages.flat()
    assert.isTrue(
      pages.every((page) => page.length <= 2),
      'no page is over its limit'
    )
    // Every pending row f2 owns or may vote on, each once, oldest first (earlier tests' too)
    const expected = await ToolCall.query()
      .where('status', 'pending')
      .where((query) =>
        query
          .where('owner_id', 'f2')
          .orWhereIn('id', (voters) =>
            voters.from('agent_approvers').select('row_id').where('person_id', 'f2')
          )
      )
      .orderBy('created_at')
      .orderBy('id')
    assert.deepEqual(
      listed,
      expected.map((row) => row.id)
    )
    // Theirs to vote on, and their own
    for (const id of [first.row.id, ownRow.id, second.row.id, third.row.id])
      assert.include(listed, id)
  })

  test('the inbox shows approvers their votes; a grant is remembered, listed and revoked', async ({
    assert,
  }) => {
    const { row } = await pendingOf(['refund', { amount: 300 }])
    await post(row.id, 'f1', { approved: true, digest: viewDigest(row) })
    const inbox = await fetch(`${baseUrl}/inbox`, { headers: person('f2') })
    const listing = (await inbox.json()) as any
    const card = listing.groups.flatMap((item: any) => item.rows).find((c: any) => c.id === row.id)
    assert.deepInclude(card.quorum, { approvals: 1, needed: 3 })
    assert.deepEqual(card.quorum.votes, [{ personId: 'f1', stage: 0, vote: 'approve' }])

    const { run, row: logs } = await pendingOf(
      ['read_logs', { service: 'api' }],
      ['read_logs', { service: 'web' }]
    )
    const ada = await fetch(`${baseUrl}/inbox`, { headers: person('ada') })
    const offered = ((await ada.json()) as any).groups
      .flatMap((item: any) => item.rows)
      .find((c: any) => c.id === logs.id).grants
    assert.deepEqual(
      offered.map((option: any) => option.label),
      [
        'Approve and allow read_logs for this run',
        'Approve and allow read_logs for me for 24 h',
        'Approve and allow read_logs with this service for me',
      ]
    )
    const approved = await post(logs.id, 'ada', {
      approved: true,
      grant: 'run',
      digest: viewDigest(logs),
    })
    assert.equal(approved.status, 200)
    await agents.idle()
    assert.deepEqual(tools.reads, ['api', 'web'])

    const listed = await fetch(`${baseUrl}/inbox/grants`, { headers: person('ada') })
    const { grants } = (await listed.json()) as any
    assert.lengthOf(grants, 1)
    assert.equal(grants[0].runId, run.id)
    const other = await fetch(`${baseUrl}/inbox/grants/${grants[0].id}/revoke`, {
      method: 'POST',
      headers: person('f1'),
    })
    assert.equal(other.status, 404, 'only its own person revokes a grant')
    const revoked = await fetch(`${baseUrl}/inbox/grants/${grants[0].id}/revoke`, {
      method: 'POST',
      headers: person('ada'),
    })
    assert.equal(revoked.status, 200)
    const after = await fetch(`${baseUrl}/inbox/grants`, { headers: person('ada') })
    assert.lengthOf(((await after.json()) as any).grants, 0)

    // The run page's timeline carries each call's audit entries
    const page = await fetch(`${baseUrl}/inbox/runs/${run.id}`, { headers: person('ada') })
    const { timeline } = (await page.json()) as any
    const calls = timeline.entries.filter((entry: any) => entry.type === 'call')
    assert.deepEqual(
      calls[0].audit.map((line: any) => line.type),
      ['created', 'settled', 'granted', 'executed', 'revoked']
    )
    assert.deepEqual(
      calls[1].audit.map((line: any) => line.type),
      ['policy-decided', 'executed']
    )
    assert.equal(calls[0].audit[1].actor, 'ada')
    assert.equal(calls[0].audit[1].channel, 'api')
  })

  test('a grant id that is not a UUID is a 404 before any query (a NUL byte is one)', async ({
    assert,
  }) => {
    const { row: logs } = await pendingOf(['read_logs', { service: 'api' }])
    await post(logs.id, 'ada', { approved: true, grant: 'person', digest: viewDigest(logs) })
    await agents.idle()
    const listed = await fetch(`${baseUrl}/inbox/grants`, { headers: person('ada') })
    const [grant] = ((await listed.json()) as any).grants
    // PostgreSQL refuses a NUL byte in text with an error, which was a 500 here
    for (const id of ['%00', `${grant.id}%00`, 'x'.repeat(5000), grant.id.toUpperCase()]) {
      const response = await fetch(`${baseUrl}/inbox/grants/${id}/revoke`, {
        method: 'POST',
        headers: person('ada'),
      })
      assert.equal(response.status, 404, id.slice(0, 40))
      assert.equal(((await response.json()) as any).errors[0].code, 'E_NOT_FOUND')
    }
    const after = await fetch(`${baseUrl}/inbox/grants`, { headers: person('ada') })
    assert.lengthOf(((await after.json()) as any).grants, 1, 'the grant is still live')
  })
})
