/*
 * Validation of a question set (docs/design.md §3, §4.3). Two
 * passes: the Vine schema of schema.ts checks shapes and limits, then, only
 * when the shapes hold, the rules that need the whole set (unique ids,
 * defaults among the options, typed defaults passing their own rules,
 * plan-review intents). Every problem comes back as `{ path, message }` with
 * a bracket path (`questions[1].defaults`) and a message that says the fix,
 * because the runtime sends them to the model as a tool error and the run
 * goes on. Value rules are never re-implemented here: values.ts decides.
 * Never throws: the throwing form for app code is assert.ts.
 */

import { patternProblem } from './pattern.ts'
import { questionSetValidator } from './schema.ts'
import type { Question, QuestionIssue, QuestionLimits, QuestionSet } from './types.ts'
import { checkTypedValue, checkValue, isSingleChoice, resolveLimits } from './values.ts'

/**
 * The path reported for problems with the input as a whole.
 */
const ROOT_PATH = '(root)'

/**
 * Turns a Vine field path into the bracket form the model reads: numeric
 * segments become indexes. The empty path (the input itself) becomes
 * `(root)`.
 *
 * @example
 * formatIssuePath('questions.1.defaults.0') // 'questions[1].defaults[0]'
 * formatIssuePath('questions') // 'questions'
 */
export function formatIssuePath(vinePath: string): string {
  if (vinePath === '') return ROOT_PATH
  let path = ''
  for (const segment of vinePath.split('.')) {
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`
  }
  return path
}

function quoteList(values: string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ')
}

/**
 * A question's id must not repeat an earlier one.
 */
function idIssues(question: Question, at: string, ids: Map<string, number>, index: number) {
  const first = ids.get(question.id)
  if (first === undefined) {
    ids.set(question.id, index)
    return []
  }
  return [
    {
      path: `${at}.id`,
      message: `"${question.id}" is already the id of questions[${first}]; give each question its own id`,
    },
  ]
}

/**
 * Option values and hotkeys must be unique within a question. Hotkeys
 * compare case-insensitively: a person pressing "p" cannot tell "p" from "P".
 */
function optionIssues(question: Question, at: string, issues: QuestionIssue[]) {
  const values = new Map<string, number>()
  const hotkeys = new Map<string, number>()

  question.options?.forEach((option, index) => {
    const sameValue = values.get(option.value)
    if (sameValue === undefined) {
      values.set(option.value, index)
    } else {
      issues.push({
        path: `${at}.options[${index}].value`,
        message: `"${option.value}" is already the value of options[${sameValue}]; give each option its own value`,
      })
    }

    if (option.hotkey === undefined) return
    const key = option.hotkey.toLowerCase()
    const sameKey = hotkeys.get(key)
    if (sameKey === undefined) {
      hotkeys.set(key, index)
    } else {
      issues.push({
        path: `${at}.options[${index}].hotkey`,
        message: `"${option.hotkey}" is already the hotkey of options[${sameKey}]; pick another key or leave hotkey out`,
      })
    }
  })
}

/**
 * The rules of a question's `input`: `select` needs options, `pattern` must
 * pass `patternProblem` (docs/design.md §3.6), `min`/`max` must be of the
 * kind the type reads (numbers, or date strings for date/datetime) and in
 * order. Bounds on boolean and select inputs mean nothing and are left
 * alone, as is a pattern on a non-text type: harmless, so not worth a round
 * trip. Returns whether the input is sound enough to check defaults against.
 */
function inputIssues(question: Question, at: string, issues: QuestionIssue[]): boolean {
  const input = question.input
  if (!input) return true
  const before = issues.length
  const hasOptions = (question.options?.length ?? 0) > 0

  if (input.type === 'select' && !hasOptions) {
    issues.push({
      path: `${at}.input.type`,
      message:
        '"select" needs options: add options, or pick a typed input such as "text" or "integer"',
    })
  }

  const problem = input.pattern === undefined ? null : patternProblem(input.pattern)
  if (problem) issues.push({ path: `${at}.input.pattern`, message: problem })

  const bounds = (['min', 'max'] as const).filter((bound) => input[bound] !== undefined)
  let boundsSound = true
  for (const bound of bounds) {
    const value = input[bound]
    if (input.type === 'date' || input.type === 'datetime') {
      if (typeof value !== 'string' || checkTypedValue({ type: input.type }, value) !== null) {
        boundsSound = false
        issues.push({
          path: `${at}.input.${bound}`,
          message: `must be a ${input.type === 'date' ? 'date written YYYY-MM-DD' : 'date and time written YYYY-MM-DDTHH:mm'} for a ${input.type} input; ${JSON.stringify(value)} is not`,
        })
      }
    } else if (input.type !== 'boolean' && input.type !== 'select' && typeof value !== 'number') {
      boundsSound = false
      const what = input.type === 'number' || input.type === 'integer' ? 'value' : 'length'
      issues.push({
        path: `${at}.input.${bound}`,
        message: `must be a number (the ${bound === 'min' ? 'least' : 'greatest'} ${what}) for ${input.type === 'integer' || input.type === 'email' ? 'an' : 'a'} ${input.type} input, such as 1, not ${JSON.stringify(value)}`,
      })
    }
  }

  if (boundsSound && bounds.length === 2 && boundsOutOfOrder(input.type, input.min!, input.max!)) {
    issues.push({
      path: `${at}.input.min`,
      message: `must not be greater than max (${JSON.stringify(input.min)} > ${JSON.stringify(input.max)}); swap them or fix one`,
    })
  }

  return issues.length === before
}

function boundsOutOfOrder(type: string, min: number | string, max: number | string): boolean {
  if (type === 'datetime') return Date.parse(String(min)) > Date.parse(String(max))
  if (type === 'boolean' || type === 'select') return false
  return min > max
}

/**
 * Every option question pre-picks; every default is a value the question
 * accepts; a single-choice question names one default at most.
 */
function defaultsIssues(question: Question, at: string, issues: QuestionIssue[]) {
  const options = question.options ?? []
  const values = options.map((option) => option.value)
  const path = `${at}.defaults`

  if (options.length > 0 && question.defaults.length === 0) {
    issues.push({
      path,
      message: `must pre-pick what you would choose: name one of this question's option values (${values.join(', ')})`,
    })
  }

  if (isSingleChoice(question) && question.defaults.length > 1) {
    issues.push({
      path,
      message: `names ${question.defaults.length} defaults but this question takes one answer: keep the one you would choose, or set "multiple": true`,
    })
  }

  for (const value of question.defaults) {
    const problem = checkValue(question, value)
    if (problem === null) continue

    if (options.length === 0) {
      issues.push({
        path,
        message: `default ${JSON.stringify(value)} ${problem}; fix it or leave defaults empty`,
      })
    } else if (question.allowFreeText) {
      issues.push({
        path,
        message: `default ${JSON.stringify(value)} is neither one of this question's option values (${values.join(', ')}) nor acceptable free text (${problem}); fix it`,
      })
    } else {
      const byLabel = options.find((option) => option.label === value)
      const hint = byLabel
        ? `${JSON.stringify(value)} is a label, use its value ${JSON.stringify(byLabel.value)}`
        : `${JSON.stringify(value)} is not one of them`
      issues.push({
        path,
        message: `must name values of this question's options (${values.join(', ')}); ${hint}`,
      })
    }
  }
}

