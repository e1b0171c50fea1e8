/*
 * What the model fuzz (tests/runtime/model_fuzz.spec.ts) has the model
 * send: steps of generated tool calls. Unknown tools, broken JSON, asks
 * that break every rule of a question set, args of the wrong shape, ids
 * that repeat within a step and across steps, differ only in case or
 * trailing space, are empty, huge or hold a NUL byte; mixed with valid
 * calls, so some runs wait on rows and go on once they are settled.
 */

import type { LanguageModelV4Content } from '@ai-sdk/provider'
import type { Fuzz } from './fuzz.ts'
import type { Question, QuestionSet } from '../../src/questions/types.ts'

/** The tools of the fuzzed agent, as named to the model */
export const FUZZ_TOOLS = ['deploy', 'note', 'look', 'boom', 'ask'] as const

/**
 * Ids a model may send. A few come back often, so steps reuse them, within
 * a step and across steps, and in forms only a collation tells apart.
 */
function callId(fuzz: Fuzz): string {
  return fuzz.weighted([
    [6, () => `call_${fuzz.int(0, 9999)}`],
    [
      6,
      () =>
        fuzz.pick(['c1', 'C1', 'c1 ', ' c1', 'c2', 'call_0', '0', '', 'é', 'e\u0301', 'ǅ', 'ǆ']),
    ],
    [1, () => `c\u0000${fuzz.int(0, 3)}`],
    [1, () => `long_${'x'.repeat(fuzz.pick([75, 80, 81, 200, 5000]))}`],
    [1, () => fuzz.pick(['\ud800', '🙂', '\u202eevil', '%00', '../../etc'])],
    [1, () => fuzz.junkString(30)],
  ])
}

function option(value: string, label = value.toUpperCase()) {
  return { value, label }
}

/** A set that holds together, so the run waits on it */
function validSet(fuzz: Fuzz): QuestionSet {
  const id = fuzz.pick(['db', 'size', 'name'])
  const question: Question = fuzz.weighted<Question>([
    [2, () => ({ id, prompt: 'Pick one', options: [option('a'), option('b')], defaults: ['a'] })],
    [
      1,
      () => ({
        id,
        prompt: 'A name?',
        input: { type: 'text', pattern: '^[a-z]{1,8}$', required: fuzz.chance(0.5) },
        defaults: fuzz.chance(0.5) ? ['abc'] : [],
      }),
    ],
    [
      1,
      () => ({
        id,
        prompt: 'How many?',
        input: { type: 'integer', min: 1, max: 3 },
        defaults: ['2'],
      }),
    ],
  ])
  return { preamble: fuzz.chance(0.3) ? 'Before I go on:' : undefined, questions: [question] }
}

/**
 * One way to break a question set, applied to a valid one.
 */
