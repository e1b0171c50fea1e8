/*
 * The history page's filters, without a framework so both pages (React,
 * Vue) offer the same and Node can test it: each filter's choices, from
 * what the server sent (its agents, statuses and kinds, the current
 * filters, the person), and the URL of the next page. The app receives this file in
 * inertia/agent_inbox/.
 */

import type { HistoryFilters, People } from 'adonis-agent-inbox/types'
import { nameOf } from './words'

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
      label: 'Show',
      value: filters.view,
      options: [
        { value: 'rows', label: 'Rows settled' },
        { value: 'runs', label: 'Runs finished' },
      ],
    },
    {
      name: 'agent',
      label: 'Agent',
      value: filters.agent ?? '',
      options: [any('Any agent'), ...props.agents.map((agent) => ({ value: agent, label: agent }))],
    },
    {
      name: 'status',
      label: 'Status',
      value: filters.status ?? '',
      options: [
        any('Any status'),
        ...props.statuses.map((status) => ({ value: status, label: status })),
      ],
    },
  ]
  if (rows) {
    const by = [any('Anyone'), { value: person, label: `You (${nameOf(props.people, person)})` }]
    if (filters.by && filters.by !== person) {
      by.push({ value: filters.by, label: nameOf(props.people, filters.by) })
    }
    choices.push(
      {
        name: 'kind',
        label: 'Kind',
        value: filters.kind ?? '',
        options: [any('Any kind'), ...props.kinds.map((kind) => ({ value: kind, label: kind }))],
      },
      { name: 'by', label: 'Settled by', value: filters.by ?? '', options: by }
    )
  }
  choices.push(
    { name: 'from', label: 'From', value: filters.from ?? '' },
    { name: 'to', label: 'To', value: filters.to ?? '' }
  )
  return choices
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
