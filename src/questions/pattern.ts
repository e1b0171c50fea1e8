/*
 * The `input.pattern` of a text question, matched in linear time
 * (docs/design.md §3.6). A pattern is written by a model, or arrives from an
 * MCP server, so it is untrusted: run through a backtracking engine (V8's
 * RegExp, a browser's `<input pattern>`), `^(a+)+$` takes time doubling with
 * every character of the value. Two rules keep that out:
 *
 *  - `patternProblem` is what a pattern must pass to be accepted in a
 *    question set: JavaScript syntax with the `u` flag, at most
 *    MAX_PATTERN_LENGTH characters, no backreference, no lookaround, no
 *    repeated group that holds a quantifier or an alternation, and small
 *    enough to compile. The shapes are refused even though the matcher below
 *    survives them, because a question set also reaches engines the package
 *    does not control (the page's `<input pattern>`, MCP clients, app code).
 *  - `matchesPattern` never hands the pattern to RegExp's backtracking. It
 *    compiles it to a small NFA and runs every alternative in lockstep
 *    (Thompson's construction), in O(value × pattern) steps. Only one
 *    character at a time (`.`, `[a-z]`, `\p{L}`, `\d`, a literal) is tested
 *    with RegExp, so each means exactly what JavaScript says it means.
 *
 * Browser-safe (it imports only pattern_syntax.ts, which reads a pattern),
 * so the page shares these rules (`adonis-agent-inbox/questions/client`).
 */

import {
  checkNesting,
  MAX_PROGRAM,
  type Node,
  Parser,
  PatternProblem,
  TOO_LARGE,
} from './pattern_syntax.ts'

/** The longest pattern a question may carry */
export const MAX_PATTERN_LENGTH = 200

/** The longest value matched against a pattern; a longer one fails it */
export const MAX_PATTERN_VALUE_LENGTH = 2000

/** One code point's test, shared by every copy of the same atom */
type CharTest = { id: number; regex: RegExp }
type Instruction =
  | { op: 'char'; test: CharTest }
  | { op: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; to: number }
  | { op: 'match' }
type Program = { instructions: Instruction[]; tests: number }

/**
 * Compiles a parsed pattern to NFA instructions: `split` forks, `jmp`
 * jumps, `char` consumes one code point. `{n,m}` copies its operand, so
 * the size is capped.
 */
function compile(root: Node): Program {
  const program: Instruction[] = []
  const tests = new Map<string, CharTest>()
  const emit = (node: Node): void => {
    if (program.length > MAX_PROGRAM) throw new PatternProblem(TOO_LARGE)
    switch (node.type) {
      case 'char': {
        let test = tests.get(node.source)
        if (!test) {
          test = { id: tests.size, regex: new RegExp(`^(?:${node.source})$`, 'u') }
          tests.set(node.source, test)
        }
        program.push({ op: 'char', test })
        return
      }
      case 'assert':
        program.push({ op: 'assert', kind: node.kind })
        return
      case 'group':
        return emit(node.node)
      case 'seq':
        return node.items.forEach(emit)
      case 'alt': {
        const jumps: Array<{ op: 'jmp'; to: number }> = []
        node.options.forEach((option, index) => {
          if (index === node.options.length - 1) return emit(option)
          const split = { op: 'split' as const, x: program.length + 1, y: 0 }
          program.push(split)
          emit(option)
          const jump = { op: 'jmp' as const, to: 0 }
          program.push(jump)
          jumps.push(jump)
          split.y = program.length
        })
        for (const jump of jumps) jump.to = program.length
        return
      }
      case 'repeat': {
        for (let count = 0; count < node.min; count++) emit(node.node)
        const splits: Array<{ op: 'split'; x: number; y: number }> = []
        if (node.max === Infinity) {
          const loop = program.length
          const split = { op: 'split' as const, x: loop + 1, y: 0 }
          program.push(split)
          emit(node.node)
          program.push({ op: 'jmp', to: loop })
          splits.push(split)
        } else {
          for (let count = node.min; count < node.max; count++) {
            const split = { op: 'split' as const, x: program.length + 1, y: 0 }
            program.push(split)
            splits.push(split)
            emit(node.node)
          }
        }
        for (const split of splits) split.y = program.length
      }
    }
  }
  emit(root)
  if (program.length > MAX_PROGRAM) throw new PatternProblem(TOO_LARGE)
  program.push({ op: 'match' })
  return { instructions: program, tests: tests.size }
}

const WORD = /^[A-Za-z0-9_]$/u

function isWord(char: string | undefined): boolean {
  return char !== undefined && WORD.test(char)
}