/**
 * A plan review needs `approve` to be the label of one of the
 * question's options, and `detail` to hold the plan.
 */
function intentIssues(question: Question, at: string, issues: QuestionIssue[]) {
  const intent = question.intent
  if (!intent) return

  const labels = (question.options ?? []).map((option) => option.label)
  const approveIsLabel = labels.includes(intent.approve)
  const hasDetail = typeof question.detail === 'string' && question.detail.trim() !== ''
  if (approveIsLabel && hasDetail) return

  const problems: string[] = []
  if (!approveIsLabel) {
    problems.push(
      labels.length === 0
        ? 'this question has no options'
        : `${JSON.stringify(intent.approve)} is not one of the labels ${quoteList(labels)}`
    )
  }
  if (!hasDetail) problems.push('detail is missing or empty')

  issues.push({
    path: `${at}.intent`,
    message: `a plan review needs both intent.approve equal to the LABEL of one of this question's options, and the plan written in detail as non-empty text (${problems.join('; ')})`,
  })
}

/**
 * Vine drops a `null` optional field from its output, except when the field
 * carries `.meta()` (as ours do, for the JSON Schema): then `null` comes
 * through. Nothing in a question set is ever `null`, so a null field is
 * treated as absent, the way Vine means it.
 */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls)
  if (value === null || typeof value !== 'object') return value
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (item !== null) copy[key] = dropNulls(item)
  }
  return copy
}

/**
 * The rules that need more than one field at a time, run once the shapes
 * hold. Exported for tests and callers that hold an already-shaped set.
 */
export function semanticIssues(set: QuestionSet): QuestionIssue[] {
  const issues: QuestionIssue[] = []
  const ids = new Map<string, number>()

  set.questions.forEach((question, index) => {
    const at = `questions[${index}]`
    issues.push(...idIssues(question, at, ids, index))
    optionIssues(question, at, issues)
    if (inputIssues(question, at, issues)) defaultsIssues(question, at, issues)
    intentIssues(question, at, issues)
  })

  return issues
}

/**
 * Validates a question set a model wrote, against the limits (merged over
 * `DEFAULT_LIMITS`). Never throws for bad input: problems come back as
 * issues with bracket paths and messages that say the fix. Unknown keys are
 * dropped from `value`, not refused.
 *
 * @example
 * const result = await validateQuestionSet(args, config.limits)
 * if (!result.ok) return formatIssuesForModel(result.issues)
 */
export async function validateQuestionSet(
  input: unknown,
  limits?: Partial<QuestionLimits>
): Promise<{ ok: true; value: QuestionSet } | { ok: false; issues: QuestionIssue[] }> {
  const validator = questionSetValidator(resolveLimits(limits))
  const [error, value] = await validator.tryValidate(input)

  if (error) {
    const messages: { field: string; message: string }[] = error.messages
    return {
      ok: false,
      issues: messages.map((message) => ({
        path: formatIssuePath(message.field),
        message:
          message.field === '' && message.message === 'is required'
            ? 'is required: send { "questions": [ … ] }'
            : message.field === ''
              ? 'must be an object such as { "questions": [ … ] }'
              : message.message,
      })),
    }
  }

  const set = dropNulls(value) as QuestionSet
  const issues = semanticIssues(set)
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: set }
}
