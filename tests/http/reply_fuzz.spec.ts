/*
 * Fuzzing the reply endpoint over real HTTP (issue 16): a few thousand
 * generated replies (valid answers, wrong types, lenient booleans, unknown
 * keys, huge and nested bodies, bad patterns, javascript: URLs, bad edits,
 * bad row ids, JSON, form and raw bodies) against a pool of rows pending at
 * once, from real runs, a few requests in flight at a time. Whatever is
 * sent: no response is a 5xx; a refused reply leaves its row as it was;
 * a row is settled only by a reply the API accepted, which is stored as
 * the bodyparser handed it over and passes the inbox's own rules; every
 * run ends. Seeded (tests/helpers/fuzz.ts): FUZZ_SEED replays a failure,
 * FUZZ_REPLIES sets the number of replies.
 */

import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { caseLabel, Fuzz, fuzzSeed, fuzzSize } from '../helpers/fuzz.ts'
import {
  approvalCase,
  badRowId,
  DEPLOY_ARGS,
  formEncode,
  FUZZ_SETS,
  questionCase,
  rawCase,
  serverView,
  type Case,
  type SlotKind,
} from '../helpers/fuzz_replies.ts'
import { call, deployTools, say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import type { Agents } from '../../src/runtime/agents.ts'
import { strandedRuns } from '../../src/runtime/stranded.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { checkAnswers, normalizeReply, parseReply } from '../../src/questions/reply.ts'
import type { QuestionOutcome } from '../../src/questions/types.ts'
import { viewDigest } from '../../src/governance/view.ts'

const REPLIES = fuzzSize('FUZZ_REPLIES', 3000)
/**
 * The pool: rows of runs (the model asks, or calls deploy), and waits
 * opened outside the runtime (no run to resume: cheaper, and a path of
 * their own)
 */
const SLOTS: { kind: SlotKind; runless?: true }[] = [
  { kind: 'ops' },
  { kind: 'mixed' },
  { kind: 'text' },
  { kind: 'deploy' },
  { kind: 'deploy' },
  { kind: 'free', runless: true },
  { kind: 'text', runless: true },
  { kind: 'ops', runless: true },
]
const FIELDS = ['answers', 'skip', 'approved', 'reason', 'editedInput']

/**
 * One model for every run: its first turn asks the set (or calls the
 * deploy action) its input names, its second says it is done.
 */
function poolModel() {
  return scriptedModel(
    ({ input, turn }) => {
      const want = JSON.parse(input).want as SlotKind
      if (turn > 0) return [say('done')]
      if (want === 'deploy') return [call('c1', 'deploy', DEPLOY_ARGS)]
      return [call('c1', 'ask', FUZZ_SETS[want])]
    },
    { by: 'turn' }
  )
}

type Slot = { kind: SlotKind; runless?: true; rowId: string | null; digest?: string }
/** A reply in flight: to the slot's row, or (`target`) another id or row */
type Sent = {
  slot: Slot
  rowId: string
  target: string
  case: Case
  path: string
  person: string
  /** The view the reply names (the slot row's digest, or a stale one) */
  digest: string
  /** Set once answered: the seed, the case and the response, for assertion messages */
  label?: string
}

/**
 * A body with the view its reply names: an object body carries the digest
 * as a page's would; anything else goes as generated.
 */
function withDigest(body: unknown, sent: Sent): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  return { ...body, digest: sent.digest }
}

/** What settling wrote on a row, to see that a later reply changes none of it */
function settlement(row: ToolCall): string {
  const { status, reply, outcome, answeredBy, answeredVia, settledAt } = row
  return JSON.stringify([status, reply, outcome, answeredBy, answeredVia, settledAt?.toMillis()])
}
type Answer = { status: number; body: any }

