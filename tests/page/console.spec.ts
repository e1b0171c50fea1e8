/*
 * The console page's pure state, shared by the React and Vue pages
 * (stubs/inertia/agent_console/): what each chart draws and its table says
 * (durations in words, the axis' unit, pending rows stacked by kind), the
 * counts and the action URLs, and the session's actions: one at a time,
 * the server's word read from `feedback` (a notice when done, an alert and
 * the field's errors when refused), Cancel confirmed first.
 */

import { test } from '@japa/runner'
import type { ConsoleOverdueRow, ConsoleRun } from '../../src/types/main.ts'
import {
  dailyChart,
  decisionChart,
  durationUnit,
  formatDuration,
  pendingAgeChart,
} from '../../stubs/inertia/agent_console/chart_data.ts'
import {
  ageOf,
  consoleLinks,
  countTiles,
  doneWords,
} from '../../stubs/inertia/agent_console/console_words.ts'
import {
  ConsoleSession,
  consoleAlertHeading,
  readConsoleFeedback,
  type ConsoleRouter,
} from '../../stubs/inertia/agent_console/console_session.ts'

const MINUTE = 60_000
const people = { '1': 'Ada Lovelace', '2': 'Grace Hopper' }

const failed: ConsoleRun = {
  id: 'run-0001-failed',
  agent: 'deployer',
  status: 'failed',
  ownerId: '1',
  createdAt: null,
  finishedAt: null,
  errorCode: null,
  reason: 'failed',
  updatedAt: null,
  error: 'timed out',
  pendingRows: 0,
  actions: { retry: true, cancel: false },
}

const overdue: ConsoleOverdueRow = {
  id: 'row-0001-overdue',
  runId: 'run1',
  agent: 'deployer',
  kind: 'action',
  toolName: 'deploy',
  ownerId: '1',
  approvers: [],
  createdAt: null,
  expiresAt: null,
  ladderDueAt: null,
  assignees: ['2', '3'],
}

/** Inertia's router as far as the session uses it: each post answered by `answer` */
function fakeRouter(answer: (url: string, data: Record<string, unknown>) => unknown) {
  const posts: { url: string; data: Record<string, unknown> }[] = []
  let finish: (() => void) | null = null
  const router: ConsoleRouter = {
    post(url, data, options) {
      posts.push({ url, data })
      options.onSuccess({ props: { feedback: answer(url, data), people } })
      finish = options.onFinish
    },
  }
  return { router, posts, finish: () => finish?.() }
}

