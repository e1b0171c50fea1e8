/*
 * How the run page tells each entry of a run's timeline, without a
 * framework so both pages (React, Vue) tell it alike and Node can test it:
 * a heading and lines of text per entry, the args and what a tool returned,
 * who settled what, and how an action ran (started, committed, interrupted
 * or run again, its idempotency key and the effects after its commit). The
 * app receives this file in inertia/agent_inbox/.
 */

import type {
  People,
  RunSight,
  RunTimeline,
  TimelineAction,
  TimelineEntry,
  TimelineEffect,
} from 'adonis-agent-inbox/types'
import { formatTime, nameOf, outcomeLines, settledWords, shownValue, t, tCount } from './words'
import { auditText } from './governance'
import { changeView } from './changes'

/** An entry as the page shows it */
export type ShownEntry = {
  /** What it was: started, a model step, a call, the end */
  title: string
  /** When, as ISO */
  at: string | null
  /** Lines of prose */
  lines: string[]
  /** Labelled blocks of data (the args, what the tool returned) */
  blocks: { label: string; text: string }[]
  /** The row this entry is about, still waiting for a person */
  pendingRowId: string | null
  /** A chip: the row's status, or how the run ended */
  status: string | null
  /** Labelled facts: how an action ran */
  facts: { label: string; value: string }[]
}

/**
 * What became of an effect that followed an action's commit.
 */
function effectWords(effect: TimelineEffect): string {
  const tries = tCount(effect.attempts, 'page.effect.attempts_one', 'page.effect.attempts_many')
  const said =
    effect.status === 'done'
      ? t('page.effect.done', { time: formatTime(effect.doneAt), tries })
      : effect.status === 'failed'
        ? t('page.effect.failed', { tries, error: effect.lastError ?? t('page.effect.it_failed') })
        : effect.lastError
          ? t('page.effect.waiting_error', { tries, error: effect.lastError })
          : t('page.effect.waiting', { tries })
  return t('page.effect.key', { said, key: effect.idempotencyKey })
}

/**
 * How an action ran: in a transaction or not, when it started and how many
 * times, whether its result committed, failed or was interrupted, its key
 * and its effects.
 *
 * @example
 * actionFacts({ transactional: true, starts: 2, … }, 'succeeded')
 * // [{ label: 'Ran', value: 'In one transaction with its writes' }, { label: 'Started', value: '10:02 · 2 starts: …' }, …]
 */
export function actionFacts(
  action: TimelineAction,
  execution: string | null
): { label: string; value: string }[] {
  const facts = [
    {
      label: t('page.action.ran'),
      value: t(action.transactional ? 'page.action.in_transaction' : 'page.action.outside'),
    },
  ]
  if (action.startedAt) {
    const again =
      action.starts > 1
        ? t('page.action.again', {
            starts: tCount(action.starts, 'page.action.starts_one', 'page.action.starts_many'),
            again: tCount(action.starts - 1, 'page.action.starts_one', 'page.action.starts_many'),
          })
        : ''
    facts.push({
      label: t('page.action.started'),
      value: `${formatTime(action.startedAt)}${again}`,
    })
  }
  const at = formatTime(action.executedAt)
  if (execution === 'succeeded') {
    facts.push({
      label: t(action.transactional ? 'page.action.committed' : 'page.action.finished'),
      value: at,
    })
  } else if (execution === 'failed') {
    facts.push({
      label: t('page.action.failed'),
      value: action.transactional ? t('page.action.failed_rolled_back', { time: at }) : at,
    })
  } else if (execution === 'interrupted') {
    facts.push({ label: t('page.action.interrupted'), value: at })
  } else if (execution === 'running') {
    facts.push({ label: t('page.action.running'), value: t('page.action.running_now') })
  } else if (action.transactional) {
    facts.push({ label: t('page.action.rolled_back'), value: t('page.action.runs_again') })
  }
  if (action.idempotencyKey) {
    facts.push({ label: t('page.action.idempotency_key'), value: action.idempotencyKey })
  }
  for (const effect of action.effects) {
    facts.push({
      label: t('page.action.effect', { name: effect.name }),
      value: effectWords(effect),
    })
  }
  return facts
}

/**
 * A pending question set, read-only: each question's prompt with its
 * options, the pre-picked defaults marked, so the run page tells what the
 * agent waits for (the inbox answers it).
 *
 * @example
 * pendingQuestionLines(card) // ['Which database? PostgreSQL (default) · MySQL', 'How many replicas? Default: 2']
 */
export function pendingQuestionLines(row: NonNullable<TimelineCall['row']>): string[] {
  const set = row.questionSet
  if (!set) return []
  const lines = set.preamble ? [set.preamble] : []
  for (const question of set.questions) {
    const defaults = question.defaults ?? []
    const choices = question.options?.map(
      (option) =>
        `${option.label}${defaults.includes(option.value) ? t('page.outcome.default_mark') : ''}`
    )
    const offered = choices?.length
      ? choices.join(' · ')
      : defaults.length
        ? t('page.timeline.default', { values: defaults.join(', ') })
        : ''
    lines.push(`${question.prompt} ${offered}`.trim())
  }
  return lines
}

type TimelineCall = Extract<TimelineEntry, { type: 'call' }>

