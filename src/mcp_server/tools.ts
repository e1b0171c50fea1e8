/*
 * The three tools an outside agent sees (docs/design.md §7.8): their
 * descriptions, their input schemas, and the checks of what they are sent.
 * `ask_human` takes the package's own question set (the ask tool's schema
 * and limits, src/questions/), so a malformed set gets the same error
 * naming the path and the fix; `request_approval` an action the client
 * describes. Pure: no database, no HTTP.
 */

import type { JSONSchema7 } from 'json-schema'
import { askToolInputSchema, formatIssuesForModel } from '../questions/ask_tool.ts'
import { validateQuestionSet } from '../questions/validate.ts'
import type { QuestionLimits, QuestionSet } from '../questions/types.ts'

export const ASK_HUMAN = 'ask_human'
export const REQUEST_APPROVAL = 'request_approval'
export const GET_ANSWER = 'get_answer'

/** An action the client asks approval for */
export type ApprovalRequest = {
  title: string
  summary: string
  arguments: Record<string, unknown>
  irreversible: boolean
  to: string | null
}

const TO: JSONSchema7 = {
  type: 'string',
  maxLength: 120,
  description: 'Who should answer, when not the person you work for: a name the app knows',
}

/**
 * The tools as `tools/list` gives them. Both asking tools may run as a
 * task (`execution.taskSupport: 'optional'`).
 */
export function toolList(limits: Partial<QuestionLimits>) {
  const set = askToolInputSchema(limits)
  return [
    {
      name: ASK_HUMAN,
      title: 'Ask a person',
      description:
        'Ask a person a few questions through the team inbox and get their typed answers. ' +
        'Only for choices that change the result materially and that nothing you can read answers: ' +
        'never to report progress or ask leave to continue. Ask everything in one call, and pre-pick ' +
        'the answer you would choose in `defaults` of every question. A person may answer hours later.',
      inputSchema: { ...set, properties: { ...set.properties, to: TO } },
      execution: { taskSupport: 'optional' },
    },
    {
      name: REQUEST_APPROVAL,
      title: 'Request approval',
      description:
        'Ask a person to approve an action before you take it: a short title naming the action ' +
        '(the same title each time you ask for the same kind of action), a summary of what it ' +
        'will do, and its arguments. The answer is approved or rejected with a reason. Do not ' +
        'take the action unless it is approved.',
      inputSchema: {
        type: 'object',
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 120 },
          summary: { type: 'string', minLength: 1, maxLength: 2000 },
          arguments: { type: 'object', additionalProperties: true },
          irreversible: { type: 'boolean' },
          to: TO,
        },
        required: ['title', 'summary'],
      },
      execution: { taskSupport: 'optional' },
    },
    {
      name: GET_ANSWER,
      title: 'Collect an answer',
      description:
        'Collect the answer to an earlier ask_human or request_approval that returned "still pending", by its id.',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string', maxLength: 60 } },
        required: ['id'],
      },
      execution: { taskSupport: 'forbidden' },
    },
  ]
}

/**
 * The question set of an `ask_human` call, or the text of its problems.
 */
export async function askInput(
  input: unknown,
  limits: Partial<QuestionLimits>
): Promise<{ set: QuestionSet; to: string | null } | { error: string }> {
  const to = toOf(input)
  if (to !== null && typeof to === 'object') return to
  const result = await validateQuestionSet(input, limits)
  if (!result.ok) {
    return {
      error: formatIssuesForModel(result.issues).replace(
        'call ask again',
        `call ${ASK_HUMAN} again`
      ),
    }
  }
  return { set: result.value, to }
}

/**
 * The action of a `request_approval` call, or the text of its problems.
 * `arguments.client` is refused: the row's args carry the client's name
 * under that key, for a grant to pin.
 */
export function approvalInput(input: unknown): ApprovalRequest | { error: string } {
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>
  const problems: string[] = []
  const text = (key: string, max: number) => {
    const value = raw[key]
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`${key}: is required, a non-empty string`)
    } else if (value.length > max) {
      problems.push(`${key}: must be at most ${max} characters`)
    }
    return typeof value === 'string' ? value.trim() : ''
  }
  const title = text('title', 120)
  const summary = text('summary', 2000)
  // Control characters: never in a title (one line), and no NUL anywhere (PostgreSQL refuses it in text)
  if (/\p{Cc}/u.test(title))
    problems.push('title: must be one line of text, without control characters')
  if (summary.includes('\u0000')) problems.push('summary: must not contain NUL characters')
  const args = raw.arguments ?? {}
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    problems.push("arguments: must be an object of the action's arguments")
  } else if (Object.hasOwn(args, 'client')) {
    problems.push('arguments.client: is reserved for the name of your client; rename it')
  } else if (JSON.stringify(args).length > 16_384) {
    problems.push('arguments: must weigh at most 16 KB as JSON')
  } else if (JSON.stringify(args).includes('\\u0000')) {
    problems.push('arguments: must not contain NUL characters')
  }
  if (raw.irreversible !== undefined && typeof raw.irreversible !== 'boolean') {
    problems.push('irreversible: must be true or false')
  }
  const to = toOf(raw)
  if (to !== null && typeof to === 'object') problems.push(to.error)
  if (problems.length > 0) return { error: `${problems.join('\n')}\n\nNothing was asked.` }
  return {
    title,
    summary,
    arguments: args as Record<string, unknown>,
    irreversible: raw.irreversible === true,
    to: to as string | null,
  }
}

function toOf(input: unknown): string | null | { error: string } {
  const to = typeof input === 'object' && input !== null ? (input as any).to : undefined
  if (to === undefined || to === null) return null
  if (typeof to !== 'string' || to.trim() === '' || to.length > 120) {
    return { error: 'to: must be a name of at most 120 characters' }
  }
  return to.trim()
}
