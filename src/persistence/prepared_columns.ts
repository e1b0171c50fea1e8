/*
 * Conditional updates (`UPDATE … WHERE status = 'pending'`) bypass model
 * hooks, so their payload must be written the way Lucid would write it:
 * column names, JSON serialized, dates in the dialect's format, as Lucid's
 * `prepareForAdapter` (which its types do not expose) does.
 */

import { DateTime, Settings } from 'luxon'
import type { LucidModel, LucidRow } from '@adonisjs/lucid/types/model'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'

/**
 * Column names and prepared values of some attributes of a model.
 *
 * @example
 * await ToolCall.query().where('status', 'pending').update(preparedColumns(row, { status: 'answered' }))
 */
export function preparedColumns<T extends LucidRow>(
  row: T,
  attributes: { [K in keyof T]?: T[K] }
): Record<string, any> {
  return prepareAttributes(row.constructor as LucidModel, row, attributes, new Map())
}

/**
 * The columns of many new rows of one model, as `preparedColumns` would
 * write each, without a model instance per row: the hot path writes a
 * step's rows this way. Each distinct DateTime is formatted once (a
 * checkpoint's rows share one `now`).
 *
 * @example
 * await trx.insertQuery().table(JournalRow.table).multiInsert(preparedRows(JournalRow, entries))
 */
export function preparedRows<Model extends LucidModel>(
  model: Model,
  rows: { [K in keyof InstanceType<Model>]?: InstanceType<Model>[K] }[]
): Record<string, unknown>[] {
  const probe = new model()
  const dates = new Map<DateTime, string>()
  return rows.map((attributes) => prepareAttributes(model, probe, attributes, dates))
}

/**
 * What Lucid's `prepareForAdapter` does (each column's `prepare`, under its
 * column name), but for dates: Lucid's date columns build a query per
 * value to learn the dialect's format, where here the format is read from
 * the connection's client, once per distinct DateTime in `dates`.
 */