function brokenSet(fuzz: Fuzz): unknown {
  const set = validSet(fuzz) as QuestionSet & Record<string, unknown>
  const first = set.questions[0] as Question & Record<string, unknown>
  const text = { id: 'free', prompt: 'Text', input: { type: 'text' as const }, defaults: [] }
  fuzz.pick<() => void>([
    () => set.questions.push({ ...first }),
    () =>
      set.questions.push(
        ...Array.from({ length: fuzz.int(4, 40) }, (_, i) => ({ ...text, id: `q${i}` }))
      ),
    () => (set.questions = []),
    () => Object.assign(first, { id: '' }),
    () => Object.assign(first, { prompt: 'p'.repeat(fuzz.pick([401, 5000, 200_000])) }),
    () => Object.assign(first, { prompt: '' }),
    () => Object.assign(first, { options: [option('a'), option('b')], defaults: ['nope'] }),
    () => Object.assign(first, { options: [option('a'), option('b')], defaults: ['A'] }),
    () => Object.assign(first, { options: [option('a'), option('b')], defaults: ['a', 'b'] }),
    () => Object.assign(first, { options: [option('a')], defaults: ['a'] }),
    () =>
      Object.assign(first, {
        options: Array.from({ length: 10 }, (_, i) => option(`o${i}`)),
        defaults: ['o0'],
      }),
    () => Object.assign(first, { options: [option('a'), option('a')], defaults: ['a'] }),
    () =>
      Object.assign(first, {
        options: [option('a'), option('b')],
        defaults: ['a'],
        intent: { kind: 'plan-review', approve: fuzz.pick(['a', 'A', 'nope']) },
      }),
    () =>
      Object.assign(first, {
        input: {
          type: 'text',
          pattern: fuzz.pick([
            '(a+)+$',
            '^(a|b)*$',
            '(x)\\1',
            '(?=a)a',
            '(?<!a)b',
            '[',
            '(',
            '*',
            'a{99999}',
            '(?i)a',
            'x'.repeat(250),
            '\\p{Nope}',
            '(((((((((a)))))))))*',
          ]),
        },
        options: undefined,
        defaults: [],
      }),
    () => Object.assign(first, { input: { type: 'color' }, options: undefined, defaults: [] }),
    () => Object.assign(first, { input: { type: 'integer', min: 'abc', max: 5 }, defaults: [] }),
    () => Object.assign(first, { input: { type: 'integer', min: 9, max: 1 }, defaults: ['5'] }),
    () => Object.assign(first, { input: { type: 'integer', min: 1, max: 3 }, defaults: ['x'] }),
    () => Object.assign(first, { input: { type: 'date', min: 5 }, defaults: ['2026-13-01'] }),
    () => Object.assign(first, { defaults: 'a' }),
    () => Object.assign(first, { defaults: undefined }),
    () => Object.assign(first, { options: [{ value: '', label: '' }], hotkey: 'ab' }),
    () => Object.assign(first, { multiple: 'yes', allowFreeText: 1 }),
    () => Object.assign(set, { questions: fuzz.junkValue(4) }),
    () => Object.assign(set, { preamble: fuzz.junkValue(2), extra: fuzz.junkValue(3) }),
    () => Object.assign(first, { [fuzz.word()]: fuzz.junkValue(3), detail: 5 }),
  ])()
  return set
}

/** Input for one tool: valid, of the wrong shape, or no JSON at all */
function toolInput(fuzz: Fuzz, tool: string): unknown {
  return fuzz.weighted<unknown>([
    [
      5,
      () => {
        switch (tool) {
          case 'ask':
            return validSet(fuzz)
          case 'deploy':
            return { branch: fuzz.word(), force: fuzz.chance(0.3) }
          case 'note':
            return { text: fuzz.junkString(20) }
          default:
            return { key: fuzz.word() }
        }
      },
    ],
    [tool === 'ask' ? 12 : 0, () => brokenSet(fuzz)],
    [
      3,
      () =>
        fuzz.pick<unknown>([
          {},
          { branch: '' },
          { branch: 5 },
          { text: null },
          { key: ['k'] },
          [],
          'deploy',
          null,
          7,
        ]),
    ],
    [2, () => fuzz.junkValue(4)],
    [
      2,
      () =>
        new RawInput(
          fuzz.pick([
            '{',
            '{"branch": "main"',
            'nul',
            '',
            '   ',
            '{"a": 1}}',
            '\u0000',
            `"${'s'.repeat(50_000)}"`,
          ])
        ),
    ],
  ])
}

/** Input the model sends as is, not as JSON */
class RawInput {
  constructor(readonly text: string) {}
}

/**
 * One tool call: a known tool or not, its input good or bad.
 */
function toolCall(fuzz: Fuzz, id: string): LanguageModelV4Content {
  const name = fuzz.weighted<string>([
    [10, () => fuzz.pick(FUZZ_TOOLS)],
    [
      1,
      () => fuzz.pick(['ASK', 'ask ', 'Deploy', '', 'x'.repeat(300), 'constructor', '__proto__']),
    ],
    [1, () => fuzz.word()],
    [1, () => fuzz.junkString(10)],
  ])
  const input = toolInput(fuzz, name)
  return {
    type: 'tool-call',
    toolCallId: id,
    toolName: name,
    input: input instanceof RawInput ? input.text : JSON.stringify(input),
  }
}

/**
 * A step of 1 to 5 calls, some sharing an id, sometimes with text beside.
 */
export function fuzzStep(fuzz: Fuzz): LanguageModelV4Content[] {
  const ids: string[] = []
  const parts: LanguageModelV4Content[] = []
  if (fuzz.chance(0.2)) parts.push({ type: 'text', text: fuzz.junkString(30) })
  for (let count = fuzz.int(1, 5); count > 0; count--) {
    const id = ids.length && fuzz.chance(0.2) ? fuzz.pick(ids) : callId(fuzz)
    ids.push(id)
    parts.push(toolCall(fuzz, id))
  }
  return parts
}