test.group(`HTTP | reply fuzz | ${dbName()}`, (group) => {
  let baseUrl: string
  let agents: Agents
  const { deploy, executions } = deployTools()

  group.setup(async () => {
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'fuzzer',
            model: poolModel(),
            instructions: 'Ask.',
            tools: [deploy],
          }),
        ],
        inbox: {
          identify: (ctx) => ctx.request.header('x-person') ?? null,
          authorize: (_ctx, row, who) => row.ownerId === who,
        },
      }),
    })
    baseUrl = httpApp.baseUrl
    agents = await httpApp.app.container.make('agents.runtime')
    return () => httpApp.terminate()
  })

  async function post(sent: Sent): Promise<Answer> {
    const { case: c } = sent
    const type = c.type ?? (c.form ? 'application/x-www-form-urlencoded' : 'application/json')
    const response = await fetch(`${baseUrl}${sent.path}`, {
      method: 'POST',
      headers: { 'accept': 'application/json', 'content-type': type, 'x-person': sent.person },
      body:
        c.raw ??
        (c.form ? formEncode(withDigest(c.body, sent)) : JSON.stringify(withDigest(c.body, sent))),
      // A reply the server never answers is a stall, and a finding: fail, do not hang
      signal: AbortSignal.timeout(20_000),
    })
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {}
    return { status: response.status, body }
  }

  /** Fills every empty slot with the pending row of a new run */
  async function refill(slots: Slot[]) {
    const empty = slots.filter((slot) => slot.rowId === null)
    const runs = new Map<string, Slot>()
    for (const slot of empty) {
      if (slot.runless && slot.kind !== 'deploy') {
        const set = FUZZ_SETS[slot.kind]
        const holder = { id: null, ownerId: 'user:1' }
        const row = await agents.inbox.open(holder, { kind: 'intake', set })
        slot.rowId = row.id
        slot.digest = viewDigest(row)
        continue
      }
      const run = await agents.start('fuzzer', { input: { want: slot.kind }, owner: 'user:1' })
      runs.set(run.id, slot)
    }
    if (runs.size === 0) return
    await agents.idle()
    const rows = await ToolCall.query()
      .whereIn('run_id', [...runs.keys()])
      .where('status', 'pending')
    for (const row of rows) {
      runs.get(row.runId!)!.rowId = row.id
      runs.get(row.runId!)!.digest = viewDigest(row)
    }
    if (empty.some((slot) => slot.rowId === null)) throw new Error('A pool run opened no row')
  }

  /**
   * What a settled row must show: the body the API accepted, as the
   * bodyparser handed it over, no field a reply does not have, and a reply
   * that passes the inbox's own rules; for tagged cases, the outcome it
   * asked for.
   */
  async function checkSettled(assert: Assert, label: string, sent: Sent, row: ToolCall) {
    const stored = row.reply as Record<string, unknown>
    assert.notEqual(row.status, 'pending', label)
    assert.equal(row.answeredBy, sent.person, label)
    assert.includeMembers(FIELDS, Object.keys(stored), label)
    if (!sent.case.form) assert.deepEqual(stored, serverView(sent.case.body) as object, label)

    const kind = sent.slot.kind
    const reply = normalizeReply(
      await parseReply(stored),
      kind === 'deploy' ? 'approval' : 'question'
    )
    if (kind === 'deploy') {
      assert.notProperty(reply, 'answers', label)
      assert.equal(
        row.status,
        (reply as { approved: boolean }).approved ? 'approved' : 'rejected',
        label
      )
      return
    }
    assert.equal(row.status, 'answered', label)
    assert.property(reply, 'answers', label)
    assert.deepEqual(checkAnswers(FUZZ_SETS[kind], reply as any), [], label)
    const outcome = row.outcome as QuestionOutcome
    if (sent.case.tag !== 'valid' || (reply as { skip?: boolean }).skip) return
    const answers = (serverView(sent.case.body) as { answers?: Record<string, unknown> }).answers
    for (const [id, value] of Object.entries(answers ?? {})) {
      const values = [...new Set(typeof value === 'string' ? [value] : (value as string[]))]
      if (values.some((one) => one.length > 2000)) continue
      assert.deepEqual(outcome.answers[id], values, `${label} (answers.${id})`)
    }
  }

  const seed = fuzzSeed()
  test(`${REPLIES} replies: no 5xx, nothing settled by a refused body, every run ends (FUZZ_SEED=${seed})`, async ({
    assert,
  }) => {
    const fuzz = new Fuzz(seed)
    const slots: Slot[] = SLOTS.map((slot) => ({ ...slot, rowId: null }))
    // Rows settled lately, by id: replies now and then go to one of them
    const settled = new Map<string, string>()
    let sentCount = 0
    await refill(slots)

    while (sentCount < REPLIES) {
      const batch: Sent[] = []
      const race = fuzz.chance(0.05)
      const live = slots.filter((slot) => slot.rowId !== null)
      for (const slot of fuzz.sample(live, race ? 1 : fuzz.int(1, 4))) {
        const rowId = slot.rowId!
        for (let copies = race ? fuzz.int(2, 3) : 1; copies > 0; copies--) {
          const c: Case = race
            ? { body: slot.kind === 'deploy' ? { approved: true } : { skip: true }, tag: 'valid' }
            : fuzz.chance(0.06)
              ? rawCase(fuzz, slot.kind === 'deploy')
              : slot.kind === 'deploy'
                ? approvalCase(fuzz)
                : questionCase(fuzz, slot.kind)
          const target = fuzz.weighted<[string, string]>([
            [race ? 1e9 : 90, () => [rowId, 'user:1']],
            [3, () => [rowId, fuzz.pick(['user:2', 'USER:1', 'user:10', 'u'.repeat(500)])]],
            [4, () => [badRowId(fuzz, rowId), 'user:1']],
            [3, () => [settled.size ? fuzz.pick([...settled.keys()]) : rowId, 'user:1']],
          ])
          const [id, person] = target
          // Now and then a reply made on another view of the row (E_STALE_VIEW)
          const stale = !race && fuzz.chance(0.03)
          const onSlot = id === rowId && person === 'user:1' && !stale
          const tag = onSlot ? c.tag : 'invalid'
          const path = `/inbox/rows/${id}/reply`
          const digest = stale ? '0'.repeat(64) : slot.digest!
          batch.push({ slot, rowId, target: id, case: { ...c, tag }, path, person, digest })
        }
      }

      const answers = await Promise.all(batch.map(post))
      const read = await ToolCall.query().whereIn(
        'id',
        batch.map((sent) => sent.rowId)
      )
      const rows = new Map(read.map((row) => [row.id, row]))
      const winners = new Map<string, Sent>()
      answers.forEach((answer, index) => {
        const sent = batch[index]
        const label = caseLabel(fuzz, sentCount + index, {
          status: answer.status,
          kind: sent.slot.kind,
          path: sent.path.slice(0, 80),
          person: sent.person.slice(0, 20),
          body: sent.case.raw?.slice(0, 80) ?? sent.case.body,
          form: sent.case.form,
          response: answer.body,
        })
        assert.isBelow(answer.status, 500, label)
        const ok = answer.status >= 200 && answer.status < 300
        if (sent.case.tag === 'invalid') assert.isFalse(ok, label)
        if (sent.case.tag === 'valid' && !race) assert.equal(answer.status, 200, label)
        if (ok) {
          assert.isFalse(winners.has(sent.rowId), `${label}: two replies settled one row`)
          winners.set(sent.rowId, sent)
        }
        sent.label = label
      })
      if (race) {
        assert.equal(winners.size, 1, caseLabel(fuzz, sentCount, 'a race without one winner'))
        assert.sameMembers(
          answers.map((answer) => answer.status).filter((status) => status !== 200),
          Array(answers.length - 1).fill(409),
          caseLabel(
            fuzz,
            sentCount,
            answers.map((answer) => answer.body)
          )
        )
      }

      for (const sent of batch) {
        const row = rows.get(sent.rowId)!
        const label = sent.label!
        const winner = winners.get(sent.rowId)
        if (winner) {
          if (winner === sent) await checkSettled(assert, label, sent, row)
          continue
        }
        assert.equal(row.status, 'pending', label)
        assert.isNull(row.reply, label)
        assert.isNull(row.outcome, label)
        assert.isNull(row.answeredBy, label)
        assert.isNull(row.settledAt, label)
      }
      const late = batch.filter((sent) => settled.has(sent.target))
      if (late.length > 0) {
        const again = await ToolCall.query().whereIn(
          'id',
          late.map((sent) => sent.target)
        )
        for (const row of again) {
          const label = late.find((sent) => sent.target === row.id)!.label!
          assert.equal(settlement(row), settled.get(row.id), `${label}: a settled row changed`)
        }
      }
      for (const [rowId, sent] of winners) {
        sent.slot.rowId = null
        settled.set(rowId, settlement(rows.get(rowId)!))
        if (settled.size > 20) settled.delete(settled.keys().next().value!)
      }
      sentCount += batch.length
      // Settled runs resume while the next replies go out; the pool is topped up now and then
      if (slots.filter((slot) => slot.rowId !== null).length < 4) await refill(slots)
    }

    await refill(slots)
    // Settle what is left, then every run must have ended, each approval run once
    for (const slot of slots) {
      const answer = await post({
        slot,
        rowId: slot.rowId!,
        target: slot.rowId!,
        case: { body: { approved: false }, tag: 'valid' },
        path: `/inbox/rows/${slot.rowId}/reply`,
        person: 'user:1',
        digest: slot.digest!,
      })
      assert.equal(answer.status, 200, caseLabel(fuzz, sentCount, answer.body))
    }
    await agents.idle()
    const unfinished = await AgentRun.query().whereNot('status', 'completed')
    assert.deepEqual(
      unfinished.map((run) => `${run.id} ${run.status} ${run.errorCode ?? ''}`),
      [],
      caseLabel(fuzz, sentCount, 'runs left unfinished')
    )
    assert.deepEqual(await strandedRuns(), [], caseLabel(fuzz, sentCount, 'stranded runs'))
    const approved = await ToolCall.query().where('kind', 'action').where('status', 'approved')
    assert.lengthOf(executions, approved.length, caseLabel(fuzz, sentCount, 'executions'))
  }).timeout(300_000)
})
