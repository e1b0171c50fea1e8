/*
 * The inbox's own life of a row: opening waits (for a run, answered from
 * memory, from outside the runtime, refused on an ended run) and listing
 * them a page at a time with a cursor, pending and settled.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { createAskRow, createRun, DEPLOY_QUESTIONS } from '../helpers/rows.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Inbox } from '../../src/inbox/inbox.ts'
import { settleQuestionSet } from '../../src/questions/settle.ts'
import type { AgentEvents } from '../../src/events.ts'

test.group(`Inbox open | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('open writes a pending row next in its run, spends budget once, emits created', async ({
    assert,
  }) => {
    const created: AgentEvents['agents:row:created'][] = []
    const inbox = new Inbox({ events: { emit: (_name, data) => void created.push(data as any) } })
    const run = await createRun()
    const expiresAt = DateTime.now().plus({ hours: 1 })

    const ask = await inbox.open(
      run,
      { kind: 'ask', set: DEPLOY_QUESTIONS, toolName: 'ask', toolCallId: 'call_1' },
      { expiresAt, onExpiry: 'reject', spendsBudget: true }
    )
    const approval = await inbox.open(run, {
      kind: 'action',
      toolName: 'deploy',
      toolCallId: 'call_2',
      args: { branch: 'main' },
      summary: 'Deploy main',
    })

    assert.deepEqual([ask.sequence, approval.sequence], [1, 2])
    assert.equal(ask.status, 'pending')
    assert.equal(ask.ownerId, 'user:1')
    assert.equal(ask.onExpiry, 'reject')
    const [askRow, approvalRow] = [
      await ToolCall.findOrFail(ask.id),
      await ToolCall.findOrFail(approval.id),
    ]
    assert.isNotNull(askRow.fingerprint)
    assert.isNull(askRow.argsHash)
    assert.isNotNull(approvalRow.argsHash)
    assert.equal(askRow.expiresAt?.toUnixInteger(), expiresAt.toUnixInteger())
    assert.deepEqual(approval.request, { args: { branch: 'main' }, summary: 'Deploy main' })
    const spent = await AgentRun.findOrFail(run.id)
    assert.equal(spent.askCount, 1)
    assert.deepEqual(
      created.map((event) => event.row.id),
      [ask.id, approval.id]
    )
  })

  test('a recalled outcome writes the row answered via memory, waiting for nobody', async ({
    assert,
  }) => {
    const created: unknown[] = []
    const inbox = new Inbox({ events: { emit: (_name, data) => void created.push(data) } })
    const run = await createRun()
    const recalled = settleQuestionSet(
      DEPLOY_QUESTIONS,
      { answers: { db: ['mysql'] } },
      { answeredBy: 'user:1', answeredVia: 'web' }
    )

    const row = await inbox.open(
      run,
      { kind: 'ask', set: DEPLOY_QUESTIONS },
      { recalled, spendsBudget: true }
    )
    assert.equal(row.status, 'answered')
    assert.equal(row.answeredVia, 'memory')
    assert.equal(row.answeredBy, 'user:1')
    assert.deepEqual(row.outcome, recalled)
    assert.lengthOf(created, 0)
    const unspent = await AgentRun.findOrFail(run.id)
    assert.equal(unspent.askCount, 0, 'memory spends no budget')
  })

  test('a wait from outside the runtime has no run and is settled like any row', async ({
    assert,
  }) => {
    const settled: ToolCall[] = []
    const inbox = new Inbox({ onSettled: (rows) => void settled.push(...rows) })
    const row = await inbox.open(
      { id: null, ownerId: 'user:7' },
      { kind: 'ask', set: DEPLOY_QUESTIONS, toolName: 'mcp:deploy-server' }
    )
    assert.isNull(row.runId)
    assert.equal(row.toolName, 'mcp:deploy-server')
    const pending = await inbox.pending('user:7')
    assert.deepEqual(
      pending.map((item) => item.id),
      [row.id]
    )

    const after = await inbox.settle(
      row.id,
      { answers: { db: ['sqlite'] } },
      { by: 'user:7', via: 'api' }
    )
    assert.equal(after.status, 'answered')
    assert.deepEqual(after.outcome?.kind === 'answers' && after.outcome.answers.db, ['sqlite'])
    assert.deepEqual(
      settled.map((item) => item.id),
      [row.id]
    )
  })

  test('opening a wait on a run that has ended raises E_ABORTED and writes nothing', async ({
    assert,
  }) => {
    const inbox = new Inbox()
    const run = await createRun()
    run.status = 'cancelled'
    await assert.rejects(
      () => inbox.open(run, { kind: 'ask', set: DEPLOY_QUESTIONS }),
      /has ended, so the wait was not opened/
    )
    await assert.rejects(async () => {
      try {
        await inbox.open(run, { kind: 'ask', set: DEPLOY_QUESTIONS })
      } catch (error) {
        assert.equal((error as { code?: string }).code, 'E_ABORTED')
        throw error
      }
    })
    assert.lengthOf(await ToolCall.query().where('run_id', run.id), 0)
  })
})

test.group(`Inbox list | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })
  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('pending rows come a page at a time, oldest first, each exactly once', async ({
    assert,
  }) => {
    const inbox = new Inbox()
    const start = DateTime.now().minus({ hours: 1 })
    const made: ToolCall[] = []
    // Pairs share a created_at (MySQL keeps whole seconds): the id breaks the tie
    for (let index = 0; index < 7; index++) {
      made.push(await createAskRow({ createdAt: start.plus({ minutes: Math.floor(index / 2) }) }))
    }
    await createAskRow({ ownerId: 'user:2' })
    await createAskRow({ status: 'answered', settledAt: DateTime.now() })

    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: Awaited<ReturnType<Inbox['list']>> = await inbox.list({
        status: 'pending',
        ownerId: 'user:1',
        limit: 3,
        cursor,
      })
      assert.isAtMost(page.rows.length, 3)
      seen.push(...page.rows.map((row) => row.id))
      cursor = page.next
      pages++
    } while (cursor && pages < 10)

    assert.equal(pages, 3)
    assert.sameMembers(
      seen,
      made.map((row) => row.id)
    )
    assert.lengthOf(new Set(seen), 7)
    const listed = await ToolCall.query().whereIn('id', seen)
    const at = new Map(listed.map((row) => [row.id, row.createdAt.toMillis()]))
    const order = seen.map((id) => at.get(id)!)
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b)
    )
  })

  test('a row settled between two pages hides nothing that follows it', async ({ assert }) => {
    const inbox = new Inbox()
    const start = DateTime.now().minus({ hours: 1 })
    const rows: ToolCall[] = []
    for (let index = 0; index < 4; index++) {
      rows.push(await createAskRow({ createdAt: start.plus({ minutes: index }) }))
    }
    const first = await inbox.list({ status: 'pending', ownerId: 'user:1', limit: 2 })
    await inbox.settle(first.rows[0].id, { answers: {}, skip: true }, { by: 'user:1', via: 'api' })
    const second = await inbox.list({
      status: 'pending',
      ownerId: 'user:1',
      limit: 2,
      cursor: first.next,
    })
    assert.deepEqual(
      second.rows.map((row) => row.id),
      [rows[2].id, rows[3].id]
    )
    assert.isNull(second.next)
  })

  test('settled rows come newest first, narrowed by the caller', async ({ assert }) => {
    const inbox = new Inbox()
    const now = DateTime.now()
    const old = await createAskRow({ status: 'answered', settledAt: now.minus({ hours: 2 }) })
    const recent = await createAskRow({ status: 'expired', settledAt: now.minus({ hours: 1 }) })
    await createAskRow({ status: 'answered', settledAt: now, ownerId: 'user:2' })
    await createAskRow()

    const page = await inbox.list({
      status: 'settled',
      narrow: (query) => void query.where('owner_id', 'user:1'),
      limit: 1,
    })
    assert.deepEqual(
      page.rows.map((row) => row.id),
      [recent.id]
    )
    const next = await inbox.list({
      status: 'settled',
      narrow: (query) => void query.where('owner_id', 'user:1'),
      cursor: page.next,
    })
    assert.deepEqual(
      next.rows.map((row) => row.id),
      [old.id]
    )
    assert.isNull(next.next)
  })

  test('owners compare exactly: neither case nor trailing spaces reach another inbox', async ({
    assert,
  }) => {
    const inbox = new Inbox()
    const own = await createAskRow({ ownerId: 'ada@example.com' })
    await createAskRow({ ownerId: 'Ada@Example.com' })
    await createAskRow({ ownerId: 'ada@example.com ' })

    const page = await inbox.list({ status: 'pending', ownerId: 'ada@example.com' })
    assert.deepEqual(
      page.rows.map((row) => row.id),
      [own.id]
    )
    const spaced = await inbox.list({ status: 'pending', ownerId: 'ada@example.com ' })
    assert.deepEqual(
      spaced.rows.map((row) => row.ownerId),
      ['ada@example.com ']
    )
    // The runs' and the answerers' columns compare the same way
    const runs = await AgentRun.query().where('owner_id', 'USER:1')
    assert.lengthOf(runs, 0)
    await inbox.settle(own.id, { answers: {}, skip: true }, { by: 'Ada@Example.com', via: 'api' })
    const byOther = await ToolCall.query().where('answered_by', 'ada@example.com')
    assert.lengthOf(byOther, 0)
  })

  test('a cursor the inbox did not give out is refused with E_INVALID_CURSOR', async ({
    assert,
  }) => {
    const inbox = new Inbox()
    const nulId = Buffer.from(JSON.stringify(['2020-01-01T00:00:00.000Z', '\u0000'])).toString(
      'base64url'
    )
    for (const cursor of ['nonsense', Buffer.from('[1,2]').toString('base64url'), '%%%', nulId]) {
      try {
        await inbox.list({ status: 'pending', cursor })
        assert.fail(`cursor ${cursor} was accepted`)
      } catch (error) {
        assert.equal((error as { code?: string }).code, 'E_INVALID_CURSOR')
        assert.equal((error as { status?: number }).status, 400)
      }
    }
  })
})
