/*
 * What each query of the operator's console costs at size
 * (src/console/queries.ts): the tables are filled in the database itself
 * (one INSERT … SELECT over a generated series, a million rows in seconds),
 * then each query is timed and explained. The goal: each ≤ 50 ms at
 * 1,000,000 rows, read through an index (no full scan of a table).
 *
 * The rows: `rows` tool-call rows over a year up to now, four per run
 * (`rows / 4` runs); 60 % are reads that ran at once (`auto`), 2 % are
 * pending (spread over the year, so most are overdue), the rest settled
 * by one of 200 people (a tenth expired) between 0 and 60 minutes after
 * they opened. 1 % of runs failed, 2 % wait. A 14-day window then holds
 * ~38,000 rows at a million.
 */

import { performance } from 'node:perf_hooks'
import { DateTime } from 'luxon'
import type { Database } from '@adonisjs/lucid/database'
import { CONSOLE_QUERIES, consoleClient, type ConsolePlan } from '../src/console/queries.ts'
import { dayWindow } from '../src/console/figures.ts'
import { preparedColumns } from '../src/persistence/prepared_columns.ts'
import { ToolCall } from '../src/persistence/models/tool_call.ts'
import { analyzeTables, planOf } from '../tests/helpers/statements.ts'
import { spread, type Spread } from './stats.ts'

const YEAR_SECONDS = 365 * 86_400

/** The index each query is read through (a pattern of the plan) */
const INDEXES: Record<keyof typeof CONSOLE_QUERIES, RegExp> = {
  runsByStatus: /agent_runs_status_/,
  pendingByAge: /agent_tool_calls_waiting_index/,
  openedPerDay: /agent_tool_calls_opened_index/,
  // SQLite may read the history index (owner_id, settled_at) skipping over its owners: it covers the column
  settledPerDay: /agent_tool_calls_(settled|history)_index/,
  decisions: /agent_tool_calls_settled_index/,
  failedRuns: /agent_runs_status_updated_index/,
  waitingRuns: /agent_runs_status_updated_index/,
  strandedLeased: /agent_runs_status_/,
  strandedWaiting: /agent_runs_status_/,
  strandedLeasedCount: /agent_runs_status_/,
  strandedWaitingCount: /agent_runs_status_/,
  // With pending rows spread thin PostgreSQL may read the opened rows' index, filtered, for 20 of them
  overdueRows: /agent_tool_calls_(waiting|opened)_index/,
  // MySQL has no partial indexes: there the unsent notifications' index and the due effects' one
  failingNotifications: /agent_notifications_(due|unsent)_index/,
  failingNotificationCount: /agent_notifications_(due|unsent)_index/,
  failingEffects: /agent_effects_(failing|due)_index/,
  failingEffectCount: /agent_effects_(failing|due)_index/,
}

/** A whole table read: PostgreSQL's Seq Scan, SQLite's SCAN without an index, MySQL's key=null */
const FULL_SCAN = /Seq Scan on agent_|^SCAN agent_\w+$|^agent_\w+ key=null$/m

/** The SQL of a series 0 … n-1 as `s(i)`, and how each dialect writes the columns */
function dialectOf(db: Database) {
  const name = db.connection().dialect.name
  if (name === 'postgres') {
    return {
      series: (n: number) => `generate_series(0, ${n - 1}) as s(i)`,
      id: (prefix: string, i: string) => `'${prefix}' || lpad(to_hex(${i}), 12, '0')`,
      at: (seconds: string) => `(?::timestamptz + (${seconds}) * interval '1 second')`,
      prefix: '',
    }
  }
  if (name === 'mysql') {
    // MariaDB stops a recursive series at 1,000: seven tables of ten digits instead
    const digits =
      '(select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9)'
    const tables = 'abcdefg'.split('').map((alias) => `${digits} ${alias}`)
    const number = 'abcdefg'.split('').map((alias, index) => `${alias}.d * ${10 ** index}`)
    return {
      series: (n: number) =>
        `(select ${number.join(' + ')} as i from ${tables.join(', ')}) s where s.i < ${n}`,
      id: (prefix: string, i: string) => `concat('${prefix}', lpad(hex(${i}), 12, '0'))`,
      at: (seconds: string) => `date_add(?, interval (${seconds}) second)`,
      prefix: '',
    }
  }
  return {
    series: () => 's',
    id: (prefix: string, i: string) => `printf('${prefix}%012x', ${i})`,
    at: (seconds: string) => `strftime('%Y-%m-%d %H:%M:%S', ?, '+' || (${seconds}) || ' seconds')`,
    prefix: 'with recursive s(i) as (select 0 union all select i + 1 from s where i < ?) ',
  }
}

