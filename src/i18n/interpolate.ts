/*
 * What every part of the package that speaks a language shares, and the
 * pages in the browser too: filling a message's `{name}` placeholders, and
 * finding a locale's entry among those the package ships. Pure and
 * importing nothing, so the errors and the browser entry may use it.
 */

/**
 * `{name}` placeholders filled from data; an unknown one stays as written.
 *
 * @example
 * interpolate('Row {rowId} expired', { rowId: 'r1' }) // 'Row r1 expired'
 */
export function interpolate(message: string, data: Record<string, unknown> = {}): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = data[name]
    return value === undefined || value === null ? whole : String(value)
  })
}

/**
 * The entry of `locale` in a table by language, or of its language
 * (`fr-CA` reads `fr`) when the locale itself has none.
 */
export function byLocale<T>(table: Record<string, T>, locale: string): T | undefined {
  return table[locale] ?? table[locale.split(/[-_]/)[0]!.toLowerCase()]
}
