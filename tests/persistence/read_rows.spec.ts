/*
 * readRows, the listings' lean hydration, against Lucid's own: the same
 * row read both ways gives the same attributes, dates and JSON included,
 * on every database; its fast path for SQL date strings reads them as
 * Luxon's fromSQL does; and dates are written in the dialects' formats as
 * Luxon's toFormat writes them.
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { createTestApp, dbName } from '../helpers/database.ts'
import { DB_QUESTION } from '../helpers/runtime.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { formatDateTime, readRows } from '../../src/persistence/prepared_columns.ts'

/** Attributes comparable with deepEqual: dates as epoch milliseconds */
function comparable(row: ToolCall) {
  return Object.fromEntries(
    Object.entries(row.$attributes).map(([key, value]) => [
      key,
      DateTime.isDateTime(value) ? value.toMillis() : value,
    ])
  )
}

test.group(`readRows | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('a row read by readRows has the attributes Lucid reads', async ({ assert }) => {
    const run = await AgentRun.create({ agent: 'reader', ownerId: 'user:1', status: 'waiting' })
    const created = await ToolCall.create({
      runId: run.id,
      sequence: 1,
      attempt: 1,
      toolCallId: 'call_1',
      toolName: 'ask',
      kind: 'ask',
      status: 'answered',
      ownerId: 'user:1',
      request: DB_QUESTION,
      outcome: { kind: 'answers', answers: { db: ['pg'] } } as any,
      answeredBy: 'user:1',
      answeredVia: 'api',
      settledAt: DateTime.fromISO('2026-03-29T01:30:00.250Z'),
      expiresAt: DateTime.fromISO('2026-10-25T02:45:00Z'),
    })

    const lucid = await ToolCall.findOrFail(created.id)
    const [lean] = readRows(
      ToolCall,
      await ToolCall.query().where('id', created.id).pojo<Record<string, unknown>>()
    )
    assert.deepEqual(comparable(lean), comparable(lucid))
    assert.isTrue(DateTime.isDateTime(lean.createdAt))
    assert.deepEqual(lean.request, DB_QUESTION)
    assert.isTrue(lean.$isPersisted)

    // Persisted as Lucid's: it refreshes from its row (a self-assigned key is read from its originals)
    await ToolCall.query().where('id', created.id).update({ answered_by: 'user:2' })
    await lean.refresh()
    assert.equal(lean.answeredBy, 'user:2')
  })

  test('SQL date strings are read as fromSQL reads them, in {$self}')
    .with(['UTC', 'Europe/Lisbon', 'America/Sao_Paulo', 'Asia/Kolkata'])
    .run(({ assert }, zone) => {
      // The system zone (Luxon's default) the strings are read in; Lisbon's 2026-03-29 01:30 does not exist
      const saved = process.env.TZ
      process.env.TZ = zone
      try {
        const strings = [
          '2026-01-01 00:03:19',
          '2026-03-29 01:30:00',
          '2026-10-25 02:45:00.5',
          '2026-12-31 23:59:59.123456',
          '1969-12-31 23:59:59',
          '0099-06-15 12:00:00',
        ]
        for (const value of strings) {
          const [read] = readRows(ToolCall, [{ created_at: value }])
          assert.isTrue(DateTime.isDateTime(read.createdAt), value)
          assert.equal(read.createdAt.toMillis(), DateTime.fromSQL(value).toMillis(), value)
        }
      } finally {
        process.env.TZ = saved
      }
    })

  test('dates are written in each dialect format as toFormat writes them, in {$self}')
    .with(['UTC', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/New_York'])
    .run(({ assert }, zone) => {
      const formats = ['yyyy-MM-dd HH:mm:ss', "yyyy-MM-dd'T'HH:mm:ss.SSSZZ", 'yyyy-MM-dd']
      // Seeded, from year 0 to 2600: offsets in seconds before 1900, years of 3 digits, DST edges
      let seed = 17
      const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647
      for (let index = 0; index < 3000; index++) {
        const date = DateTime.fromMillis(Math.floor(-62e12 + next() * 82e12), { zone })
        for (const format of formats) {
          assert.equal(
            formatDateTime(date, format),
            date.toFormat(format),
            `${date.toISO()} ${format}`
          )
        }
      }
    })
})
