/*
 * The one Vine schema of a question set (docs/design.md §3). It is the
 * single source of truth twice over: `validateQuestionSet` checks a model's
 * ask call with it, and `askToolInputSchema` publishes it to the model as JSON
 * Schema, so what the model is shown and what it is held to can never drift.
 * The limits are baked into the schema, hence one schema per limits.
 *
 * Unknown keys: Vine drops them from the output instead of refusing them, and
 * we keep that default. A model that adds a harmless extra field (`"note"`)
 * should not lose a round trip; the published JSON Schema still says
 * `additionalProperties: false`, which steers models away from extras.
 *
 * Messages are written for the model: each says what to do, and is read
 * after a bracket path (`questions[1].options: must offer 2 to 6 options…`).
 * Rules that need the whole set (unique ids, defaults among the options,
 * plan-review intents) live in validate.ts; Vine only checks shapes here.
 */

import vine, { SimpleMessagesProvider } from '@vinejs/vine'
import type { FieldContext } from '@vinejs/vine/types'
import type { InputType, QuestionLimits } from './types.ts'

/**
 * Every input type, in the order the model reads them.
 */
export const INPUT_TYPES = [
  'select',
  'text',
  'number',
  'integer',
  'boolean',
  'date',
  'datetime',
  'email',
  'url',
] as const satisfies readonly InputType[]

/**
 * Fails type checking when `InputType` grows a member `INPUT_TYPES` lacks.
 */
type MissingInputTypes = Exclude<InputType, (typeof INPUT_TYPES)[number]>
const inputTypesAreComplete: [MissingInputTypes] extends [never] ? true : never = true
void inputTypesAreComplete

/**
 * `min`/`max` are numbers for number, integer and text-like inputs, and date
 * strings for date and datetime ones. Vine's `unionOfTypes(...).optional()`
 * publishes a broken JSON Schema (the field ends up required), so a small
 * rule on `vine.any()` does the job and publishes `type: [number, string]`.
 * Which of the two a given input needs is checked in validate.ts.
 */
const numberOrString = vine.createRule(
  (value: unknown, _options: undefined, field: FieldContext) => {
    if (typeof value === 'string') return
    if (typeof value === 'number' && Number.isFinite(value)) return
    field.report('must be a number or a date string', 'numberOrString', field)
  },
  {
    name: 'numberOrString',
    toJSONSchema: (schema) => {
      delete schema.anyOf
      schema.type = ['number', 'string']
    },
  }
)

/**
 * The Vine schema of a question set, with the limits baked in: at most
 * `maxQuestions` questions, `minOptions..maxOptions` options when a question
 * has options, prompts of at most `maxPromptLength` characters. Every field
 * carries a `description` that ends up in the JSON Schema the model sees.
 *
 * @example
 * const schema = questionSetSchema(resolveLimits({ maxQuestions: 2 }))
 * vine.create(schema).toJSONSchema().properties.questions.maxItems // 2
 */
export function questionSetSchema(limits: QuestionLimits) {
  const option = vine.object({
    value: vine.string().minLength(1).meta({
      description: 'What the run receives when this option is picked; defaults name it',
    }),
    label: vine.string().minLength(1).meta({
      description: 'What the person reads, and what you read back in the answer',
    }),
    description: vine
      .string()
      .optional()
      .meta({ description: 'One line on the consequence of picking this option' }),
    hotkey: vine.string().fixedLength(1).optional().meta({
      description: 'A single key that picks this option; unique within the question',
    }),
  })

  const input = vine.object({
    type: vine.enum(INPUT_TYPES).meta({
      description:
        'What kind of answer to expect. Answers always travel as strings: "42", "true", "2026-12-02"',
    }),
    placeholder: vine
      .string()
      .optional()
      .meta({ description: 'An example answer shown in the empty field' }),
    required: vine
      .boolean({ strict: true })
      .optional()
      .meta({ description: 'Whether the person must give a value' }),
    min: vine.any().use(numberOrString()).optional().meta({
      description:
        'Lower bound: a number for number/integer, a length for text/email/url, a date string (YYYY-MM-DD or ISO datetime) for date/datetime',
    }),
    max: vine.any().use(numberOrString()).optional().meta({
      description: 'Upper bound, written like min',
    }),
    pattern: vine.string().optional().meta({
      description:
        'A JavaScript regular expression without slashes that text answers must match: at most 200 characters, no backreferences, no lookaround, no repeated group holding a quantifier or | (write [a-z0-9-]+, not (a|b)+ or (a+)+)',
    }),
  })

  const intent = vine.object({
    kind: vine.literal('plan-review').meta({ description: 'The only intent: a plan review' }),
    approve: vine.string().minLength(1).meta({
      description: 'The LABEL of the option that accepts the plan',
    }),
  })

  const question = vine.object({
    id: vine.string().minLength(1).meta({
      description: 'A short unique key, such as "database"; answers are keyed by it',
    }),
    prompt: vine
      .string()
      .minLength(1)
      .maxLength(limits.maxPromptLength)
      .meta({ description: 'The question, in one or two plain sentences' }),
    header: vine
      .string()
      .optional()
      .meta({ description: 'A one or two word chip shown above the prompt, such as "Database"' }),
    description: vine
      .string()
      .optional()
      .meta({ description: 'Context the person needs to answer, in a few sentences' }),
    options: vine
      .array(option)
      .minLength(limits.minOptions)
      .maxLength(limits.maxOptions)
      .optional()
      .meta({
        description: `The choices, ${limits.minOptions} to ${limits.maxOptions}. Leave out for a typed or free-text question`,
      }),
    input: input.optional().meta({
      description: 'For a typed answer (number, date, email…) instead of, or besides, options',
    }),
    multiple: vine
      .boolean({ strict: true })
      .optional()
      .meta({ description: 'Several values may be picked; otherwise exactly one' }),
    allowFreeText: vine
      .boolean({ strict: true })
      .optional()
      .meta({ description: 'Besides the options, the person may type an answer of their own' }),
    defaults: vine.array(vine.string()).meta({
      description:
        'What you would choose, taken when the person just confirms. Option questions MUST name one option value (several only when multiple is true); typed questions may leave it empty',
    }),
    intent: intent.optional().meta({
      description: 'Marks a plan review; then detail must hold the plan',
    }),
    detail: vine
      .string()
      .optional()
      .meta({ description: 'Long-form material, such as the plan of a plan review' }),
  })

  return vine.object({
    preamble: vine
      .string()
      .optional()
      .meta({ description: 'One or two sentences on why you are asking' }),
    questions: vine
      .array(question)
      .minLength(1)
      .maxLength(limits.maxQuestions)
      .meta({
        description: `All your questions, in one call: 1 to ${limits.maxQuestions}`,
      }),
  })
}

