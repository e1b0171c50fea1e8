/*
 * What an approver sees of a run that is not theirs (docs/design.md §11.6),
 * over real HTTP: a quorum's approver and a reassigned approver see the
 * row they decide (its args, its votes and audit), the agent, who asked
 * and the run's status — on the row detail, the run page, the history, the
 * rows settled lately and the inbox's watched runs alike — and never the
 * run's input (a distinctive string, looked for in every body) nor its
 * other rows; the agent's `approvers: { see: 'run' }` shows them the run;
 * the owner and an admin see all of it; a `by` filter names nobody the
 * rows shown do not. The live stream's side is in tests/http/live.spec.ts.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { FINANCE, governedTools, listedCallsModel } from '../helpers/governance.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { runSight, viewDigest } from '../../src/governance/view.ts'
import type { Agents } from '../../src/runtime/agents.ts'

/** In every run's input: no response to someone who may not read the run may hold it */
const SECRET = 'PRIVATE-INPUT-c0ffee-7f3a'

const NAMES: Record<string, string> = { ada: 'Ada Lovelace', f1: 'Fay One', grace: 'Grace H' }
const person = (name: string) => ({ 'x-person': name, 'accept': 'application/json' })
const tools = governedTools()

/** The governed agent's tools under another name, showing its approvers what `see` says */
function agent(name: string, approvers?: { see: 'rows' | 'run' }) {
  return defineAgent({
    name,
    instructions: 'Do what is asked.',
    tools: [tools.refund, tools.readLogs],
    model: listedCallsModel(),
    approvers,
    // An approval nobody decides within the hour goes to the on-call person
    expiry: { ttl: 24 * 3600_000, ladder: [{ after: '1h', reassign: '@oncall' }] },
  })
}

