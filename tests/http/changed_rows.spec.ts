/*
 * Rows that changed since they were asked, over real HTTP
 * (docs/guides/deploying_while_runs_wait.md#what-the-inbox-shows). Runs
 * start on deploy A (a runtime in this process) and wait; the HTTP app is
 * deploy B, on the same database, with the agents changed: a tool removed,
 * a tool's input schema changed, a policy that denies a tool (a freeze), a
 * policy that throws, an agent removed. The cards of the inbox, the row
 * detail and the run page say what changed, and the settle agrees: each
 * refused approval has its own code and settles nothing (but the freeze,
 * which rejects the row by the policy), a rejection still reaches the
 * model, and an edit in the new schema runs.
 */

import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import type { SchemaTypes } from '@vinejs/vine/types'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { call, createAgents, rowsOf, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool, type ToolDefinition } from '../../src/runtime/define_tool.ts'
import { policy, type Policy } from '../../src/governance/policy.ts'
import type { AgentRun } from '../../src/persistence/models/agent_run.ts'
import type { Agents } from '../../src/runtime/agents.ts'

type Ran = { tool: string; args: unknown }[]

/** One model for every run: its input names the tool to call and the args */
const model = scriptedModel(
  [
    ({ input }) => {
      const { tool, args } = JSON.parse(input) as { tool: string; args: unknown }
      return [call('c1', tool, args)]
    },
    ({ results }) => [say(results.map((result) => result.value).join('\n'))],
  ],
  { by: 'turn' }
)

function action(name: string, ran: Ran, input: SchemaTypes, more: { policy?: Policy } = {}) {
  return defineTool({
    name,
    description: `The ${name} action`,
    kind: 'action',
    input,
    ...more,
    handle: async (args: unknown) => {
      ran.push({ tool: name, args })
      return `${name} ran`
    },
  })
}

const BRANCH = () => vine.object({ branch: vine.string(), env: vine.string().optional() })
const REF = () => vine.object({ ref: vine.string(), env: vine.string().optional() })
const FREEZE = 'Deploys are frozen until Monday'

/** Deploy A's agents: every tool as the rows were asked */
function deployA(ran: Ran) {
  const tools = ['deploy', 'retire', 'migrate', 'restart', 'keep'].map((name) =>
    action(name, ran, name === 'deploy' ? BRANCH() : vine.object({ target: vine.string() }))
  )
  // Two of bob and cy approve a payout
  const quorum = () => policy.ask({ approvers: ['bob', 'cy'], quorum: 2 })
  tools.push(action('payout', ran, vine.object({ target: vine.string() }), { policy: quorum }))
  return [
    defineAgent({ name: 'ops', model, instructions: 'Operate.', tools }),
    defineAgent({ name: 'ghost', model, instructions: 'Haunt.', tools: [tools[4]] }),
  ]
}

/** Deploy B's: `retire` removed, `deploy` takes a required `ref`, `migrate` and `payout` (a quorum's) frozen, `restart`'s policy throws, `ghost` gone */
function deployB(ran: Ran, calls: Record<string, number>): ToolDefinition[] {
  const counted = (name: string, verdict: () => ReturnType<Policy>): Policy => {
    return () => {
      calls[name] = (calls[name] ?? 0) + 1
      return verdict()
    }
  }
  return [
    action('deploy', ran, REF()),
    action('migrate', ran, vine.object({ target: vine.string() }), {
      policy: counted('migrate', () => policy.deny(FREEZE, 'freeze')),
    }),
    action('restart', ran, vine.object({ target: vine.string() }), {
      policy: counted('restart', () => {
        throw new Error('the policy service is down')
      }),
    }),
    action('keep', ran, vine.object({ target: vine.string() })),
    action('payout', ran, vine.object({ target: vine.string() }), {
      policy: () => policy.deny(FREEZE, 'freeze'),
    }),
  ]
}

const JSON_HEADERS = { 'x-person': 'ada', 'accept': 'application/json' }