function callTitle(entry: TimelineCall): string {
  const kind = entry.row?.kind
  if (kind === 'intake') return t('page.timeline.intake')
  if (kind === 'ask') {
    const count = entry.row?.questionSet?.questions.length ?? 0
    return tCount(count, 'page.timeline.asked_one', 'page.timeline.asked_many')
  }
  if (kind === 'action') return t('page.timeline.action', { tool: entry.toolName })
  return t('page.timeline.tool', { tool: entry.toolName })
}

/**
 * The line under a run page's heading: whose run it is, when it started
 * and ended, and its attempt after the first.
 *
 * @example
 * runLine(run, people) // 'for Ada Lovelace · started 10:02 · ended 10:05 · attempt 2'
 */
export function runLine(run: RunTimeline['run'], people: People): string {
  return [
    t('page.run.for', { name: nameOf(people, run.ownerId) }),
    t('page.run.started', { time: formatTime(run.createdAt) }),
    run.finishedAt ? t('page.run.ended', { time: formatTime(run.finishedAt) }) : '',
    run.attempt > 1 ? t('page.run.attempt', { attempt: run.attempt }) : '',
  ]
    .filter(Boolean)
    .join(' · ')
}

/**
 * What the page says above a timeline shown in part (`sight: 'rows'`: the
 * person decides rows of a run they may not read), or null.
 *
 * @example
 * sightNote('rows', 'Ada Lovelace')
 * // 'Only the calls you were asked to decide are shown: the run's input and its other steps stay with Ada Lovelace.'
 */
export function sightNote(sight: RunSight | undefined, owner: string): string | null {
  if (sight !== 'rows') return null
  return t('page.timeline.sight', { owner })
}

/**
 * The words and data of one timeline entry.
 *
 * @example
 * showEntry({ type: 'end', status: 'failed', errorCode: 'E_PROVIDER', … }, context).lines
 * // ['Failed: E_PROVIDER', 'The provider refused the key']
 */
export function showEntry(
  entry: TimelineEntry,
  context: { people: People; owner: string | null; attempt: number }
): ShownEntry {
  const { people, owner, attempt } = context
  const shown: ShownEntry = {
    title: '',
    at: entry.at,
    lines: [],
    blocks: [],
    pendingRowId: null,
    status: null,
    facts: [],
  }
  switch (entry.type) {
    case 'input':
      return {
        ...shown,
        title: t('page.timeline.started'),
        blocks: [{ label: t('page.timeline.input'), text: entry.text }],
      }
    case 'step':
      return {
        ...shown,
        title: t('page.timeline.step', { step: entry.step }),
        lines: [entry.text.trim() || t('page.timeline.no_text')],
      }
    case 'end':
      if (entry.status === 'completed') {
        return {
          ...shown,
          title: t('page.timeline.completed'),
          status: 'completed',
          blocks: entry.text ? [{ label: t('page.timeline.final_answer'), text: entry.text }] : [],
        }
      }
      return {
        ...shown,
        title: t(entry.status === 'failed' ? 'page.timeline.failed' : 'page.timeline.cancelled'),
        status: entry.status,
        lines: [entry.errorCode, entry.error].filter((line): line is string => Boolean(line)),
      }
    case 'call': {
      const row = entry.row
      const blocks: ShownEntry['blocks'] = []
      if (!row?.questionSet && entry.args !== null) {
        blocks.push({ label: t('page.timeline.args'), text: shownValue(entry.args) })
      }
      const result = entry.result as { value?: unknown; error?: string } | null
      if (result && 'error' in result) {
        blocks.push({ label: t('page.timeline.error'), text: String(result.error) })
      } else if (result && 'value' in result) {
        blocks.push({ label: t('page.timeline.returned'), text: shownValue(result.value) })
      } else if (entry.output && !row?.questionSet) {
        blocks.push({ label: t('page.timeline.model_read'), text: entry.output.value })
      }
      const lines: string[] = []
      if (row?.status === 'pending') {
        lines.push(t('page.timeline.waiting', { name: nameOf(people, owner) }))
        lines.push(...pendingQuestionLines(row))
        // What changed since it was asked (./changes.ts), as the inbox's card says it
        const change = changeView(row)
        if (change)
          lines.push(t('page.timeline.changed', { title: change.title, detail: change.detail }))
      } else if (row?.settled) {
        lines.push(...outcomeLines(row))
        if (row.status !== 'auto') {
          lines.push(t('page.timeline.by', { who: settledWords(row.settled, people) }))
        }
      }
      if (entry.execution === 'interrupted') {
        lines.push(t('page.timeline.interrupted'))
      }
      if (entry.execution === 'refused') lines.push(t('page.timeline.refused'))
      const audit = auditText(entry.audit, people, formatTime)
      if (audit) blocks.push({ label: t('page.timeline.audit'), text: audit })
      return {
        ...shown,
        title:
          callTitle(entry) +
          (entry.attempt < attempt ? t('page.timeline.attempt', { attempt: entry.attempt }) : ''),
        lines,
        blocks,
        pendingRowId: row?.status === 'pending' ? row.id : null,
        status: row?.status ?? null,
        facts: entry.action ? actionFacts(entry.action, entry.execution) : [],
      }
    }
  }
}