test.group(`What an approver sees | HTTP | ${dbName()}`, (group) => {
  let agents: Agents
  let baseUrl: string

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [agent('governed'), agent('open', { see: 'run' })],
        approvals: {
          resolveRole: (role) =>
            role === 'finance' ? FINANCE : role === 'oncall' ? ['grace'] : [],
        },
        inbox: {
          identify: (ctx) => ctx.request.header('x-person') ?? null,
          // An admin may settle (and so read) anything; everyone else their own rows
          authorize: (_ctx, row, who) => who === 'admin' || row.ownerId === who,
          displayName: (id) => NAMES[id] ?? id,
        },
      }),
    })
    agents = await httpApp.app.container.make('agents.runtime')
    baseUrl = httpApp.baseUrl
    return () => httpApp.terminate()
  })

  /** GET `path` as `who`: the status, the body as text and as JSON */
  async function get(path: string, who: string) {
    const response = await fetch(`${baseUrl}${path}`, { headers: person(who) })
    const text = await response.text()
    return { status: response.status, text, body: JSON.parse(text) as any }
  }

  async function statusOf(path: string, who: string) {
    const { status } = await get(path, who)
    return status
  }

  /** A run of `name` owned by ada: a refund under $50 (allowed), then the calls given */
  async function runOf(name: string, ...calls: [string, unknown][]) {
    const run = await agents.start(name, {
      input: { calls: [['refund', { amount: 20 }], ...calls], note: SECRET },
      owner: 'ada',
    })
    await agents.idle()
    const rows = await ToolCall.query().where('run_id', run.id).orderBy('sequence')
    const pending = rows.find((row) => row.status === 'pending')!
    const other = rows.find((row) => row.status !== 'pending')!
    return { run, row: pending, other }
  }

  async function vote(rowId: string, who: string, digest: string) {
    const response = await fetch(`${baseUrl}/inbox/rows/${rowId}/reply`, {
      method: 'POST',
      headers: { ...person(who), 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, digest }),
    })
    return response.status
  }

  test("a quorum's approver sees the row to decide, not the run's input: row detail, run page, history", async ({
    assert,
  }) => {
    const { run, row, other } = await runOf('governed', ['refund', { amount: 300 }])
    assert.equal(row.toolName, 'refund')

    // The owner sees the run whole, input included: the string is where it would leak
    const owners = await get(`/inbox/rows/${row.id}`, 'ada')
    assert.equal(owners.status, 200)
    assert.equal(owners.body.sight, 'run')
    assert.include(owners.text, SECRET)
    assert.include(
      owners.body.rows.map((card: any) => card.id),
      other.id
    )

    // The row detail: the row to decide, the agent, who asked, the status; nothing of the run
    const detail = await get(`/inbox/rows/${row.id}`, 'f1')
    assert.equal(detail.status, 200)
    assert.notInclude(detail.text, SECRET)
    assert.notInclude(detail.text, other.id)
    assert.equal(detail.body.sight, 'rows')
    assert.deepEqual(detail.body.row.action.args, { amount: 300 })
    assert.equal(detail.body.row.digest, viewDigest(row))
    assert.deepInclude(detail.body.row.quorum, { approvals: 0, needed: 3, requester: 'ada' })
    assert.deepInclude(detail.body.run, {
      id: run.id,
      agent: 'governed',
      status: 'waiting',
      ownerId: 'ada',
      result: null,
    })
    assert.equal(detail.body.people.ada, 'Ada Lovelace')
    assert.deepEqual(
      detail.body.rows.map((card: any) => card.id),
      [row.id]
    )
    assert.deepEqual(detail.body.journal, [])

    // The run page the inbox links to: the same row with its audit, not a 403
    const page = await get(`/inbox/runs/${run.id}`, 'f1')
    assert.equal(page.status, 200)
    assert.notInclude(page.text, SECRET)
    assert.notInclude(page.text, other.id)
    assert.equal(page.body.sight, 'rows')
    assert.deepEqual(
      page.body.timeline.entries.map((entry: any) => [entry.type, entry.row?.id]),
      [['call', row.id]]
    )
    assert.deepEqual(page.body.timeline.entries[0].args, { amount: 300 })
    assert.deepEqual(
      page.body.timeline.entries[0].audit.map((line: any) => line.type),
      ['policy-decided', 'created']
    )
    assert.deepInclude(page.body.timeline.run, { agent: 'governed', ownerId: 'ada' })
    assert.equal(page.body.people.ada, 'Ada Lovelace')

    // The inbox lists it for them, and carries nothing of the run either
    const inbox = await get('/inbox', 'f1')
    assert.include(inbox.text, row.id)
    assert.notInclude(inbox.text, SECRET)

    // Someone who decides nothing of it sees nothing of it
    assert.equal(await statusOf(`/inbox/rows/${row.id}`, 'mallory'), 403)
    assert.equal(await statusOf(`/inbox/runs/${run.id}`, 'mallory'), 403)

    // Decided: the run ends, and each view still shows f1 their row only
    for (const who of ['f1', 'f2', 'f3'])
      assert.equal(await vote(row.id, who, viewDigest(row)), 200)
    await agents.idle()
    const finished = await AgentRun.findOrFail(run.id)
    assert.equal(finished.status, 'completed')
    assert.deepEqual(tools.refunds.slice(-2), [20, 300])

    // The inbox page, watching the run of the card it settled, learns how the run went on
    const watching = async (who: string) => {
      const headers = { ...person(who), 'x-agent-inbox-runs': run.id }
      const response = await fetch(`${baseUrl}/inbox`, { headers })
      return response.text()
    }
    const watched = await watching('f1')
    assert.notInclude(watched, SECRET)
    assert.deepInclude(JSON.parse(watched).runs[run.id], { status: 'completed', ownerId: 'ada' })
    assert.deepEqual(JSON.parse(await watching('mallory')).runs, {})

    const ended = await get(`/inbox/runs/${run.id}`, 'f1')
    assert.equal(ended.status, 200)
    assert.notInclude(ended.text, SECRET)
    assert.notInclude(ended.text, other.id)
    assert.deepEqual(
      ended.body.timeline.entries.map((entry: any) => entry.type),
      ['call']
    )
    assert.equal(ended.body.timeline.run.status, 'completed')
    assert.deepEqual(
      ended.body.timeline.entries[0].audit.map((line: any) => line.type),
      ['policy-decided', 'created', 'voted', 'voted', 'voted', 'settled', 'executed']
    )
    assert.isNull(ended.body.timeline.entries[0].result)
    const settledDetail = await get(`/inbox/rows/${row.id}`, 'f1')
    assert.notInclude(settledDetail.text, SECRET)
    assert.equal(settledDetail.body.row.status, 'approved')

    // The rows settled lately, and the history: the rows they decided, never the run's others
    const lately = await get('/inbox/settled', 'f1')
    assert.include(
      lately.body.rows.map((card: any) => card.id),
      row.id
    )
    assert.notInclude(lately.text, other.id)
    assert.notInclude(lately.text, SECRET)

    const history = await get('/inbox/history', 'f1')
    assert.equal(history.status, 200)
    const listed = history.body.rows.map((item: any) => item.card.id)
    assert.include(listed, row.id)
    assert.notInclude(listed, other.id)
    assert.notInclude(history.text, SECRET)
    assert.equal(history.body.people.ada, 'Ada Lovelace')
    assert.equal(history.body.people.f3, 'f3')
  })

  test("a `by` filter names nobody the rows shown do not: another person's name stays unknown", async ({
    assert,
  }) => {
    const { row } = await runOf('governed', ['read_logs', { service: 'api' }])
    assert.equal(await vote(row.id, 'ada', viewDigest(row)), 200)

    // Ada settled rows mallory may not see: the filter finds none, and names nobody
    const stranger = await get('/inbox/history?by=ada', 'mallory')
    assert.equal(stranger.status, 200)
    assert.deepEqual(stranger.body.rows, [])
    assert.deepEqual(stranger.body.people, { mallory: 'mallory' })
    assert.notInclude(stranger.text, 'Ada Lovelace')

    // Her own history names her, through the rows it shows
    const own = await get('/inbox/history?by=ada', 'ada')
    assert.include(
      own.body.rows.map((item: any) => item.card.id),
      row.id
    )
    assert.equal(own.body.people.ada, 'Ada Lovelace')
  })

  test('a reassigned approver sees the row handed to them, not the run; an admin sees all of it', async ({
    assert,
  }) => {
    const { run, row, other } = await runOf('governed', ['read_logs', { service: 'api' }])
    assert.equal(await statusOf(`/inbox/rows/${row.id}`, 'grace'), 403)

    // Nobody decided within the hour: the ladder hands the row to the on-call person
    await agents.sweep({ now: DateTime.now().plus({ hours: 2 }), resume: false })
    const handed = await ToolCall.findOrFail(row.id)
    assert.deepEqual(handed.request.approval.stages, [{ approvers: ['grace'], quorum: 1 }])

    const detail = await get(`/inbox/rows/${row.id}`, 'grace')
    assert.equal(detail.status, 200)
    assert.equal(detail.body.sight, 'rows')
    assert.deepEqual(detail.body.row.action.args, { service: 'api' })
    assert.equal(detail.body.people.ada, 'Ada Lovelace')
    assert.notInclude(detail.text, SECRET)
    assert.notInclude(detail.text, other.id)

    const page = await get(`/inbox/runs/${run.id}`, 'grace')
    assert.equal(page.status, 200)
    assert.equal(page.body.sight, 'rows')
    assert.notInclude(page.text, SECRET)
    assert.deepEqual(
      page.body.timeline.entries.map((entry: any) => entry.row?.id),
      [row.id]
    )
    assert.include(
      page.body.timeline.entries[0].audit.map((line: any) => line.type),
      'reassigned'
    )

    assert.equal(await vote(handed.id, 'grace', viewDigest(handed)), 200)
    await agents.idle()
    const history = await get('/inbox/history', 'grace')
    assert.include(
      history.body.rows.map((item: any) => item.card.id),
      row.id
    )
    assert.notInclude(history.text, SECRET)
    assert.notInclude(history.text, other.id)

    // The admin the app's hooks let read every run keeps seeing it whole
    const admin = await get(`/inbox/runs/${run.id}`, 'admin')
    assert.equal(admin.status, 200)
    assert.equal(admin.body.sight, 'run')
    assert.include(admin.text, SECRET)
    assert.equal(admin.body.timeline.entries[0].type, 'input')
    const adminDetail = await get(`/inbox/rows/${row.id}`, 'admin')
    assert.equal(adminDetail.body.sight, 'run')
    assert.include(adminDetail.text, SECRET)
  })

  test("an agent's `approvers: { see: 'run' }` shows its approvers the whole run", async ({
    assert,
  }) => {
    const { run, row, other } = await runOf('open', ['refund', { amount: 300 }])

    const detail = await get(`/inbox/rows/${row.id}`, 'f1')
    assert.equal(detail.status, 200)
    assert.equal(detail.body.sight, 'run')
    assert.include(detail.text, SECRET)
    assert.include(
      detail.body.rows.map((card: any) => card.id),
      other.id
    )
    assert.isAbove(detail.body.journal.length, 0)

    const page = await get(`/inbox/runs/${run.id}`, 'f1')
    assert.equal(page.status, 200)
    assert.equal(page.body.sight, 'run')
    assert.include(page.text, SECRET)
    assert.equal(page.body.timeline.entries[0].type, 'input')

    // Still nothing for someone who decides none of its rows
    assert.equal(await statusOf(`/inbox/runs/${run.id}`, 'mallory'), 403)
  })
})

test.group('What an approver sees | the rule', () => {
  test('the whole run to whoever reads it, their rows to an approver unless the agent says run', ({
    assert,
  }) => {
    assert.equal(runSight({ readsRun: true, decidesRows: false }), 'run')
    assert.equal(runSight({ readsRun: true, decidesRows: true }, 'rows'), 'run')
    assert.equal(runSight({ readsRun: false, decidesRows: true }), 'rows')
    assert.equal(runSight({ readsRun: false, decidesRows: true }, 'run'), 'run')
    assert.isNull(runSight({ readsRun: false, decidesRows: false }, 'run'))

    assert.equal(agent('plain').approversSee, 'rows')
    assert.equal(agent('open', { see: 'run' }).approversSee, 'run')
    // A typo must not show a run's input to its approvers, nor hide the mistake
    assert.throws(
      () => agent('typo', { see: 'runs' as 'run' }),
      `Agent "typo": approvers.see must be 'rows' or 'run'`
    )
  })
})
