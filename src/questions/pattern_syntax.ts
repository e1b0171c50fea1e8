/*
 * Reading a pattern for the linear-time matcher of pattern.ts: where each
 * part of a pattern (that already compiles with the `u` flag) ends, as a
 * tree, and the shape rule a question's pattern must pass. Browser-safe,
 * like pattern.ts: no imports.
 */

/** The most NFA instructions a pattern may compile to (`{n,m}` copies its operand) */
export const MAX_PROGRAM = 500

export type Node =
  | { type: 'char'; source: string }
  | { type: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  | { type: 'seq'; items: Node[] }
  | { type: 'alt'; options: Node[] }
  | { type: 'group'; node: Node }
  | { type: 'repeat'; node: Node; min: number; max: number }

/**
 * A pattern outside what the matcher supports or what a question may
 * carry; the message says the fix.
 */
export class PatternProblem extends Error {}

export const TOO_LARGE =
  'is too large to match safely: use smaller {n,m} counts, and give length bounds as input.min/input.max instead'

/**
 * A recursive-descent reader of a pattern that already compiles with the
 * `u` flag, so it only has to find where each part ends, not report syntax.
 */
export class Parser {
  #at = 0
  constructor(readonly source: string) {}

  parse(): Node {
    const node = this.#alternation()
    if (this.#at < this.source.length) throw new PatternProblem('has an unmatched ")"')
    return node
  }

  #alternation(): Node {
    const options = [this.#sequence()]
    while (this.source[this.#at] === '|') {
      this.#at++
      options.push(this.#sequence())
    }
    return options.length === 1 ? options[0] : { type: 'alt', options }
  }

  #sequence(): Node {
    const items: Node[] = []
    while (this.#at < this.source.length && !'|)'.includes(this.source[this.#at])) {
      const atom = this.#atom()
      const bounds = this.#quantifier()
      items.push(bounds ? { type: 'repeat', node: atom, ...bounds } : atom)
    }
    return { type: 'seq', items }
  }

  #atom(): Node {
    const source = this.source
    const start = this.#at
    const char = source[start]
    if (char === '(') return this.#group()
    if (char === '^' || char === '$') {
      this.#at++
      return { type: 'assert', kind: char }
    }
    if (char === '\\') return this.#escape()
    if (char === '[') {
      let at = start + 1
      if (source[at] === '^') at++
      while (at < source.length && source[at] !== ']') at += source[at] === '\\' ? 2 : 1
      this.#at = at + 1
      return { type: 'char', source: source.slice(start, this.#at) }
    }
    // A literal, or `.`: one code point, which may be a surrogate pair
    this.#at += (source.codePointAt(start) ?? 0) > 0xffff ? 2 : 1
    return { type: 'char', source: source.slice(start, this.#at) }
  }

  #group(): Node {
    const source = this.source
    const at = this.#at
    if (/^\(\?<?[=!]/.test(source.slice(at, at + 4))) {
      throw new PatternProblem(
        'uses a lookahead or lookbehind ((?=, (?!, (?<=, (?<!), which is not supported: describe the rule in the prompt instead'
      )
    }
    if (source.startsWith('(?:', at)) this.#at += 3
    else if (source.startsWith('(?<', at)) this.#at = source.indexOf('>', at) + 1
    else if (source.startsWith('(?', at)) {
      throw new PatternProblem(
        'uses a group modifier ((?i: and the like): write a plain (?:…) group'
      )
    } else this.#at++
    const node = this.#alternation()
    this.#at++ // the closing ")"
    return { type: 'group', node }
  }

  #escape(): Node {
    const source = this.source
    const start = this.#at
    const next = source[start + 1]
    if (next === 'b' || next === 'B') {
      this.#at += 2
      return { type: 'assert', kind: next }
    }
    if (/[1-9k]/.test(next)) {
      throw new PatternProblem(
        'uses a backreference (\\1, \\k<name>), which is not supported: write the repeated part out'
      )
    }
    let end = start + 2
    if (next === 'x') end = start + 4
    else if (next === 'c') end = start + 3
    else if (next === 'p' || next === 'P') end = source.indexOf('}', start) + 1
    else if (next === 'u' && source[start + 2] === '{') end = source.indexOf('}', start) + 1
    else if (next === 'u') {
      end = start + 6
      // A surrogate pair written as two escapes is one code point under `u`
      const lead = Number.parseInt(source.slice(start + 2, end), 16)
      const trail = /^\\u([\da-fA-F]{4})/.exec(source.slice(end))
      const low = trail ? Number.parseInt(trail[1], 16) : 0
      if (lead >= 0xd800 && lead <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) end += 6
    }
    this.#at = end
    return { type: 'char', source: source.slice(start, end) }
  }

  #quantifier(): { min: number; max: number } | null {
    const rest = this.source.slice(this.#at)
    const match = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(rest)
    if (!match) return null
    this.#at += match[0].length
    if (match[1] === '*') return { min: 0, max: Infinity }
    if (match[1] === '+') return { min: 1, max: Infinity }
    if (match[1] === '?') return { min: 0, max: 1 }
    const min = Number(match[2])
    const max = match[3] === undefined ? min : match[4] === '' ? Infinity : Number(match[4])
    if (min > MAX_PROGRAM || (max !== Infinity && max > MAX_PROGRAM)) {
      throw new PatternProblem(TOO_LARGE)
    }
    return { min, max }
  }
}

/**
 * Whether a node holds a quantifier that lets it match in more than one way
 * (a fixed count such as `{3}` does not) or an alternation.
 */
function isAmbiguous(node: Node): boolean {
  switch (node.type) {
    case 'char':
    case 'assert':
      return false
    case 'alt':
      return true
    case 'group':
      return isAmbiguous(node.node)
    case 'seq':
      return node.items.some(isAmbiguous)
    case 'repeat':
      return node.min !== node.max || isAmbiguous(node.node)
  }
}

/**
 * Refuses a repeated group holding a quantifier or an alternation, the
 * shape behind exponential backtracking (`(a+)+`, `(a|aa)*`, `(a?){20}`).
 * A group made optional by `?` is not repeated.
 */
export function checkNesting(node: Node): void {
  switch (node.type) {
    case 'group':
      return checkNesting(node.node)
    case 'seq':
      return node.items.forEach(checkNesting)
    case 'alt':
      return node.options.forEach(checkNesting)
    case 'repeat':
      if (node.max > 1 && isAmbiguous(node.node)) {
        throw new PatternProblem(
          'repeats a group that holds a quantifier or an alternation (like (a+)+ or (a|b)*), which can take exponential time: use a character class such as [a-z0-9-]+ instead'
        )
      }
      return checkNesting(node.node)
    default:
  }
}
