import { test } from '@japa/runner'
import {
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_VALUE_LENGTH,
  matchesPattern,
  patternProblem,
} from '../../src/questions/pattern.ts'
import { checkTypedValue } from '../../src/questions/values.ts'
import { validateQuestionSet } from '../../src/questions/validate.ts'
import * as client from '../../src/questions/client.ts'

/*
 * A model-written `input.pattern` is untrusted (docs/design.md §3.6): these
 * tests would hang for minutes on a backtracking match, so the suite's
 * timeout is their failure.
 */

const EVIL = '^(a+)+$'

test.group('Patterns | what a question may carry', () => {
  test('the ReDoS ask of issue 16 comes back as an issue on its pattern', async ({ assert }) => {
    const result = await validateQuestionSet({
      questions: [
        {
          id: 'code',
          prompt: 'Code?',
          input: { type: 'text', pattern: EVIL },
          defaults: ['a'.repeat(40) + '!'],
        },
      ],
    })
    assert.isFalse(result.ok)
    const issues = result.ok ? [] : result.issues
    assert.lengthOf(issues, 1, 'the default is not matched against a refused pattern')
    assert.equal(issues[0].path, 'questions[0].input.pattern')
    assert.match(issues[0].message, /repeats a group that holds a quantifier/)
    assert.match(issues[0].message, /use a character class/)
  })

  test('{pattern} is refused: {why}')
    .with([
      { pattern: '(a+)+', why: /repeats a group/ },
      { pattern: '(a|aa)*b', why: /repeats a group/ },
      { pattern: '(?:a?){25}a{25}', why: /repeats a group/ },
      { pattern: '^[a-z]+(-[a-z]+)*$', why: /repeats a group/ },
      { pattern: '(a)\\1', why: /backreference/ },
      { pattern: '(?<x>a)\\k<x>', why: /backreference/ },
      { pattern: 'a(?=b)', why: /lookahead or lookbehind/ },
      { pattern: '(?<!x)a', why: /lookahead or lookbehind/ },
      { pattern: '(?i:a)', why: /group modifier/ },
      { pattern: 'x'.repeat(MAX_PATTERN_LENGTH + 1), why: /keep it to 200/ },
      { pattern: '\\d{5000}', why: /too large/ },
      { pattern: '([a-z]', why: /not a valid regular expression/ },
    ])
    .run(({ assert }, { pattern, why }) => {
      assert.match(patternProblem(pattern) ?? 'accepted', why)
    })

  test('{pattern} is accepted')
    .with([
      '^[A-Z]{3}-[0-9]{3}$',
      '^v\\d+(\\.\\d+)?$',
      '(\\d{3}-){2}\\d{4}',
      '^[a-z][a-z0-9-]*$',
      '^(?:com|org)$',
      '\\p{Lu}\\w*',
    ])
    .run(({ assert }, pattern) => {
      assert.isNull(patternProblem(pattern))
    })

  test('the page reads the same rule from the browser-safe module', ({ assert }) => {
    assert.strictEqual(client.patternProblem, patternProblem)
    assert.strictEqual(client.matchesPattern, matchesPattern)
  })
})

test.group('Patterns | matching in linear time', () => {
  test('agrees with RegExp on {pattern}')
    .with([
      { pattern: '^[A-Z]{3}-[0-9]{3}$', values: ['ABC-123', 'abc-123', 'ABC-1234', ''] },
      { pattern: 'b', values: ['abc', 'xyz'] },
      { pattern: '^a|b$', values: ['ax', 'xb', 'xa'] },
      { pattern: '\\bcat\\b', values: ['a cat!', 'concat', 'cat'] },
      { pattern: '\\Bat', values: ['cat', 'at'] },
      { pattern: '^.$', values: ['😀', '\n', 'é', 'ab'] },
      { pattern: '^\\uD83D\\uDE00{2}$', values: ['😀😀', '😀'] },
      { pattern: '^\\p{L}+\\s\\d{1,3}$', values: ['Straße 12', 'Straße 1234', '12 12'] },
      { pattern: '^x{2,}y?$', values: ['x', 'xx', 'xxxy', 'xxyy'] },
      { pattern: '^(?:ab|a)(?:bc|c)$', values: ['abc', 'abbc', 'ac'] },
      { pattern: '^[^]$|^[]$', values: ['q', ''] },
      { pattern: '^(a*)*b$', values: ['aaab', 'aaa', 'b'] },
      { pattern: '^(?<year>\\d{4})-(?:0[1-9]|1[0-2])$', values: ['2026-12', '2026-13'] },
    ])
    .run(({ assert }, { pattern, values }) => {
      const regex = new RegExp(pattern, 'u')
      for (const value of values) {
        assert.equal(matchesPattern(pattern, value), regex.test(value), `${pattern} on ${value}`)
      }
    })

  test('a pattern refused at validation, stored before the rule, still matches at once', ({
    assert,
  }) => {
    // 2^40 steps for a backtracking engine
    assert.isFalse(matchesPattern(EVIL, 'a'.repeat(40) + '!'))
    assert.isTrue(matchesPattern(EVIL, 'a'.repeat(40)))
    assert.equal(
      checkTypedValue({ type: 'text', pattern: EVIL }, 'a'.repeat(1500) + '!'),
      `must match the pattern ${EVIL}`
    )
    assert.isFalse(matchesPattern('(x+x+)+y', 'x'.repeat(1000)))
  })

  test('a value longer than the bound fails the pattern without being matched', ({ assert }) => {
    const long = 'a'.repeat(MAX_PATTERN_VALUE_LENGTH + 1)
    assert.match(checkTypedValue({ type: 'text', pattern: '^a+$' }, long) ?? '', /too long/)
    assert.isNull(checkTypedValue({ type: 'text', pattern: '^a+$' }, long.slice(1)))
  })

  test('a stored pattern the matcher cannot run is no rule, not an unanswerable question', ({
    assert,
  }) => {
    assert.isNull(matchesPattern('^(?=a)a$', 'b'))
    assert.isNull(checkTypedValue({ type: 'text', pattern: '^(?=a)a$' }, 'b'))
    assert.isNull(checkTypedValue({ type: 'text', pattern: '(a)\\1' }, 'zz'))
  })
})