/**
 * The messages Vine reports, rewritten to tell the model the fix. Keys are
 * Vine's wildcard paths (`questions.*.id`) plus the rule; bare rule names
 * are the fallbacks.
 */
function questionSetMessages(limits: QuestionLimits) {
  const options = `${limits.minOptions} to ${limits.maxOptions} options`
  return {
    'required': 'is required',
    'string': 'must be a string (text in double quotes)',
    'boolean': 'must be true or false, without quotes',
    'object': 'must be an object',
    'array': 'must be an array',
    'minLength': 'must not be empty',
    'maxLength': 'must be at most {{ max }} characters; shorten it',
    'fixedLength': 'must be a single character',
    'literal': 'must be "{{ expectedValue }}"',
    'enum': 'must be one of {{ choices }}',
    'numberOrString':
      'must be a number (number, integer, text, email, url) or a date string (date, datetime)',

    'questions.required': 'is required: send { "questions": [ … ] } with at least one question',
    'questions.array': 'must be an array of questions',
    'questions.array.minLength':
      'must hold at least one question: ask at least one question, or do not call ask at all',
    'questions.array.maxLength': `must hold at most ${limits.maxQuestions} questions in one call; keep only those whose answer changes the result`,
    'questions.*.object': 'must be an object with id, prompt and defaults',
    'questions.*.id.required':
      'is required: give each question a short unique id such as "database"',
    'questions.*.prompt.required': 'is required: write the question',
    'questions.*.options.*.value.required':
      'is required: what the run receives when this option is picked',
    'questions.*.options.*.label.required': 'is required: what the person reads for this option',
    'questions.*.intent.approve.required':
      'is required: the label of the option that accepts the plan',
    'questions.*.id.minLength': 'must not be empty: give each question a short unique id',
    'questions.*.prompt.minLength': 'must not be empty: write the question',
    'questions.*.prompt.maxLength': `must be at most ${limits.maxPromptLength} characters; shorten the prompt and move background into description or detail`,
    'questions.*.options.array': `must be an array of ${options}, each { "value", "label" }`,
    'questions.*.options.array.minLength': `must offer ${options}; add options, or leave options out to ask a typed question`,
    'questions.*.options.array.maxLength': `must offer ${options}; merge or drop the least likely ones`,
    'questions.*.options.*.object': 'must be an object with value and label',
    'questions.*.options.*.value.minLength': 'must not be empty: give the option a value',
    'questions.*.options.*.label.minLength': 'must not be empty: give the option a label',
    'questions.*.options.*.hotkey.fixedLength': 'must be a single character, or left out',
    'questions.*.input.object': 'must be an object such as { "type": "integer", "min": 1 }',
    'questions.*.input.type.required': `is required: one of ${INPUT_TYPES.join(', ')}`,
    'questions.*.input.type.enum': `must be one of ${INPUT_TYPES.join(', ')}`,
    'questions.*.defaults.required':
      'is required: pre-pick what you would choose (an empty array is allowed only for typed or free-text questions)',
    'questions.*.defaults.array': 'must be an array of strings, such as ["pg"]',
    'questions.*.defaults.*.string':
      'must be a string: answers travel as strings, so write "42" or "true"',
    'questions.*.intent.object':
      'must be an object such as { "kind": "plan-review", "approve": "<label of the accepting option>" }',
    'questions.*.intent.kind.literal': 'must be "plan-review", the only intent there is',
    'questions.*.intent.approve.minLength':
      'must not be empty: name the label of the option that accepts the plan',
  }
}

function limitsKey(limits: QuestionLimits): string {
  return [
    limits.maxQuestions,
    limits.minOptions,
    limits.maxOptions,
    limits.maxPromptLength,
    limits.maxFreeTextLength,
    limits.askBudget,
  ].join(':')
}

const validators = new Map<string, ReturnType<typeof createValidator>>()

function createValidator(limits: QuestionLimits) {
  const validator = vine.create(questionSetSchema(limits))
  validator.messagesProvider = new SimpleMessagesProvider(questionSetMessages(limits))
  return validator
}

/**
 * The compiled validator of `questionSetSchema(limits)`, with messages
 * written for the model. Compiled once per distinct limits and cached (apps
 * configure one set of limits, so the cache stays tiny).
 *
 * @example
 * const [error, set] = await questionSetValidator(resolveLimits()).tryValidate(input)
 */
export function questionSetValidator(limits: QuestionLimits) {
  const key = limitsKey(limits)
  let validator = validators.get(key)
  if (!validator) {
    validator = createValidator(limits)
    validators.set(key, validator)
  }
  return validator
}
