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
  TimelineAction,
  TimelineEntry,
  TimelineEffect,
} from 'adonis-agent-inbox/types'
import { formatTime, nameOf, outcomeLines, settledWords, shownValue } from './words'
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

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

/**
 * What became of an effect that followed an action's commit.
 */
function effectWords(effect: TimelineEffect): string {
  const tries = plural(effect.attempts, 'attempt')
  const said =
    effect.status === 'done'
      ? `delivered ${formatTime(effect.doneAt)} (${tries})`
      : effect.status === 'failed'
        ? `given up after ${tries}: ${effect.lastError ?? 'it failed'}`
        : `waiting to be delivered again (${tries} so far${effect.lastError ? `; last error: ${effect.lastError}` : ''})`
  return `${said} · key ${effect.idempotencyKey}`
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
      label: 'Ran',
      value: action.transactional
        ? 'In one transaction with its writes: they commit with its result, or not at all'
        : 'Outside a transaction: at most once',
    },
  ]
  if (action.startedAt) {
    const again =
      action.starts > 1
        ? ` · ${plural(action.starts, 'start')}: ${plural(action.starts - 1, 'start')} rolled back when a process stopped, then run again`
        : ''
    facts.push({ label: 'Started', value: `${formatTime(action.startedAt)}${again}` })
  }
  const at = formatTime(action.executedAt)
  if (execution === 'succeeded') {
    facts.push({ label: action.transactional ? 'Committed' : 'Finished', value: at })
  } else if (execution === 'failed') {
    facts.push({
      label: 'Failed',
      value: action.transactional ? `${at}, its writes rolled back` : at,
    })
  } else if (execution === 'interrupted') {
    facts.push({ label: 'Interrupted', value: at })
  } else if (execution === 'running') {
    facts.push({ label: 'Running', value: 'now, or in a process that stopped' })
  } else if (action.transactional) {
    facts.push({ label: 'Rolled back', value: 'its process stopped while it ran; it runs again' })
  }
  if (action.idempotencyKey) facts.push({ label: 'Idempotency key', value: action.idempotencyKey })
  for (const effect of action.effects) {
    facts.push({ label: `After the commit: ${effect.name}`, value: effectWords(effect) })
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
      (option) => `${option.label}${defaults.includes(option.value) ? ' (default)' : ''}`
    )
    const offered = choices?.length
      ? choices.join(' · ')
      : defaults.length
        ? `Default: ${defaults.join(', ')}`
        : ''
    lines.push(`${question.prompt} ${offered}`.trim())
  }
  return lines
}

type TimelineCall = Extract<TimelineEntry, { type: 'call' }>

function callTitle(entry: TimelineCall): string {
  const kind = entry.row?.kind
  if (kind === 'intake') return 'Intake form'
  if (kind === 'ask') {
    const count = entry.row?.questionSet?.questions.length ?? 0
    return count === 1 ? 'The agent asked a question' : `The agent asked ${count} questions`
  }
  if (kind === 'action') return `Action ${entry.toolName}`
  return `Tool ${entry.toolName}`
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
  return `Only the calls you were asked to decide are shown: the run's input and its other steps stay with ${owner}.`
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
      return { ...shown, title: 'The run started', blocks: [{ label: 'Input', text: entry.text }] }
    case 'step':
      return {
        ...shown,
        title: `Step ${entry.step}: the model answered`,
        lines: [entry.text.trim() || 'No text: it called tools.'],
      }
    case 'end':
      if (entry.status === 'completed') {
        return {
          ...shown,
          title: 'The run completed',
          status: 'completed',
          blocks: entry.text ? [{ label: 'Final answer', text: entry.text }] : [],
        }
      }
      return {
        ...shown,
        title: entry.status === 'failed' ? 'The run failed' : 'The run was cancelled',
        status: entry.status,
        lines: [entry.errorCode, entry.error].filter((line): line is string => Boolean(line)),
      }
    case 'call': {
      const row = entry.row
      const blocks: ShownEntry['blocks'] = []
      if (!row?.questionSet && entry.args !== null) {
        blocks.push({ label: 'Args', text: shownValue(entry.args) })
      }
      const result = entry.result as { value?: unknown; error?: string } | null
      if (result && 'error' in result) {
        blocks.push({ label: 'Error', text: String(result.error) })
      } else if (result && 'value' in result) {
        blocks.push({ label: 'Returned', text: shownValue(result.value) })
      } else if (entry.output && !row?.questionSet) {
        blocks.push({ label: 'The model read', text: entry.output.value })
      }
      const lines: string[] = []
      if (row?.status === 'pending') {
        lines.push(`Waiting for ${nameOf(people, owner)}.`, ...pendingQuestionLines(row))
        // What changed since it was asked (./changes.ts), as the inbox's card says it
        const change = changeView(row)
        if (change) lines.push(`Changed since it was asked: ${change.title}. ${change.detail}`)
      } else if (row?.settled) {
        lines.push(...outcomeLines(row))
        if (row.status !== 'auto') lines.push(`By ${settledWords(row.settled, people)}.`)
      }
      if (entry.execution === 'interrupted') {
        lines.push('Interrupted: the process stopped while it ran; it was not run again.')
      }
      if (entry.execution === 'refused') lines.push('Refused: its approval did not verify.')
      const audit = auditText(entry.audit, people, formatTime)
      if (audit) blocks.push({ label: 'Audit log', text: audit })
      return {
        ...shown,
        title: callTitle(entry) + (entry.attempt < attempt ? ` (attempt ${entry.attempt})` : ''),
        lines,
        blocks,
        pendingRowId: row?.status === 'pending' ? row.id : null,
        status: row?.status ?? null,
        facts: entry.action ? actionFacts(entry.action, entry.execution) : [],
      }
    }
  }
}
