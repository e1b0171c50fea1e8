/*
 * What an edit changed in an approval's args, as the form's fields: a line
 * per field that changed, "Branch: main → release-7", labelled as the edit
 * form labels it (the tool's schema when the card has it, else the
 * property name as a person reads it). Without a framework, so the
 * history, the run's page and Node all tell an edit alike. The app
 * receives this file in inertia/agent_inbox/.
 */

import { labelOf, type SchemaField } from './schema_form'
// A cycle (words.ts imports this file), harmless: `t` is only called inside functions
import { t } from './words'

/** One field an edit changed */
export type ArgsChange = { label: string; before: string; after: string }

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * A value as a field shows it: text as typed, yes/no for a checkbox, "—"
 * for nothing, anything else as compact JSON.
 */
function fieldText(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—'
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return t(value ? 'page.card.yes' : 'page.card.no')
  return JSON.stringify(value)
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The fields `after` changed from `before`, in the form's order (then any
 * the form does not know), nested objects and lists by their own fields:
 * "Target › Region", "Items 2 › Name".
 *
 * @example
 * argsChanges({ branch: 'main', force: false }, { branch: 'release-7', force: true })
 * // [{ label: 'Branch', before: 'main', after: 'release-7' }, { label: 'Force', before: 'No', after: 'Yes' }]
 */
export function argsChanges(
  before: unknown,
  after: unknown,
  form?: SchemaField | null,
  label = ''
): ArgsChange[] {
  if (same(before, after)) return []
  const within = (name: string) => (label ? `${label} › ${name}` : name)
  if (isRecord(before) && isRecord(after)) {
    const known = form?.fields ?? []
    const names = [
      ...known.map((field) => field.name),
      ...[...Object.keys(before), ...Object.keys(after)].filter(
        (name) => !known.some((field) => field.name === name)
      ),
    ]
    return [...new Set(names)].flatMap((name) => {
      const field = known.find((item) => item.name === name)
      return argsChanges(before[name], after[name], field, within(field?.label ?? labelOf(name)))
    })
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length)
    const name = label || t('page.card.items')
    return Array.from({ length }, (_, index) =>
      argsChanges(before[index], after[index], form?.item, `${name} ${index + 1}`)
    ).flat()
  }
  return [
    {
      label: label || t('page.card.arguments'),
      before: fieldText(before),
      after: fieldText(after),
    },
  ]
}

/**
 * The lines that tell an edit: a line per changed field, "Label: before →
 * after", or that the edit changed nothing.
 */
export function argsChangeLines(
  before: unknown,
  after: unknown,
  form?: SchemaField | null
): string[] {
  const changes = argsChanges(before, after, form)
  if (changes.length === 0) return [t('page.card.edited_nothing')]
  return changes.map((change) => t('page.card.args_change', change))
}
