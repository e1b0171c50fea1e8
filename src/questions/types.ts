/*
 * The vocabulary of the question model (docs/design.md §1): question sets, replies and
 * outcomes. Pure types, shared by every other module; nothing here may import
 * Lucid, HTTP or the AI SDK.
 */

/**
 * The input types a question can ask for. Answers always travel as strings,
 * whatever the type: `"42"`, `"true"`, `"2026-12-02"`.
 */
export type InputType =
  'select' | 'text' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'email' | 'url'

/**
 * One option of an option question. The model reads `label`, the run
 * receives `value`.
 */
export type QuestionOption = {
  value: string
  label: string
  description?: string
  /** A single key that picks this option in the inbox and the terminal */
  hotkey?: string
}

/**
 * Rules of a typed input. `min`/`max` bound the number for number/integer,
 * the length for text/email/url and the calendar for date/datetime (as
 * ISO strings there, numbers elsewhere).
 */
export type QuestionInput = {
  type: InputType
  placeholder?: string
  required?: boolean
  min?: number | string
  max?: number | string
  /** A regular expression (JavaScript syntax, no slashes) text must match */
  pattern?: string
}

/**
 * Marks a question as a plan review: `approve` is the label of the option
 * that accepts the plan, and the question's `detail` holds the plan.
 */
export type QuestionIntent = {
  kind: 'plan-review'
  approve: string
}

export type Question = {
  /** Unique inside its set; answers are keyed by it */
  id: string
  prompt: string
  /** A short chip shown above the prompt (for example "Database") */
  header?: string
  description?: string
  options?: QuestionOption[]
  input?: QuestionInput
  /** Several options (or values) may be picked */
  multiple?: boolean
  /** Besides the options, the person may type an answer of their own */
  allowFreeText?: boolean
  /** What the model would pick; taken when nobody changes it */
  defaults: string[]
  intent?: QuestionIntent
  /** Long-form material for the question, such as the plan of a plan review */
  detail?: string
}

export type QuestionSet = {
  preamble?: string
  questions: Question[]
}

/**
 * What a person sends back for a question set.
 */
export type AnswersReply = {
  answers: Record<string, string[]>
  skip?: boolean
}

/**
 * What a person sends back for an approval (and, normalized, for a set).
 */
export type DecisionReply = {
  approved: boolean
  reason?: string
  editedInput?: unknown
}

export type Reply = AnswersReply | DecisionReply

/**
 * Which kind of wait a reply is addressed to.
 */
export type WaitKind = 'question' | 'approval'

/**
 * Through what a reply arrived. Free-form beyond the known channels.
 */
export type AnsweredVia = 'web' | 'terminal' | 'api' | 'expiry' | 'memory' | 'mcp' | (string & {})

/**
 * How a question got its values.
 *  - `answered`: the person picked or typed them
 *  - `defaulted`: the defaults were taken (unanswered, skipped or expired)
 */
export type ResolutionSource = 'answered' | 'defaulted'

export type ResolvedQuestion = {
  id: string
  values: string[]
  source: ResolutionSource
  /** Values the person sent that were dropped (not on offer, or failing a rule) */
  dropped: string[]
  /** Free text, when a value was typed rather than picked */
  freeText?: string
  /** True when free text was clamped to the limit */
  truncated?: boolean
}

/**
 * What a run receives once a question set is settled.
 */
export type QuestionOutcome = {
  kind: 'answers'
  answers: Record<string, string[]>
  questions: ResolvedQuestion[]
  /** Ids of the questions that took their defaults */
  defaulted: string[]
  skipped: boolean
  expired: boolean
  answeredBy: string | null
  answeredVia: AnsweredVia
  /** The text the model reads, see `describeOutcome` */
  text: string
}

/**
 * What a run receives once an approval is settled.
 */
export type DecisionOutcome = {
  kind: 'decision'
  approved: boolean
  reason?: string
  /** Present when the person changed the args; already re-validated by the caller */
  editedInput?: unknown
  /**
   * The digest of the tool's input schema the edit was validated under:
   * a later deploy validates it again only when its schema differs
   */
  editedUnder?: string
  /** A call a policy decided: the rule that did, when it was named */
  rule?: string | null
  /** A call a remembered grant allowed: the grant's id */
  grantId?: string
  expired: boolean
  answeredBy: string | null
  answeredVia: AnsweredVia
  text: string
}

export type Outcome = QuestionOutcome | DecisionOutcome

/**
 * Configurable limits of the ask tool and the per-run question budget. Every field has a
 * default in `DEFAULT_LIMITS`.
 */
export type QuestionLimits = {
  maxQuestions: number
  minOptions: number
  maxOptions: number
  maxPromptLength: number
  maxFreeTextLength: number
  /** Ask calls a run may make before being told to assume instead */
  askBudget: number
}

/**
 * One problem found in a question set a model wrote, or in a reply: where,
 * and what to do. A reply's issues also name the rule they broke (Vine's
 * own, such as `boolean`, or the package's, such as `unknownField`) and
 * what the rule was given (`{ max: 2000 }`): an HTTP 422 reports them as
 * Vine reports field errors, and a translation of the message reads them.
 *
 * @example
 * { path: 'questions[1].defaults', message: "must name values of this question's options" }
 */
export type QuestionIssue = {
  path: string
  message: string
  rule?: string
  meta?: Record<string, unknown>
}
