/*
 * What a reply's body lost on its way in: the names body parsers drop
 * (`__proto__`, a `constructor` holding a `prototype`, in a form every name
 * of Object.prototype) are found by comparing the body as sent with the
 * body as parsed, so the inbox refuses them like any unknown field.
 */

import { test } from '@japa/runner'
import { safeParse } from '@poppinss/utils/json'
import { droppedFieldIssues, formFieldTree } from '../../src/questions/reply_body.ts'
import { parseReply } from '../../src/questions/reply.ts'
import { InvalidReplyException } from '../../src/errors.ts'

/** The body as the client wrote it, and as Adonis's JSON body parser gives it */
function bothWays(text: string): [sent: unknown, received: unknown] {
  return [JSON.parse(text), safeParse(text)]
}

const paths = (sent: unknown, received: unknown) =>
  droppedFieldIssues(sent, received).map((issue) => issue.path)

test.group('Reply body | what the body parser dropped', () => {
  test('a constructor holding a prototype and __proto__ are named, top level and nested', ({
    assert,
  }) => {
    assert.deepEqual(paths(...bothWays('{"skip":true,"constructor":{"prototype":{"a":1}}}')), [
      'constructor',
    ])
    assert.deepEqual(paths(...bothWays('{"approved":true,"__proto__":{"a":1}}')), ['__proto__'])
    assert.deepEqual(
      paths(...bothWays('{"approved":true,"editedInput":{"items":[{"__proto__":{}}]}}')),
      ['editedInput.items.0.__proto__']
    )
    const [issue] = droppedFieldIssues(...bothWays('{"constructor":{"prototype":1}}'))
    assert.equal(issue.rule, 'reservedName')
    assert.include(issue.message, 'leave it out')
  })

  test('what the parser kept, or left out for another reason, is no issue', ({ assert }) => {
    assert.deepEqual(paths(...bothWays('{"answers":{"db":["pg"]},"toString":"x"}')), [])
    assert.deepEqual(paths({ skip: true, junk: 1 }, { skip: true }), [])
    assert.deepEqual(paths(null, { skip: true }), [])
    assert.deepEqual(paths('text', 'text'), [])
  })

  test('at most ten are named, and deep nesting does not overflow the stack', ({ assert }) => {
    const many = `{${Array.from({ length: 30 }, (_, i) => `"a${i}":{"__proto__":1}`).join(',')}}`
    assert.lengthOf(droppedFieldIssues(...bothWays(many)), 10)
    const deep = `${'{"a":'.repeat(5000)}{"__proto__":1}${'}'.repeat(5000)}`
    assert.lengthOf(droppedFieldIssues(...bothWays(deep)), 1)
  })

  test('a form body is read as qs nests it; every name of Object.prototype is guarded', ({
    assert,
  }) => {
    const tree = formFieldTree('answers[db][]=pg&answers.size=m&toString=1&a%5Bb%5D=2')
    assert.deepEqual(JSON.parse(JSON.stringify(tree)), {
      answers: { db: { '': true }, size: true },
      toString: true,
      a: { b: true },
    })
    // qs dropped toString and valueOf; the lists it made are not compared name by name
    const received = { answers: { db: ['pg'], size: 'm' }, a: { b: '2' } }
    assert.deepEqual(paths(tree, received), ['toString'])
    assert.deepEqual(
      paths(formFieldTree('answers[valueOf]=1&skip=x'), { answers: {}, skip: 'x' }),
      ['answers.valueOf']
    )
  })

  test('the reply parser refuses the same names when they reach it', async ({ assert }) => {
    for (const text of [
      '{"skip":true,"constructor":{"a":1}}',
      '{"approved":true,"__proto__":{"a":1}}',
      '{"skip":true,"valueOf":{}}',
    ]) {
      const error = await parseReply(JSON.parse(text)).catch((caught: unknown) => caught)
      assert.instanceOf(error, InvalidReplyException, text)
      const field = Object.keys(JSON.parse(text))[1]
      assert.deepEqual(
        (error as InvalidReplyException).errors.map((issue) => issue.path),
        [field]
      )
    }
  })
})