test.group('Page | console', () => {
  test('durations in words and an axis unit the longest value reaches', ({ assert }) => {
    assert.equal(formatDuration(450), '450 ms')
    assert.equal(formatDuration(90_000), '1 min 30 s')
    assert.equal(formatDuration(3 * MINUTE), '3 min')
    assert.equal(formatDuration(3_600_000 + 30_000), '1 h')
    assert.equal(formatDuration(2 * 86_400_000 + 3 * 3_600_000), '2 d 3 h')
    assert.equal(durationUnit(90_000).name, 'seconds')
    assert.equal(durationUnit(30 * MINUTE).name, 'minutes')
    assert.equal(durationUnit(5 * 3_600_000).name, 'hours')
    assert.equal(ageOf('2026-01-01T00:00:30Z', '2026-01-01T00:01:00Z'), 'under a minute')
    assert.equal(ageOf('2026-01-01T00:00:00Z', '2026-01-01T02:05:00Z'), '2 h 5 min')
  })

  test('charts: what uPlot draws and the table a screen reader reads', ({ assert }) => {
    const daily = dailyChart({
      at: [1767225600, 1767312000],
      days: ['2026-01-01', '2026-01-02'],
      opened: [3, 0],
      settled: [1, 2],
    })
    assert.deepEqual(daily.table.rows, [
      ['2026-01-01', '3', '1'],
      ['2026-01-02', '0', '2'],
    ])
    assert.deepEqual(
      daily.series.map((series) => series.drawn),
      [
        [3, 0],
        [1, 2],
      ]
    )

    const decisions = decisionChart(
      'approver',
      [{ key: '2', count: 4, p50: 3 * MINUTE, p90: 12 * MINUTE }],
      people
    )
    assert.equal(decisions.unit, 'minutes')
    assert.deepEqual(decisions.labels, ['Grace Hopper'])
    // p90 first, so the p50 bar is drawn in front of it
    assert.deepEqual(
      decisions.series.map((series) => [series.label, series.drawn[0]]),
      [
        ['p90', 12],
        ['p50', 3],
      ]
    )
    assert.deepEqual(decisions.table.rows, [['Grace Hopper', '4', '3 min', '12 min']])
    assert.isTrue(decisionChart('tool', []).empty)

    const pending = pendingAgeChart({
      buckets: [
        { label: 'under 1 hour', fromMs: 0, toMs: 3_600_000 },
        { label: 'over 1 hour', fromMs: 3_600_000, toMs: null },
      ],
      kinds: ['action', 'ask', 'intake'],
      counts: [
        [1, 0],
        [2, 1],
        [0, 4],
      ],
    })
    // Stacked: each kind drawn as the total from it on, its own count in the legend
    assert.deepEqual(
      pending.series.map((series) => series.drawn),
      [
        [3, 5],
        [2, 5],
        [0, 4],
      ]
    )
    assert.deepEqual(pending.series[1].values, ['2', '1'])
    assert.deepEqual(pending.table.rows, [
      ['under 1 hour', '1', '2', '0', '3'],
      ['over 1 hour', '0', '1', '4', '5'],
    ])
    assert.isFalse(pending.empty)
  })

  test('counts, action URLs and what a done action says', ({ assert }) => {
    const links = consoleLinks('https://app.example/ops/console/')
    assert.equal(links.console, '/ops/console')
    assert.equal(links.retry('a b'), '/ops/console/runs/a%20b/retry')
    assert.equal(links.reassign('r1'), '/ops/console/rows/r1/reassign')

    const tiles = countTiles(
      {
        pendingRows: 4,
        overdueRows: 0,
        runs: { queued: 0, running: 1, waiting: 3, failed: 2 },
        strandedRuns: 0,
        openedInWindow: 9,
        settledInWindow: 5,
        failingNotifications: 1,
        failingEffects: 1,
      },
      7
    )
    const byId = Object.fromEntries(tiles.map((tile) => [tile.id, tile]))
    assert.deepInclude(byId.failed, { value: 2, alarm: true })
    assert.deepInclude(byId.overdue, { value: 0, alarm: false })
    assert.deepInclude(byId.failing, { value: 2, alarm: true })
    assert.equal(byId.opened.label, 'Rows opened, last 7 days')

    const run = { ...failed, status: 'running' as const }
    assert.equal(
      doneWords({ action: 'retry', run }, people),
      'Retried run run-0001 (deployer): now running.'
    )
    // An approval keeps its owner: the page names whom it was sent to
    assert.equal(
      doneWords(
        { action: 'reassign', row: { id: overdue.id, ownerId: '1', from: ['1'] } },
        people,
        '2'
      ),
      'Reassigned row row-0001 to Grace Hopper.'
    )
  })

  test('the session: a done action is a notice, a refused one an alert; one at a time', ({
    assert,
  }) => {
    let view = null as unknown
    const answers: unknown[] = [
      { rowId: failed.id, done: { action: 'retry', run: { ...failed, status: 'running' } } },
      {
        rowId: overdue.id,
        error: {
          status: 422,
          errors: [{ code: 'E_INVALID_REPLY', field: 'to', message: 'must be one of them' }],
        },
      },
    ]
    const { router, posts, finish } = fakeRouter(() => answers.shift())
    const session = new ConsoleSession(router, (next) => (view = next))
    session.sync({ consoleUrl: '/inbox/console', people })

    session.retry(failed)
    assert.deepEqual(posts.at(-1), { url: '/inbox/console/runs/run-0001-failed/retry', data: {} })
    assert.equal(session.view.notice, 'Retried run run-0001 (deployer): now running.')
    // Still on its way: a second action waits for the first
    session.reassign(overdue)
    assert.lengthOf(posts, 1)
    finish()
    assert.isNull(session.view.submitting)

    // Reassign sends the person picked, else the first assignee
    assert.equal(session.choiceFor(overdue), '2')
    session.choose(overdue.id, '3')
    session.reassign(overdue)
    assert.deepEqual(posts.at(-1)?.data, { to: '3' })
    assert.isNull(session.view.notice)
    assert.equal(session.view.alert?.id, overdue.id)
    assert.deepEqual(session.view.errors, {
      id: overdue.id,
      fields: { to: ['must be one of them'] },
    })
    assert.equal(consoleAlertHeading(session.view.alert!.error), 'That did not go through.')
    assert.strictEqual(view, session.view)

    // Cancel asks first; the answer closes the question
    session.confirmCancel(failed.id)
    assert.equal(session.view.confirming, failed.id)
    finish()
    assert.isNull(session.view.confirming)
  })

  test('feedback is read with care: a malformed prop is none', ({ assert }) => {
    assert.isNull(readConsoleFeedback(null))
    assert.isNull(readConsoleFeedback({ rowId: 'r1' }))
    assert.isNull(readConsoleFeedback({ rowId: 'r1', done: { action: 'drop', run: { id: 'x' } } }))
    assert.isNull(readConsoleFeedback({ rowId: 'r1', done: { action: 'retry' } }))
    const conflict = readConsoleFeedback({
      rowId: 'r1',
      error: {
        status: 409,
        errors: [{ code: 'E_RUN_NOT_ACTIONABLE', message: 'It has not failed' }],
      },
    })
    assert.equal(conflict?.error?.status, 409)
    assert.equal(consoleAlertHeading(conflict!.error!), 'Nothing to do.')
  })
})
