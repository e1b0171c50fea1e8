import { test } from '@japa/runner'
import vine from '@vinejs/vine'
import {
  ASK_TOOL_NAME,
  askToolDescription,
  askToolInputSchema,
  formatIssuesForModel,
} from '../../src/questions/ask_tool.ts'
import { INPUT_TYPES, questionSetSchema, questionSetValidator } from '../../src/questions/schema.ts'
import { validateQuestionSet } from '../../src/questions/validate.ts'
import { resolveLimits } from '../../src/questions/values.ts'
import { acceptsNull, strictViolations } from '../helpers/strict_schema.ts'

/**
 * Loose access into a JSON Schema tree, for reading nested keywords.
 */
type Node = Record<string, any>

function questionsNode(schema: Node): Node {
  return schema.properties.questions
}

function questionNode(schema: Node): Node {
  return questionsNode(schema).items
}

async function accepts(input: unknown, limits?: Parameters<typeof validateQuestionSet>[1]) {
  const result = await validateQuestionSet(input, limits)
  return result.ok
}

test.group('Ask tool | name and description', () => {
  test('the tool is called "ask"', ({ assert }) => {
    assert.equal(ASK_TOOL_NAME, 'ask')
  })

  test('the description spends most words on when not to ask', ({ assert }) => {
    const text = askToolDescription()
    assert.match(text, /Do NOT ask when/)
    assert.match(text, /repository/)
    assert.match(text, /the request/)
    assert.match(text, /sensible default/)
    assert.match(text, /report progress/)
    assert.match(text, /ask leave to continue/)

    const notSection = text.slice(text.indexOf('Do NOT ask'), text.indexOf('Ask only about'))
    const whenSection = text.slice(text.indexOf('Ask only about'), text.indexOf('How to ask'))
    assert.isAbove(notSection.length, whenSection.length, 'the "do not" part is the longest part')
  })

  test('the description names what is worth asking, all in one call, with defaults', ({
    assert,
  }) => {
    const text = askToolDescription()
    assert.match(text, /change the result materially/)
    assert.match(text, /public API/)
    assert.match(text, /new dependency/)
    assert.match(text, /destructive/)
    assert.match(text, /trade-off/)
    assert.match(text, /ALL your questions in ONE call/)
    assert.match(text, /ALWAYS pre-pick in "defaults" what you would choose/)
    assert.match(text, /plan-review/)
  })

  test('the description carries the default limits and budget', ({ assert }) => {
    const text = askToolDescription()
    assert.include(text, 'at most 4 questions per call')
    assert.include(text, 'at most 3 times in total')
    assert.include(text, '2 to 6 per question')
    assert.include(text, 'at most 400 characters')
    assert.include(text, 'cut at 2000 characters')
    for (const type of INPUT_TYPES) assert.include(text, type)
  })

  test('the description follows configured limits', ({ assert }) => {
    const text = askToolDescription({
      maxQuestions: 1,
      askBudget: 1,
      minOptions: 3,
      maxOptions: 5,
      maxPromptLength: 120,
      maxFreeTextLength: 500,
    })
    assert.include(text, 'at most 1 question per call')
    assert.include(text, 'at most 1 time in total')
    assert.include(text, '3 to 5 per question')
    assert.include(text, 'at most 120 characters')
    assert.include(text, 'cut at 500 characters')
    assert.notInclude(text, 'at most 4 questions')
  })
})