test.group(`Changed rows | HTTP | ${dbName()}`, (group) => {
  const ranA: Ran = []
  const ranB: Ran = []
  const policyCalls: Record<string, number> = {}
  let a: Agents
  let b: Agents
  let baseUrl: string

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'ops',
            model,
            instructions: 'Operate.',
            tools: deployB(ranB, policyCalls),
          }),
        ],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
    })
    b = await httpApp.app.container.make('agents.runtime')
    a = createAgents({ agents: deployA(ranA) })
    baseUrl = httpApp.baseUrl
    return () => httpApp.terminate()
  })

  /** A run started on deploy A, waiting on its approval; returns the run and the row */
  async function waitingOnA(agent: string, tool: string, args: unknown) {
    const run = await a.start(agent, { input: JSON.stringify({ tool, args }), owner: 'ada' })
    await a.idle()
    const [row] = await rowsOf(run.id)
    if (row?.status !== 'pending') throw new Error(`run ${run.id} should wait on a row`)
    return { run, row }
  }

  async function get(path: string, person = 'ada') {
    const response = await fetch(`${baseUrl}${path}`, {
      headers: { ...JSON_HEADERS, 'x-person': person },
    })
    return (await response.json()) as any
  }

  async function reply(rowId: string, body: object, person = 'ada') {
    const { row } = await get(`/inbox/rows/${rowId}`, person)
    const response = await fetch(`${baseUrl}/inbox/rows/${rowId}/reply`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'x-person': person, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, digest: row.digest }),
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  /** What the run's model read last: the fixture model repeats the tool results */
  async function finished(run: AgentRun) {
    await b.idle()
    await run.refresh()
    return { status: run.status, text: (run.result as { text?: string } | null)?.text ?? '' }
  }

  test('the inbox, the row and the run page say what changed; unchanged rows say nothing', async ({
    assert,
  }) => {
    const removed = await waitingOnA('ops', 'retire', { target: 'api' })
    const schema = await waitingOnA('ops', 'deploy', { branch: 'main', env: 'prod' })
    const frozen = await waitingOnA('ops', 'migrate', { target: 'db' })
    const failing = await waitingOnA('ops', 'restart', { target: 'api' })
    const kept = await waitingOnA('ops', 'keep', { target: 'api' })
    const ghost = await waitingOnA('ghost', 'keep', { target: 'api' })

    const before = { ...policyCalls }
    const { groups } = await get('/inbox?limit=50')
    // The policies in force were asked once per row for the whole page
    assert.equal(policyCalls.migrate - (before.migrate ?? 0), 1)
    assert.equal(policyCalls.restart - (before.restart ?? 0), 1)
    const cards = new Map(
      groups.flatMap((item: any) => item.rows).map((card: any) => [card.id, card])
    )
    const changedOf = (row: { id: string }) => (cards.get(row.id) as any)?.changed

    assert.deepEqual(changedOf(removed.row), { kind: 'tool-removed' })
    assert.deepEqual(changedOf(frozen.row), {
      kind: 'policy-denies',
      reason: FREEZE,
      rule: 'freeze',
    })
    assert.deepEqual(changedOf(failing.row), { kind: 'policy-failed' })
    assert.deepEqual(changedOf(ghost.row), { kind: 'agent-removed', agent: 'ghost' })
    assert.isUndefined(changedOf(kept.row))
    assert.notProperty(cards.get(kept.row.id), 'changed')
    const changed = changedOf(schema.row)
    assert.equal(changed.kind, 'schema-changed')
    assert.deepEqual(changed.prefill, { env: 'prod' })
    assert.deepEqual(changed.schema.required, ['ref'])
    assert.deepEqual(
      changed.issues.map((issue: any) => issue.path),
      ['ref']
    )
    // The card's edit form is the tool's current schema
    assert.deepEqual((cards.get(schema.row.id) as any).action.schema, changed.schema)

    // The row's detail and its run's page say the same
    const detail = await get(`/inbox/rows/${frozen.row.id}`)
    assert.deepEqual(detail.row.changed, changedOf(frozen.row))
    assert.deepEqual(
      detail.rows.find((card: any) => card.id === frozen.row.id).changed,
      changedOf(frozen.row)
    )
    const { timeline } = await get(`/inbox/runs/${schema.run.id}`)
    const entry = timeline.entries.find((item: any) => item.row?.id === schema.row.id)
    assert.deepEqual(entry.row.changed, changed)

    for (const waiting of [removed, schema, frozen, failing, kept, ghost])
      await a.cancel(waiting.run.id)
  })

  test('a removed tool, a policy that throws: approve is refused with its code and settles nothing; reject reaches the model with its reason', async ({
    assert,
  }) => {
    for (const [tool, status, code] of [
      ['retire', 409, 'E_TOOL_REMOVED'],
      ['restart', 503, 'E_POLICY_FAILED'],
    ] as const) {
      const { run, row } = await waitingOnA('ops', tool, { target: 'api' })
      const approve = await reply(row.id, { approved: true })
      assert.equal(approve.status, status, tool)
      assert.equal(approve.body.errors[0].code, code, tool)
      await row.refresh()
      assert.equal(row.status, 'pending', tool)

      const reject = await reply(row.id, { approved: false, reason: `No ${tool} today` })
      assert.equal(reject.status, 200, tool)
      const finish = await finished(run)
      assert.equal(finish.status, 'completed', tool)
      assert.include(finish.text, `The person rejected the call to "${tool}"`, tool)
      assert.include(finish.text, `No ${tool} today`, tool)
    }
    assert.deepEqual([...ranA, ...ranB], [])
  })

  test('a changed schema: approve without an edit is E_ARGS_OUTDATED with field errors; an edit in the new schema runs', async ({
    assert,
  }) => {
    const { run, row } = await waitingOnA('ops', 'deploy', { branch: 'main', env: 'prod' })
    const plain = await reply(row.id, { approved: true })
    assert.equal(plain.status, 422)
    assert.deepEqual(
      plain.body.errors.map((error: any) => [error.code, error.field]),
      [['E_ARGS_OUTDATED', 'editedInput.ref']]
    )
    await row.refresh()
    assert.equal(row.status, 'pending')
    // An edit the new schema refuses is refused as any edit is
    const wrong = await reply(row.id, { approved: true, editedInput: { branch: 'main' } })
    assert.equal(wrong.status, 422)
    assert.equal(wrong.body.errors[0].code, 'E_INVALID_REPLY')

    const edited = await reply(row.id, {
      approved: true,
      editedInput: { ref: 'main', env: 'prod' },
    })
    assert.equal(edited.status, 200)
    const { status } = await finished(run)
    assert.equal(status, 'completed')
    assert.deepEqual(ranB, [{ tool: 'deploy', args: { ref: 'main', env: 'prod' } }])
    await row.refresh()
    assert.equal(row.execution, 'succeeded')
    ranB.length = 0
  })

  test("a policy deployed later denies the tool (a freeze): approve is refused with E_DENIED_BY_POLICY and the row is rejected by the policy, a quorum's too", async ({
    assert,
  }) => {
    for (const [tool, person] of [
      ['migrate', 'ada'],
      ['payout', 'bob'],
    ] as const) {
      const { run, row } = await waitingOnA('ops', tool, { target: 'db' })
      const approve = await reply(row.id, { approved: true }, person)
      assert.equal(approve.status, 409, tool)
      assert.equal(approve.body.errors[0].code, 'E_DENIED_BY_POLICY', tool)
      assert.include(approve.body.errors[0].message, `Denied by policy: ${FREEZE}`, tool)

      const { status, text } = await finished(run)
      await row.refresh()
      assert.equal(row.status, 'rejected', tool)
      assert.equal(row.answeredVia, 'policy', tool)
      assert.isNull(row.answeredBy, tool)
      assert.equal(status, 'completed', tool)
      assert.include(
        text,
        `The "${tool}" call was refused by policy and did not run. Reason: ${FREEZE}`,
        tool
      )
      // A later reply meets the settled row
      const again = await reply(row.id, { approved: true }, person)
      assert.equal(again.status, 409, tool)
      assert.equal(again.body.errors[0].code, 'E_ALREADY_SETTLED', tool)
    }
    assert.deepEqual(ranB, [])
  })

  test('a removed agent: a reply closes the run (410 E_UNKNOWN_AGENT)', async ({ assert }) => {
    const { run, row } = await waitingOnA('ghost', 'keep', { target: 'api' })
    const answer = await reply(row.id, { approved: true })
    assert.equal(answer.status, 410)
    assert.equal(answer.body.errors[0].code, 'E_UNKNOWN_AGENT')
    await Promise.all([run.refresh(), row.refresh()])
    assert.equal(run.status, 'failed')
    assert.equal(row.status, 'cancelled')
    assert.deepEqual([...ranA, ...ranB], [])
  })
})
