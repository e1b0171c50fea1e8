/*
 * How the run page tells each entry of a run's timeline, without a
 * framework so both pages (React, Vue) tell it alike and Node can test it:
 * a heading and lines of text per entry, the args and what a tool returned,
 * and who settled what. The app receives this file in inertia/agent_inbox/.
 */

import type { People, TimelineEntry } from 'adonis-agent-inbox/types'
import { formatTime, nameOf, outcomeLines, settledWords, shownValue } from './words'
import { auditText } from './governance'

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
}

function callTitle(entry: Extract<TimelineEntry, { type: 'call' }>): string {
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
        lines.push(`Waiting for ${nameOf(people, owner)}.`)
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
      }
    }
  }
}