test.group('Ask tool | input schema', () => {
  test('is an object schema that requires questions', ({ assert }) => {
    const schema = askToolInputSchema() as Node
    assert.equal(schema.type, 'object')
    assert.includeMembers(schema.required, ['questions'])
    assert.notInclude(schema.required, 'preamble')
    assert.equal(questionsNode(schema).type, 'array')
    assert.equal(questionNode(schema).type, 'object')
    assert.sameMembers(questionNode(schema).required, ['id', 'prompt', 'defaults'])
    assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema, 'plain JSON')
  })

  test('is produced from the same Vine schema that validates', ({ assert }) => {
    const limits = resolveLimits({ maxQuestions: 3 })
    assert.deepEqual(askToolInputSchema(limits), questionSetValidator(limits).toJSONSchema())
    assert.deepEqual(
      askToolInputSchema(limits),
      vine.create(questionSetSchema(limits)).toJSONSchema()
    )
  })

  test('carries the limits: questions, options, prompt length', ({ assert }) => {
    const schema = askToolInputSchema() as Node
    assert.equal(questionsNode(schema).minItems, 1)
    assert.equal(questionsNode(schema).maxItems, 4)
    const question = questionNode(schema)
    assert.equal(question.properties.options.minItems, 2)
    assert.equal(question.properties.options.maxItems, 6)
    assert.equal(question.properties.prompt.maxLength, 400)
    assert.equal(question.properties.options.items.properties.hotkey.maxLength, 1)
    assert.sameMembers(question.properties.options.items.required, ['value', 'label'])
  })

  test('lists the input types and the plan-review intent', ({ assert }) => {
    const question = questionNode(askToolInputSchema() as Node)
    assert.deepEqual(question.properties.input.properties.type.enum, [...INPUT_TYPES])
    assert.deepEqual(question.properties.input.required, ['type'])
    assert.deepEqual(question.properties.input.properties.min.type, ['number', 'string'])
    assert.deepEqual(question.properties.intent.properties.kind.enum, ['plan-review'])
    assert.equal(question.properties.multiple.type, 'boolean')
    assert.deepEqual(question.properties.defaults, {
      type: 'array',
      items: { type: 'string' },
      description: question.properties.defaults.description,
    })
  })

  test('describes its fields for the model', ({ assert }) => {
    const schema = askToolInputSchema() as Node
    const question = questionNode(schema)
    assert.match(questionsNode(schema).description, /one call: 1 to 4/)
    assert.match(question.properties.defaults.description, /MUST name one option value/)
    assert.match(question.properties.intent.properties.approve.description, /LABEL/)
    assert.match(question.properties.options.description, /2 to 6/)
    for (const key of Object.keys(question.properties)) {
      assert.isString(question.properties[key].description, `questions[].${key} has a description`)
    }
  })

  test('changing the limits changes the schema', ({ assert }) => {
    const schema = askToolInputSchema({
      maxQuestions: 2,
      minOptions: 3,
      maxOptions: 5,
      maxPromptLength: 120,
    }) as Node
    assert.equal(questionsNode(schema).maxItems, 2)
    const question = questionNode(schema)
    assert.equal(question.properties.options.minItems, 3)
    assert.equal(question.properties.options.maxItems, 5)
    assert.equal(question.properties.prompt.maxLength, 120)
    assert.notDeepEqual(schema, askToolInputSchema())
  })

  test('the published bounds are the ones validation enforces', async ({ assert }) => {
    const limits = { maxQuestions: 2 }
    const maxItems = questionsNode(askToolInputSchema(limits) as Node).maxItems as number
    const make = (count: number) => ({
      questions: Array.from({ length: count }, (_, i) => ({
        id: `q${i}`,
        prompt: 'Which?',
        options: [
          { value: 'a', label: 'A' },
          { value: 'b', label: 'B' },
        ],
        defaults: ['a'],
      })),
    })
    assert.isTrue(await accepts(make(maxItems), limits))
    assert.isFalse(await accepts(make(maxItems + 1), limits))
  })

  test('each call returns a fresh copy', ({ assert }) => {
    const first = askToolInputSchema() as Node
    first.properties.questions.maxItems = 99
    delete first.required
    const second = askToolInputSchema() as Node
    assert.equal(questionsNode(second).maxItems, 4)
    assert.deepEqual(second.required, ['questions'])
  })
})

