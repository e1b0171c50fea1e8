/*
 * Fuzzing what a model sends (issue 16): runs whose model steps are a few
 * hundred generated tool-call steps (tests/helpers/fuzz_steps.ts), then a
 * final answer. Whatever the model sends, every run ends completed, failed
 * or cancelled, or waits on a pending row, which is then settled (defaults,
 * a skip, an approval, a rejection, now and then a cancel or an expiry by
 * each policy) until it ends;
 * no run is left running or waiting on nothing; no drive throws, no
 * promise is rejected unhandled; each action runs at most once. Seeded
 * (tests/helpers/fuzz.ts): FUZZ_SEED replays a failure, FUZZ_STEPS sets
 * the number of generated steps.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import vine from '@vinejs/vine'
import type { LanguageModelV4Content } from '@ai-sdk/provider'
import { createTestApp, dbName } from '../helpers/database.ts'
import { caseLabel, Fuzz, fuzzSeed, fuzzSize } from '../helpers/fuzz.ts'
import { fuzzStep } from '../helpers/fuzz_steps.ts'
import { createAgents, deployTools, noteTools, say, scriptedModel } from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { strandedRuns } from '../../src/runtime/stranded.ts'
import { type AgentRun, isFinished } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { InvalidReplyException } from '../../src/errors.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import type { Reply } from '../../src/questions/types.ts'

const STEPS = fuzzSize('FUZZ_STEPS', 500)
/** Rounds of settling before a run that still waits counts as wedged */
const ROUNDS = 40
const POLICIES = ['defaults', 'reject', 'cancel'] as const

/**
 * The agent under fuzz and what its tools did. Its model plays the script
 * of the run its first message names, one step per model call, then says
 * it is done; one model serves every run at once.
 */
function setup(scripts: LanguageModelV4Content[][][]) {
  const model = scriptedModel(
    ({ input, turn }) => scripts[JSON.parse(input).script][turn] ?? [say('done')],
    { by: 'turn' }
  )
  const notes: string[] = []
  const { deploy, readLogs, executions } = deployTools()
  const { note, look } = noteTools(notes)
  const boom = defineTool({
    name: 'boom',
    description: 'Always fails',
    kind: 'read',
    input: vine.object({ key: vine.string() }),
    handle: async () => {
      throw new Error('boom')
    },
  })
  const logged: unknown[] = []
  // One agent per expiry rule, so expired rows take every path
  const agents = createAgents({
    agents: POLICIES.map((onExpiry) =>
      defineAgent({
        name: `fuzzed-${onExpiry}`,
        model,
        instructions: 'Use your tools.',
        tools: [deploy, readLogs, note, look, boom],
        maxSteps: 8,
        expiry: { ttl: 3_600_000, onExpiry },
      })
    ),
    logger: { warn: () => {}, error: (bindings) => logged.push(bindings) },
  })
  return { agents, notes, executions, logged }
}

/**
 * A reply that settles a pending row: its defaults, a skip or a decision.
 * A question whose required answer has no default refuses the defaults
 * (422), and is skipped instead.
 */
function replyFor(fuzz: Fuzz, row: ToolCall): Reply[] {
  if (row.kind === 'action') {
    return [
      fuzz.pick<Reply>([
        { approved: true },
        { approved: false, reason: 'No' },
        { approved: true, editedInput: { branch: 'edited' } },
      ]),
    ]
  }
  const first = fuzz.pick<Reply>([{ answers: {} }, { approved: true }, { skip: true, answers: {} }])
  return [first, { skip: true, answers: {} }]
}

/** What a logged drive failure or rejection says, short */
function describe(value: unknown): string {
  const error = (value as { err?: unknown })?.err ?? value
  return error instanceof Error
    ? `${error.name}: ${error.message}`.slice(0, 400)
    : JSON.stringify(value)
}