function prepareAttributes(
  model: LucidModel,
  row: LucidRow,
  attributes: object,
  dates: Map<DateTime, string>
): Record<string, any> {
  const columns: Record<string, unknown> = {}
  for (const [key, given] of Object.entries(attributes)) {
    const column = model.$getColumn(key)
    if (!column) throw new Error(`${model.name} has no column "${key}"`)
    let value = given
    if (DateTime.isDateTime(value) && value.isValid) {
      if (!dates.has(value)) {
        const client = model.$adapter.modelConstructorClient(model)
        dates.set(value, formatDateTime(value, client.dialect.dateTimeFormat))
      }
      value = dates.get(value)
    } else if (typeof column.prepare === 'function') {
      value = column.prepare(value, key, row)
    }
    columns[column.columnName] = value
  }
  return columns
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0')

/**
 * A DateTime in a dialect's format. The two formats of the package's
 * databases are written from the DateTime's own fields, as Luxon's
 * `toFormat` writes them at a fortieth of its cost (a checkpoint formats a
 * few dates); any other format, a year of more or fewer than four digits,
 * or an offset in seconds, goes to `toFormat`.
 */
export function formatDateTime(value: DateTime, format: string): string {
  if (value.year >= 1000 && value.year <= 9999) {
    const date = `${value.year}-${pad(value.month)}-${pad(value.day)}`
    const time = `${pad(value.hour)}:${pad(value.minute)}:${pad(value.second)}`
    if (format === 'yyyy-MM-dd HH:mm:ss') return `${date} ${time}`
    // Zones once had offsets in seconds (local mean time): those go to Luxon
    if (format === "yyyy-MM-dd'T'HH:mm:ss.SSSZZ" && Number.isInteger(value.offset)) {
      const offset = Math.abs(value.offset)
      const sign = value.offset < 0 ? '-' : '+'
      const zone = `${sign}${pad(Math.floor(offset / 60))}:${pad(offset % 60)}`
      return `${date}T${time}.${pad(value.millisecond, 3)}${zone}`
    }
  }
  return value.toFormat(format)
}

/**
 * The affected-row count of an update: a number or a one-element array,
 * depending on the dialect.
 */
export function affectedRows(result: unknown): number {
  return Number(Array.isArray(result) ? result[0] : result)
}

/**
 * The next `sequence` of a run in a table keyed by (run_id, sequence). Its
 * unique index turns a race into an error rather than a fork.
 */
export async function nextSequence(
  model: LucidModel,
  runId: string,
  client?: TransactionClientContract
): Promise<number> {
  const [row] = await model
    .query(client ? { client } : {})
    .where('run_id', runId)
    .max('sequence as last')
    .pojo<{ last: number | string | null }>()
  return Number(row?.last ?? 0) + 1
}

/**
 * Models from raw rows of a read-only listing, without Lucid's copy of
 * every attribute as "original" (a deep merge per row that costs more than
 * the query) nor its per-attribute setter calls: columns are consumed (JSON
 * parsed, dates made) as Lucid would and the attributes set at once, and
 * the instances know they are persisted, so `refresh()` and conditional
 * updates work. The model's internals are filled in place or defined at
 * once (a plain assignment goes through both of Lucid's proxy traps, set
 * and defineProperty). Save them only through conditional updates. Columns the
 * model does not declare go to `$extras`, as with Lucid.
 *
 * @example
 * const rows = readRows(ToolCall, await ToolCall.query().where(...).pojo())
 */
export function readRows<Model extends LucidModel>(
  model: Model,
  raw: Record<string, unknown>[]
): InstanceType<Model>[] {
  if (raw.length === 0) return []
  // The columns of a query's rows are the same: look each up once
  const columns = columnsOf(model)
  const plan = Object.keys(raw[0]).map((name) => ({ name, column: columns.get(name) }))
  const hasExtras = plan.some(({ column }) => !column)
  const primaryKey = model.primaryKey
  const keyed = model.selfAssignPrimaryKey
  return raw.map((values) => {
    const row = new model() as InstanceType<Model>
    // A new model's own (empty) objects, filled in place: reading them costs one proxy trap, setting two
    const attributes = row.$attributes as Record<string, unknown>
    const extras = hasExtras ? (row.$extras as Record<string, unknown>) : undefined
    for (const { name, column } of plan) {
      if (!column) extras![name] = values[name]
      else if (!column.consume) attributes[column.attribute] = values[name]
      else attributes[column.attribute] = column.consume(values[name], column.attribute, row)
    }
    // A self-assigned key is read from the originals by `refresh()` and Lucid's updates
    if (keyed) (row.$original as Record<string, unknown>)[primaryKey] = attributes[primaryKey]
    Object.defineProperties(row, {
      $isPersisted: { value: true, writable: true, enumerable: true, configurable: true },
      $isLocal: { value: false, writable: true, enumerable: true, configurable: true },
    })
    return row
  })
}

type ConsumedColumn = {
  attribute: string
  consume?: (value: unknown, attribute: string, row: LucidRow) => unknown
}

const consumedColumns = new WeakMap<LucidModel, Map<string, ConsumedColumn>>()

/**
 * A model's columns by column name, with the attribute each fills and how
 * its value is consumed; built once per model.
 */
function columnsOf(model: LucidModel): Map<string, ConsumedColumn> {
  let columns = consumedColumns.get(model)
  if (!columns) {
    columns = new Map()
    for (const [attribute, column] of model.$columnsDefinitions) {
      const consume =
        column.meta?.type === 'datetime' ? sqlDateTimeFirst(column.consume) : column.consume
      columns.set(column.columnName, { attribute, consume })
    }
    consumedColumns.set(model, columns)
  }
  return columns
}

/** A date and time as SQLite and MySQL return them: `2026-01-01 00:03:19[.123]` */
const SQL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3})\d*)?$/

/**
 * A date column's consume with a fast path for the SQL strings of SQLite
 * and MySQL: Luxon's `fromSQL` parses them in the default zone, which is
 * what the system's `Date` does when that zone is the system's, at a
 * fraction of the cost (a listing's rows each have two or three dates).
 * Anything else, and any date before 1970, goes to Lucid's own consume.
 */
function sqlDateTimeFirst(consume: ConsumedColumn['consume']): ConsumedColumn['consume'] {
  return (value, attribute, row) => {
    if (typeof value === 'string' && Settings.defaultZone.type === 'system') {
      const parts = SQL_DATE_TIME.exec(value)
      // Before 1970 zones had offsets in seconds (local mean time) that Date and Luxon read apart
      if (parts && +parts[1] >= 1970) {
        const [, year, month, day, hour, minute, second, fraction] = parts
        const local = new Date(0)
        local.setFullYear(+year, +month - 1, +day)
        local.setHours(+hour, +minute, +second, fraction ? +fraction.padEnd(3, '0') : 0)
        return DateTime.fromMillis(local.getTime())
      }
    }
    return consume ? consume(value, attribute, row) : value
  }
}
