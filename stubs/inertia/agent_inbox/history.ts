/*
 * The history page's filters, without a framework so both pages (React,
 * Vue) offer the same and Node can test it: each filter's choices, from
 * what the server sent (its agents, statuses and kinds, the current
 * filters, the person), and the URL of the next page. The app receives this file in
 * inertia/agent_inbox/.
 */

import type { HistoryFilters, People, RunSummary } from 'adonis-agent-inbox/types'
import { formatTime, kindWord, nameOf, statusWord, t } from './words'

/** One filter of the form: a select (`options`) or a day */
export type HistoryChoice = {
  name: string
  label: string
  value: string
  options?: { value: string; label: string }[]
}

function any(label: string) {
  return { value: '', label }
}

/**
 * The filters the form offers for the current view, each on its current
 * value: the agents, statuses and kinds the server says it takes; who
 * settled: anyone, the person, or the one filtered on.
 */
export function historyChoices(props: {
  person: string
  filters: HistoryFilters
  agents: string[]
  statuses: string[]
  kinds: string[]
  people: People
}): HistoryChoice[] {
  const { filters, person } = props
  const rows = filters.view === 'rows'
  const choices: HistoryChoice[] = [
    {
      name: 'view',
      label: t('page.history.show'),
      value: filters.view,
      options: [
        { value: 'rows', label: t('page.history.rows_settled') },
        { value: 'runs', label: t('page.history.runs_finished') },
      ],
    },
    {
      name: 'agent',
      label: t('page.history.agent'),
      value: filters.agent ?? '',
      options: [
        any(t('page.history.any_agent')),
        ...props.agents.map((agent) => ({ value: agent, label: agent })),
      ],
    },
    {
      name: 'status',
      label: t('page.history.status'),
      value: filters.status ?? '',
      options: [
        any(t('page.history.any_status')),
        ...props.statuses.map((status) => ({ value: status, label: statusWord(status) })),
      ],
    },
  ]
  if (rows) {
    const by = [
      any(t('page.history.anyone')),
      { value: person, label: t('page.history.you', { name: nameOf(props.people, person) }) },
    ]
    if (filters.by && filters.by !== person) {
      by.push({ value: filters.by, label: nameOf(props.people, filters.by) })
    }
    choices.push(
      {
        name: 'kind',
        label: t('page.history.kind'),
        value: filters.kind ?? '',
        options: [
          any(t('page.history.any_kind')),
          ...props.kinds.map((kind) => ({ value: kind, label: kindWord(kind) })),
        ],
      },
      { name: 'by', label: t('page.history.settled_by'), value: filters.by ?? '', options: by }
    )
  }
  choices.push(
    { name: 'from', label: t('page.history.from'), value: filters.from ?? '' },
    { name: 'to', label: t('page.history.to'), value: filters.to ?? '' }
  )
  return choices
}

/**
 * The line under a finished run: whose it was, when it ended, its error code.
 *
 * @example
 * finishedRunLine(run, people) // 'for Ada Lovelace · ended 10:05 · E_PROVIDER'
 */
export function finishedRunLine(run: RunSummary, people: People): string {
  return [
    t('page.run.for', { name: nameOf(people, run.ownerId) }),
    t('page.run.ended', { time: formatTime(run.finishedAt) }),
    run.errorCode ?? '',
  ]
    .filter(Boolean)
    .join(' · ')
}

/**
 * The URL of the page after this one: the same filters, and the cursor.
 */
export function nextPageUrl(historyUrl: string, filters: HistoryFilters, cursor: string): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, String(value))
  query.set('cursor', cursor)
  return `${historyUrl}?${query}`
}

/** The filters only the rows view takes (the runs view refuses them) */
const ROWS_ONLY_FILTERS = ['kind', 'by']

/**
 * On a change of the form's view: the rows' own filters are left out of
 * the query (disabled) while the runs view is picked, so switching views
 * never sends a filter the other view refuses.
 */
export function viewChanged(select: HTMLSelectElement) {
  for (const name of ROWS_ONLY_FILTERS) {
    const field = select.form?.elements.namedItem(name)
    if (field instanceof HTMLSelectElement) field.disabled = select.value === 'runs'
  }
}
