/*
 * What a reply's body lost on its way in. Body parsers drop names that
 * could pollute prototypes: Adonis's JSON parser drops `__proto__` and a
 * `constructor` holding a `prototype`, its form parser (qs) every name of
 * `Object.prototype` (`toString`, `constructor`, …). A reply is read
 * strictly (./reply.ts) because it is stored as sent, so a field the
 * parser dropped is refused by name like any other field no reply has,
 * rather than settled without it. Pure: the HTTP side hands in the body as
 * the client wrote it (read again from the raw text) and as the app's
 * parser gave it.
 */

import type { QuestionIssue } from './types.ts'

/** The most dropped fields named in one refusal, as for unknown fields */
const MAX_ISSUES = 10

/** A name a body parser may drop: one of `Object.prototype`'s, or `prototype` */
function isGuardedName(key: string): boolean {
  return key === 'prototype' || Object.hasOwn(Object.prototype, key)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The fields of `sent` (the body as the client wrote it) that `received`
 * (as the app's body parser gave it) lacks, each one whose name body
 * parsers drop, at most ten, by path (`constructor`, `answers.__proto__`).
 * Objects are compared key by key and lists index by index, without
 * recursion, so no nesting overflows the stack.
 *
 * @example
 * droppedFieldIssues({ skip: true, constructor: { prototype: {} } }, { skip: true })
 * // [{ path: 'constructor', rule: 'reservedName', message: '…' }]
 */
export function droppedFieldIssues(sent: unknown, received: unknown): QuestionIssue[] {
  const issues: QuestionIssue[] = []
  const pending: [sent: unknown, received: unknown, path: string][] = [[sent, received, '']]
  while (pending.length > 0 && issues.length < MAX_ISSUES) {
    const [from, to, path] = pending.pop()!
    const prefix = path ? `${path}.` : ''
    if (Array.isArray(from) && Array.isArray(to)) {
      from.forEach((item, index) => pending.push([item, to[index], `${prefix}${index}`]))
      continue
    }
    if (!isPlainObject(from) || !isPlainObject(to)) continue
    for (const key of Object.keys(from)) {
      if (Object.hasOwn(to, key)) pending.push([from[key], to[key], `${prefix}${key}`])
      else if (isGuardedName(key)) {
        issues.push({
          path: `${prefix}${key}`,
          rule: 'reservedName',
          message: 'is a name the request body cannot carry (its parser drops it): leave it out',
        })
      }
    }
  }
  return issues.slice(0, MAX_ISSUES)
}

/**
 * The fields of a form body (`application/x-www-form-urlencoded`) as a
 * tree of their names, the way qs nests them (`answers[db][]=pg`,
 * `answers.db=pg`), for `droppedFieldIssues`. Values are left out: only
 * names can be dropped.
 *
 * @example
 * formFieldTree('answers[db][]=pg&toString=1') // { answers: { db: { '': true } }, toString: true }
 */
export function formFieldTree(raw: string): Record<string, unknown> {
  const tree: Record<string, unknown> = Object.create(null)
  for (const name of new URLSearchParams(raw).keys()) {
    const segments = name.match(/[^[\].]+|\[\]/gu) ?? []
    let node = tree
    segments.forEach((segment, index) => {
      const key = segment === '[]' ? '' : segment
      if (index === segments.length - 1) {
        node[key] ??= true
        return
      }
      if (!isPlainObject(node[key])) node[key] = Object.create(null)
      node = node[key] as Record<string, unknown>
    })
  }
  return tree
}
