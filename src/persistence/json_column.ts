/*
 * JSON payloads live in text columns so one migration fits SQLite, PostgreSQL
 * and MySQL. This column option serializes on write and parses on read, and
 * tolerates drivers that already hand back parsed objects.
 */

import { column } from '@adonisjs/lucid/orm'

/**
 * A Lucid `@column` for a JSON payload stored as text.
 *
 * @example
 * @jsonColumn()
 * declare request: QuestionSet
 */
export function jsonColumn(options: { columnName?: string } = {}) {
  return column({
    ...options,
    prepare: (value: unknown) =>
      value === undefined || value === null ? null : JSON.stringify(value),
    consume: (value: unknown) =>
      typeof value === 'string' ? JSON.parse(value) : value === undefined ? null : value,
  })
}
