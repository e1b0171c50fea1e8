/*
 * When a notice goes out, pure (docs/design.md §7.7): at once, at the end
 * of a person's quiet hours, or with their digest, one per interval.
 */

import type { DateTime } from 'luxon'

/** Hours a person is not to be disturbed, `HH:mm` in their time zone (may span midnight) */
export type QuietHours = { from: string; to: string; zone?: string }

/**
 * A person's notification preferences, from the `preferences` hook.
 *
 * @example
 * preferences: async (id) => {
 *   const user = await User.findOrFail(id)
 *   return { email: user.email, notifiers: ['mail'], digest: 30, quietHours: { from: '22:00', to: '07:00', zone: 'Europe/Paris' } }
 * }
 */
export type Preferences = {
  email?: string | null
  name?: string | null
  /** Their language (`fr`, `de-CH`): mails speak it (docs/guides/languages.md); default English */
  locale?: string | null
  /** The notifiers (by name) that tell this person; default: all configured */
  notifiers?: string[]
  /** Minutes: one digest per interval instead of a message per row */
  digest?: number
  quietHours?: QuietHours
}

/**
 * The end of the quiet hours `now` falls in, or null when it falls in none.
 *
 * @example
 * quietUntil(DateTime.fromISO('2026-01-01T23:00Z'), { from: '22:00', to: '07:00', zone: 'UTC' })
 * // 2026-01-02T07:00Z
 */
export function quietUntil(now: DateTime, quiet?: QuietHours): DateTime | null {
  if (!quiet) return null
  const local = now.setZone(quiet.zone ?? 'UTC')
  const at = (hhmm: string, day: DateTime) => {
    const [hour, minute] = hhmm.split(':').map(Number)
    return day.set({ hour, minute, second: 0, millisecond: 0 })
  }
  const start = at(quiet.from, local)
  const end = at(quiet.to, local)
  if (start <= end) return local >= start && local < end ? end.setZone(now.zone) : null
  // Spans midnight: quiet from `from` to midnight, and from midnight to `to`
  if (local >= start) return end.plus({ days: 1 }).setZone(now.zone)
  return local < end ? end.setZone(now.zone) : null
}

/**
 * When a person's held notices go out: with the digest already waiting
 * (`waiting`, the earliest held due time) or one interval from now, and
 * never inside quiet hours.
 */
export function heldUntil(now: DateTime, prefs: Preferences, waiting: DateTime | null): DateTime {
  const digest =
    prefs.digest && prefs.digest > 0
      ? waiting && waiting > now
        ? waiting
        : now.plus({ minutes: prefs.digest })
      : now
  return quietUntil(digest, prefs.quietHours) ?? digest
}