test.group(`Runtime | model fuzz | ${dbName()}`, (group) => {
  const rejections: unknown[] = []
  const onRejection = (reason: unknown) => rejections.push(reason)

  group.setup(async () => {
    const testApp = await createTestApp()
    process.on('unhandledRejection', onRejection)
    return async () => {
      process.off('unhandledRejection', onRejection)
      await testApp.terminate()
    }
  })

  const seed = fuzzSeed()
  test(`${STEPS} malformed model steps: every run ends or waits on a row (FUZZ_SEED=${seed})`, async ({
    assert,
  }) => {
    const fuzz = new Fuzz(seed)
    const scripts: LanguageModelV4Content[][][] = []
    for (let steps = 0; steps < STEPS;) {
      const script = Array.from({ length: fuzz.int(1, 4) }, () => fuzzStep(fuzz))
      steps += script.length
      scripts.push(script)
    }
    const { agents, notes, executions, logged } = setup(scripts)

    const runs: AgentRun[] = []
    for (const [index] of scripts.entries()) {
      const owner = fuzz.chance(0.1) ? null : 'user:1'
      const parentRunId = runs.length > 0 && fuzz.chance(0.05) ? fuzz.pick(runs).id : undefined
      const agent = `fuzzed-${fuzz.pick(POLICIES)}`
      runs.push(await agents.start(agent, { input: { script: index }, owner, parentRunId }))
    }
    const label = (run: AgentRun, what: string) =>
      caseLabel(fuzz, runs.indexOf(run), {
        what,
        run: run.id,
        status: run.status,
        error: run.error?.slice(0, 200),
        script: scripts[runs.indexOf(run)],
      })

    for (let round = 0; ; round++) {
      await agents.idle()
      const stranded = await strandedRuns()
      const strandedIds = new Set(stranded.map((run) => run.id))
      for (const run of runs.filter((one) => strandedIds.has(one.id))) {
        await run.refresh()
        assert.fail(`${label(run, 'stranded')} ${logged.map(describe).join('; ')}`)
      }
      let open = 0
      let expired = false
      for (const run of runs) {
        await run.refresh()
        if (isFinished(run.status)) continue
        assert.equal(run.status, 'waiting', label(run, 'neither ended nor waiting'))
        const pending = await ToolCall.query().where('run_id', run.id).where('status', 'pending')
        assert.isAbove(pending.length, 0, label(run, 'waiting with nothing pending'))
        assert.isBelow(round, ROUNDS, label(run, 'still waiting after every round'))
        open++
        if (fuzz.chance(0.05)) {
          await agents.cancel(run.id)
          continue
        }
        if (fuzz.chance(0.08)) {
          // Its time ran out: the sweep below settles it by the agent's policy
          const past = DateTime.now().minus({ minutes: 1 })
          await ToolCall.query()
            .where('id', pending[0].id)
            .update(preparedColumns(pending[0], { expiresAt: past }))
          expired = true
          continue
        }
        for (const row of pending) {
          for (const reply of replyFor(fuzz, row)) {
            try {
              await agents.inbox.settle(row.id, reply, { by: 'user:1', via: 'api' })
              break
            } catch (error) {
              if (!(error instanceof InvalidReplyException)) throw error
            }
          }
        }
      }
      if (expired) await agents.sweep()
      if (open === 0) break
    }

    for (const run of runs) {
      assert.include(['completed', 'failed', 'cancelled'], run.status, label(run, 'did not end'))
      // The only failure a model's junk may cause is running out of steps
      if (run.status === 'failed') assert.equal(run.errorCode, 'E_MAX_STEPS', label(run, 'failed'))
    }
    assert.deepEqual(logged.map(describe), [], caseLabel(fuzz, 0, 'drives that threw'))
    assert.deepEqual(rejections, [], caseLabel(fuzz, 0, 'unhandled rejections'))
    const noted = await ToolCall.query().where('tool_name', 'note').where('execution', 'succeeded')
    assert.lengthOf(notes, noted.length, caseLabel(fuzz, 0, 'notes run other than once'))
    const deployed = await ToolCall.query()
      .where('tool_name', 'deploy')
      .where('execution', 'succeeded')
    assert.lengthOf(executions, deployed.length, caseLabel(fuzz, 0, 'deploys run other than once'))
  }).timeout(300_000)
})
