/*
 * How the console's pages put things into words, without a framework so
 * the React and Vue pages say the same and Node can test it: the counts at
 * the top, the lists' headings, a run's or a row's or a delivery's facts,
 * what an action did, and the console's URLs. The app receives this file
 * in inertia/agent_console/.
 */

import type {
  ConsoleActionResult,
  ConsoleCounts,
  ConsoleFailingDelivery,
  ConsoleLists,
  ConsoleOverdueRow,
  ConsoleRun,
  People,
} from 'adonis-agent-inbox/types'
import { formatTime, kindWord, nameOf, shortId, statusWord, t, tCount } from '../agent_inbox/words'
import { formatDuration } from './chart_data'

/**
 * The console's URLs, from where it lives (`<prefix>/console`).
 *
 * @example
 * consoleLinks('/inbox/console').retry('r1') // '/inbox/console/runs/r1/retry'
 */
export function consoleLinks(consoleUrl: string) {
  const base = new URL(consoleUrl, 'http://console.invalid').pathname.replace(/\/+$/, '')
  return {
    console: base,
    retry: (runId: string) => `${base}/runs/${encodeURIComponent(runId)}/retry`,
    cancel: (runId: string) => `${base}/runs/${encodeURIComponent(runId)}/cancel`,
    reassign: (rowId: string) => `${base}/rows/${encodeURIComponent(rowId)}/reassign`,
  }
}

/** The windows the page offers (`?days=`); the props' own is added when it is none of them */
export function windowChoices(days: number): number[] {
  return [...new Set([1, 7, 14, 30, 90, days])].sort((a, b) => a - b)
}

/** A figure at the top of the console; `alarm` when it asks for the operator's attention */
export type CountTile = { id: string; label: string; value: number; alarm: boolean }

/**
 * The counts at the top, in the order an operator reads them: what waits
 * for people, what is stuck, what moved in the window.
 */
export function countTiles(counts: ConsoleCounts, days: number): CountTile[] {
  const failing = counts.failingNotifications + counts.failingEffects
  return [
    {
      id: 'pending',
      label: t('page.console.rows_pending'),
      value: counts.pendingRows,
      alarm: false,
    },
    {
      id: 'overdue',
      label: t('page.console.rows_overdue'),
      value: counts.overdueRows,
      alarm: counts.overdueRows > 0,
    },
    {
      id: 'waiting',
      label: t('page.console.runs_waiting'),
      value: counts.runs.waiting,
      alarm: false,
    },
    {
      id: 'running',
      label: t('page.console.runs_running'),
      value: counts.runs.running,
      alarm: false,
    },
    { id: 'queued', label: t('page.console.runs_queued'), value: counts.runs.queued, alarm: false },
    {
      id: 'failed',
      label: t('page.console.runs_failed'),
      value: counts.runs.failed,
      alarm: counts.runs.failed > 0,
    },
    {
      id: 'stranded',
      label: t('page.console.runs_stranded'),
      value: counts.strandedRuns,
      alarm: counts.strandedRuns > 0,
    },
    {
      id: 'failing',
      label: t('page.console.deliveries_failing'),
      value: failing,
      alarm: failing > 0,
    },
    {
      id: 'opened',
      label: t('page.console.rows_opened', { window: dayWords(days) }),
      value: counts.openedInWindow,
      alarm: false,
    },
    {
      id: 'settled',
      label: t('page.console.rows_settled', { window: dayWords(days) }),
      value: counts.settledInWindow,
      alarm: false,
    },
  ]
}

/** "today" or "last 14 days" */
export function dayWords(days: number): string {
  return days === 1 ? t('page.console.today') : t('page.console.last_days', { days })
}

export type RunList = { id: ConsoleRun['reason']; title: string; empty: string; runs: ConsoleRun[] }

/** The three lists of runs, each with its heading and what it says when empty */
export function runLists(lists: ConsoleLists): RunList[] {
  return [
    {
      id: 'failed',
      title: t('page.console.failed_runs'),
      empty: t('page.console.no_failed'),
      runs: lists.failedRuns,
    },
    {
      id: 'stranded',
      title: t('page.console.stranded_runs'),
      empty: t('page.console.no_stranded'),
      runs: lists.strandedRuns,
    },
    {
      id: 'waiting',
      title: t('page.console.waiting_runs'),
      empty: t('page.console.no_waiting'),
      runs: lists.waitingRuns,
    },
  ]
}

/** How long ago a time was, from `now`: "3 h 20 min", "under a minute" */
export function ageOf(iso: string | null, now: string): string {
  if (!iso) return '—'
  const ms = new Date(now).getTime() - new Date(iso).getTime()
  if (!Number.isFinite(ms)) return '—'
  return ms < 60_000 ? t('page.console.under_a_minute') : formatDuration(ms)
}

/** What a run's line says besides its agent and id */
export function runFacts(run: ConsoleRun, people: People, now: string): string[] {
  const facts = [t('page.run.for', { name: nameOf(people, run.ownerId) })]
  if (run.reason === 'waiting') {
    facts.push(
      tCount(run.pendingRows, 'page.console.pending_one', 'page.console.pending_many'),
      t('page.console.waiting_for', { age: ageOf(run.updatedAt, now) })
    )
  } else if (run.updatedAt) {
    const time = formatTime(run.updatedAt)
    facts.push(
      t(run.reason === 'failed' ? 'page.console.failed_at' : 'page.console.moved_at', { time })
    )
  }
  return facts
}

/** What an overdue row's line says besides its tool */
export function overdueFacts(row: ConsoleOverdueRow, people: People, now: string): string[] {
  const who = row.ownerId ? [row.ownerId] : row.approvers
  const facts = [
    row.agent ? `${row.agent}, ${kindWord(row.kind)}` : kindWord(row.kind),
    t('page.console.waiting_on', {
      who:
        who.length > 0 ? who.map((id) => nameOf(people, id)).join(', ') : t('page.console.nobody'),
    }),
    t('page.console.open_for', { age: ageOf(row.createdAt, now) }),
  ]
  if (row.ladderDueAt) {
    facts.push(t('page.console.next_escalation', { time: formatTime(row.ladderDueAt) }))
  }
  return facts
}

/** What a failing delivery's line says */
export function deliveryFacts(delivery: ConsoleFailingDelivery, people: People): string[] {
  const facts = [
    delivery.outbox === 'notification'
      ? t('page.console.notice_to', {
          name: delivery.name,
          person: nameOf(people, delivery.personId),
        })
      : t('page.console.effect', { name: delivery.name }),
    tCount(delivery.attempts, 'page.effect.attempts_one', 'page.effect.attempts_many'),
    delivery.state === 'failed'
      ? t('page.console.gave_up')
      : t('page.console.next_try', { time: formatTime(delivery.dueAt) }),
  ]
  return facts
}

/**
 * What the page says when an action went through. A reassigned row is
 * named with the person it was sent `to`: an approval keeps its owner (the
 * person gains it as its approver), a question changes owner.
 *
 * @example
 * doneWords({ action: 'reassign', row: { id: 'r1', ownerId: '1', from: ['1'] } }, people, '2')
 * // 'Reassigned row r1 to Grace Hopper.'
 */
export function doneWords(done: ConsoleActionResult, people: People, to?: string): string {
  if (done.action === 'reassign') {
    return t('page.console.reassigned', {
      id: shortId(done.row.id),
      name: nameOf(people, to ?? done.row.ownerId),
    })
  }
  return t(done.action === 'retry' ? 'page.console.retried' : 'page.console.cancelled', {
    id: shortId(done.run.id),
    agent: done.run.agent,
    status: statusWord(done.run.status),
  })
}