function holds(kind: '^' | '$' | 'b' | 'B', chars: string[], at: number): boolean {
  if (kind === '^') return at === 0
  if (kind === '$') return at === chars.length
  const boundary = isWord(chars[at - 1]) !== isWord(chars[at])
  return kind === 'b' ? boundary : !boundary
}

/**
 * Runs the NFA over the value's code points, every thread in lockstep; a
 * match may start at any position, like `RegExp.prototype.test`. Each
 * instruction is visited at most once per position, and each distinct atom
 * tested at most once per position.
 */
function run({ instructions, tests }: Program, value: string): boolean {
  const chars = Array.from(value)
  const visited = new Int32Array(instructions.length).fill(-1)
  // Per position and atom: 0 not tested yet, 1 matches, 2 does not
  const results = new Uint8Array(tests)
  const stack: number[] = []
  let current: number[] = []
  let matched = false

  const add = (list: number[], from: number, at: number) => {
    stack.push(from)
    while (stack.length > 0) {
      const pc = stack.pop()!
      if (visited[pc] === at) continue
      visited[pc] = at
      const instruction = instructions[pc]
      if (instruction.op === 'jmp') stack.push(instruction.to)
      else if (instruction.op === 'split') stack.push(instruction.y, instruction.x)
      else if (instruction.op === 'assert') {
        if (holds(instruction.kind, chars, at)) stack.push(pc + 1)
      } else if (instruction.op === 'match') matched = true
      else list.push(pc)
    }
  }

  for (let at = 0; ; at++) {
    add(current, 0, at)
    if (matched) return true
    if (at === chars.length) return false
    const char = chars[at]
    results.fill(0)
    const next: number[] = []
    for (const pc of current) {
      const { test } = instructions[pc] as Extract<Instruction, { op: 'char' }>
      if (results[test.id] === 0) results[test.id] = test.regex.test(char) ? 1 : 2
      if (results[test.id] === 1) add(next, pc + 1, at + 1)
    }
    current = next
  }
}

/**
 * Compiled patterns, and why the others cannot be matched; bounded, since
 * patterns come from models.
 */
const compiled = new Map<string, Program | string>()

function programOf(pattern: string): Program | string {
  let entry = compiled.get(pattern)
  if (entry === undefined) {
    entry = build(pattern)
    if (compiled.size >= 64) compiled.clear()
    compiled.set(pattern, entry)
  }
  return entry
}

function build(pattern: string): Program | string {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return `is ${pattern.length} characters long; keep it to ${MAX_PATTERN_LENGTH} or describe the format in the prompt`
  }
  try {
    new RegExp(pattern, 'u')
  } catch (error) {
    return `is not a valid regular expression (${(error as Error).message}); write it in JavaScript syntax, without slashes`
  }
  try {
    return compile(new Parser(pattern).parse())
  } catch (error) {
    /* c8 ignore next */
    if (!(error instanceof PatternProblem)) throw error
    return error.message
  }
}

/**
 * What is wrong with a pattern a question carries, or null when it may be
 * used: checked when a question set is validated, and by the page before it
 * hands a pattern to the browser's `<input pattern>`. The message says the
 * fix, for the model to read.
 *
 * @example
 * patternProblem('^[A-Z]{3}-\\d{3}$') // null
 * patternProblem('^(a+)+$') // 'repeats a group that holds a quantifier …'
 */
export function patternProblem(pattern: string): string | null {
  const program = programOf(pattern)
  if (typeof program === 'string') return program
  try {
    checkNesting(new Parser(pattern).parse())
    return null
  } catch (error) {
    /* c8 ignore next */
    if (!(error instanceof PatternProblem)) throw error
    return error.message
  }
}

/**
 * Whether a value matches a pattern, as `new RegExp(pattern, 'u').test(value)`
 * would say, in time linear in the value. Null when the pattern cannot be
 * matched here (invalid, too long or too large, a backreference or a
 * lookaround): such a pattern never passes validation, so it can only come
 * from a row stored before these rules, and callers treat it as no pattern
 * rule at all rather than making the question unanswerable. A value longer
 * than MAX_PATTERN_VALUE_LENGTH is the caller's to refuse.
 *
 * @example
 * matchesPattern('^v\\d+$', 'v12') // true
 * matchesPattern('^(a+)+$', 'a'.repeat(5000) + '!') // false, at once
 */
export function matchesPattern(pattern: string, value: string): boolean | null {
  const program = programOf(pattern)
  return typeof program === 'string' ? null : run(program, value)
}