test.group('Ask tool | issues for the model', () => {
  test('one line per issue, then what to do', ({ assert }) => {
    const text = formatIssuesForModel([
      {
        path: 'questions[1].defaults',
        message: "must name values of this question's options (pg, mysql)",
      },
      { path: 'questions[2].id', message: 'must not be empty' },
    ])
    const lines = text.split('\n')
    assert.equal(
      lines[0],
      "questions[1].defaults: must name values of this question's options (pg, mysql)"
    )
    assert.equal(lines[1], 'questions[2].id: must not be empty')
    assert.match(lines.at(-1)!, /Fix the problems above and call ask again/)
  })

  test('works end to end with validateQuestionSet', async ({ assert }) => {
    const result = await validateQuestionSet({ questions: [] })
    assert.isFalse(result.ok)
    const text = formatIssuesForModel(result.ok ? [] : result.issues)
    assert.match(text, /^questions: must hold at least one question/)
    assert.include(text, 'call ask again')
  })
})

/**
 * Every object property of `plain`, paired with the same property of
 * `strict`, with whether `plain` required it.
 */
function pairedProperties(plain: Node, strict: Node, path = '$'): [string, boolean, Node][] {
  const pairs: [string, boolean, Node][] = []
  for (const [key, child] of Object.entries<Node>(plain.properties ?? {})) {
    const twin = strict.properties[key]
    pairs.push([`${path}.${key}`, (plain.required ?? []).includes(key), twin])
    // A nullable object or array keeps its shape in its non-null branch
    const shape = twin.anyOf?.find((branch: Node) => branch.type !== 'null') ?? twin
    pairs.push(...pairedProperties(child, shape, `${path}.${key}`))
    if (child.items) pairs.push(...pairedProperties(child.items, shape.items, `${path}.${key}[]`))
  }
  return pairs
}

test.group('Ask tool | strict form', () => {
  test("the strict form meets strict mode's rules at every depth; the plain one does not", ({
    assert,
  }) => {
    assert.deepEqual(strictViolations(askToolInputSchema(undefined, { strict: true })), [])

    const plain = strictViolations(askToolInputSchema())
    assert.includeMembers(plain, [
      '$.questions[].input.type: an enum needs a type',
      '$: every property must be required (preamble, questions)',
      '$.questions[].prompt: keyword minLength is not supported',
    ])
  })

  test('optional properties become nullable, required ones stay as they were; limits carry over', ({
    assert,
  }) => {
    const plain = askToolInputSchema({ maxQuestions: 2 })
    const strict = askToolInputSchema({ maxQuestions: 2 }, { strict: true })
    const pairs = pairedProperties(plain, strict)
    assert.isAbove(pairs.length, 20)
    for (const [path, required, twin] of pairs) {
      assert.equal(acceptsNull(twin), !required, path)
    }
    assert.equal(questionsNode(strict).maxItems, 2)
    // The input's type, an enum, is typed; the optional input itself may be null
    assert.deepEqual(questionNode(strict).properties.input.properties.type.type, 'string')
    assert.deepEqual(questionNode(strict).properties.input.type, ['object', 'null'])
  })

  test('a strict call, null for what it leaves out, validates as the set without them', async ({
    assert,
  }) => {
    const strictCall = {
      preamble: null,
      questions: [
        {
          id: 'db',
          prompt: 'Which database?',
          header: null,
          description: null,
          options: [
            { value: 'pg', label: 'PostgreSQL', description: null, hotkey: null },
            { value: 'mysql', label: 'MySQL', description: null, hotkey: 'm' },
          ],
          input: null,
          multiple: null,
          allowFreeText: null,
          defaults: ['pg'],
          intent: null,
          detail: null,
        },
      ],
    }
    // Vine reads null as absent for an optional field: the row holds the set without them
    const result = await validateQuestionSet(strictCall)
    assert.isTrue(result.ok)
    assert.deepEqual(result.ok && result.value, {
      questions: [
        {
          id: 'db',
          prompt: 'Which database?',
          options: [
            { value: 'pg', label: 'PostgreSQL' },
            { value: 'mysql', label: 'MySQL', hotkey: 'm' },
          ],
          defaults: ['pg'],
        },
      ],
    })
    // A required property sent as null is still missing, and refused by name
    const missing = await validateQuestionSet({
      questions: [{ ...strictCall.questions[0], defaults: null }],
    })
    assert.isFalse(missing.ok)
    assert.match(JSON.stringify(!missing.ok && missing.issues), /questions\[0\]\.defaults/)
  })
})