/** Fills the tables: runs, rows, a few notifications and effects (see the module comment) */
export async function seedConsole(db: Database, rows: number, now: DateTime) {
  const d = dialectOf(db)
  const runs = Math.floor(rows / 4)
  const start = now.minus({ seconds: YEAR_SECONDS })
  const base = preparedColumns(new ToolCall(), { createdAt: start }).created_at
  const step = YEAR_SECONDS / rows
  const run = (i: string) => d.id('00000000-0000-4000-9000-', i)
  const row = (i: string) => d.id('00000000-0000-4000-8000-', i)
  // MySQL and SQLite take the series' bound first; PostgreSQL has it in generate_series
  const bound = (n: number) => (d.prefix ? [n - 1] : [])

  await db.rawQuery(
    `insert into agent_runs (id, agent, status, owner_id, attempt, ask_count, journal_length, created_at, updated_at)
     ${d.prefix}select ${run('i')}, case when i % 3 = 0 then 'deployer' else 'reporter' end,
       case when i % 100 = 0 then 'failed' when i % 50 = 1 then 'waiting' else 'completed' end,
       concat('person:', i % 200), 1, 0, 0, ${d.at(`i * ${step * 4}`)}, ${d.at(`i * ${step * 4} + 600`)}
     from ${d.series(runs)}`,
    [...bound(runs), base, base]
  )
  const status = `case when i % 5 < 3 then 'auto' when i % 50 = 4 then 'pending' when i % 10 = 9 then 'expired' when i % 2 = 0 then 'answered' else 'approved' end`
  const kind = `case when i % 5 < 3 then 'read' when i % 10 = 9 or i % 2 = 0 then 'ask' else 'action' end`
  const settled = `case when i % 5 < 3 or i % 50 = 4 then null else ${d.at(`i * ${step} + i % 3600`)} end`
  const answeredBy = `case when i % 5 < 3 or i % 50 = 4 or i % 10 = 9 then null else concat('person:', i % 200) end`
  await db.rawQuery(
    `insert into agent_tool_calls (id, run_id, sequence, attempt, tool_name, kind, status, owner_id, request, answered_by, settled_at, on_expiry, ladder_step, transactional, execution_attempts, created_at, updated_at)
     ${d.prefix}select ${row('i')}, ${run(`i % ${runs}`)}, floor(i / ${runs}) + 1, 1,
       case when i % 5 < 3 then 'lookup' when i % 2 = 0 then 'ask' else 'deploy' end,
       ${kind}, ${status}, concat('person:', i % 200), '{}', ${answeredBy}, ${settled}, 'defaults', 0, false, 0,
       ${d.at(`i * ${step}`)}, ${d.at(`i * ${step}`)}
     from ${d.series(rows)}`,
    [...bound(rows), base, base, base]
  )
  // 10,000 notifications (1 in 100 unsent and failing) and effects (1 in 100 failed)
  const side = Math.min(10_000, rows)
  const sideRow = (i: string) => row(`(${i}) * 50 + 4`)
  await db.rawQuery(
    `insert into agent_notifications (person_id, row_id, reason, due_at, held, sent_at, attempts, last_error, created_at)
     ${d.prefix}select concat('person:', i % 200), ${sideRow(`i % ${Math.floor(rows / 50)}`)}, 'created', ${d.at('i')}, false,
       case when i % 100 = 0 then null else ${d.at('i')} end, case when i % 100 = 0 then 2 else 1 end,
       case when i % 100 = 0 then '550 mailbox unavailable' else null end, ${d.at('i')}
     from ${d.series(side)}`,
    [...bound(side), base, base, base]
  )
  await db.rawQuery(
    `insert into agent_effects (id, run_id, row_id, position, tool_name, name, idempotency_key, status, attempts, available_at, last_error, created_at, updated_at)
     ${d.prefix}select ${d.id('00000000-0000-4000-a000-', 'i')}, ${run(`(i * 50 + 4) % ${runs}`)}, ${sideRow(`i % ${Math.floor(rows / 50)}`)}, floor(i / ${Math.floor(rows / 50)}), 'deploy', 'notify',
       ${d.id('00000000-0000-4000-b000-', 'i')}, case when i % 100 = 0 then 'failed' else 'done' end, 1, ${d.at('i')},
       case when i % 100 = 0 then 'webhook 503' else null end, ${d.at('i')}, ${d.at('i')}
     from ${d.series(side)}`,
    [...bound(side), base, base, base]
  )
  await analyzeTables(db, [
    'agent_runs',
    'agent_tool_calls',
    'agent_notifications',
    'agent_effects',
  ])
}

export type ConsoleQueryFigure = { name: string; ms: Spread; indexed: boolean; plan: string }

/**
 * Seeds `rows` rows (in an emptied schema) and times each console query
 * `repetitions` times after a warm-up, with its plan.
 */
export async function measureConsoleQueries(
  db: Database,
  options: { rows: number; repetitions: number }
): Promise<ConsoleQueryFigure[]> {
  for (const table of ['agent_effects', 'agent_notifications', 'agent_tool_calls', 'agent_runs']) {
    await db.from(table).delete()
  }
  const now = DateTime.now()
  await seedConsole(db, options.rows, now)
  const plan: ConsolePlan = {
    now,
    window: dayWindow(now, 14),
    overdueBefore: now.minus({ days: 1 }),
    strandedFor: 120_000,
    limit: 20,
  }
  const client = consoleClient()
  const figures: ConsoleQueryFigure[] = []
  for (const [name, build] of Object.entries(CONSOLE_QUERIES)) {
    const make = () => (build as (c: typeof client, p: ConsolePlan) => any)(client, plan)
    for (let index = 0; index < 3; index++) await make()
    const samples: number[] = []
    for (let index = 0; index < options.repetitions; index++) {
      const started = performance.now()
      await make()
      samples.push(performance.now() - started)
    }
    const text = await planOf(db, make().toSQL())
    const indexed = INDEXES[name as keyof typeof INDEXES].test(text) && !FULL_SCAN.test(text)
    figures.push({ name, ms: spread(samples), indexed, plan: text })
  }
  return figures
}
