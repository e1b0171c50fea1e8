/*
 * Vine's field errors as the package's issues, keeping the rule each
 * broke and what the rule was given, so a 422 reports them as Vine does
 * (`{ field, message, rule, meta }`) whatever validated them: a reply's
 * shape, a tool's edited args, a listing's query string.
 */

import type { QuestionIssue } from './types.ts'

/** A field error as Vine's SimpleErrorReporter reports it */
export type VineFieldError = {
  field: string
  message: string
  rule: string
  meta?: Record<string, unknown>
}

/**
 * Vine's field errors as issues, with `path` formatted (dotted by
 * default; an empty field is the whole `reply`).
 *
 * @example
 * vineIssues(error.messages) // [{ path: 'approved', message: 'must be true or false', rule: 'boolean' }]
 */
export function vineIssues(
  messages: unknown,
  path: (field: string) => string = (field) => field || 'reply'
): QuestionIssue[] {
  return (messages as VineFieldError[]).map(({ field, message, rule, meta }) => ({
    path: path(field),
    message,
    rule,
    ...(meta === undefined ? {} : { meta }),
  }))
}
