/*
 * Tools an agent may call. The input is a Vine schema: the same schema
 * validates what the model sent and publishes the JSON Schema the model sees,
 * so the two cannot drift apart. An action may be `transactional`: its
 * handler gets a Lucid transaction that commits with the row's result, and
 * may ask for external calls (`effects`) that follow the commit
 * (docs/design.md §5.4, §5.5).
 */

import vine from '@vinejs/vine'
import { errors as vineErrors } from '@vinejs/vine'
import type { Infer, SchemaTypes } from '@vinejs/vine/types'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import type { AnsweredVia, QuestionIssue } from '../questions/types.ts'
import type { WaitRequest } from '../inbox/wait.ts'
import type { AwaitOptions } from '../inbox/awaiting.ts'
import type { SettleOptions } from '../inbox/row_settler.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { formatIssuePath } from '../questions/validate.ts'
import { vineIssues } from '../questions/vine_issues.ts'
import type { Policy } from '../governance/policy.ts'
import { checkGrantChoices, type GrantChoice } from '../governance/grant_rules.ts'
import { checkedLadder, type LadderStep } from '../governance/ladder.ts'

/**
 * `read` tools run at once; `action` tools wait for a person's approval
 * unless `needsApproval` says otherwise.
 */
export type ToolKind = 'read' | 'action'

/**
 * The run a tool is called in, as its handler sees it.
 */
export type ToolRun = {
  id: string
  agent: string
  ownerId: string | null
  /** 1, then +1 on each `agents.retry` */
  attempt: number
  input: unknown
}

/**
 * The call's row, as its handler sees it: who approved it, through what
 * and when (null for a call that needed no approval). A read batched with
 * its model response has no row yet when it runs.
 */
export type ToolRow = {
  id: string
  sequence: number
  approvedBy: string | null
  approvedVia: AnsweredVia | null
  approvedAt: DateTime | null
}

/**
 * What a tool's `handle` receives besides its input.
 */
export type ToolContext = {
  runId: string
  ownerId: string | null
  toolCallId: string
  /** True when a person changed the args on the approval card */
  argsEdited: boolean
  /**
   * A key unique to this call (its run, the run's attempt and the call),
   * the same every time this call's handler starts: pass it to external
   * APIs that accept one, so a call that runs again is applied once
   */
  idempotencyKey: string
  run: ToolRun
  row: ToolRow | null
  /**
   * Waits the tool may open while it runs, rows of the run (a tool with
   * `opensWaits`, such as an MCP server's elicitation); absent where
   * nobody can answer (no owner, a child run) and in the reads' batch.
   */
  waits?: ToolWaits
}

/**
 * Rows a running tool opens and waits on. `open` names the driver as the
 * row's holder, so a driver that dies mid-call leaves them withdrawn by the
 * next (docs/design.md §7.6).
 */
export type ToolWaits = {
  open(wait: WaitRequest): Promise<ToolCall>
  settled(rowId: string, options?: AwaitOptions): Promise<ToolCall | null>
  withdraw(rowId: string): Promise<ToolCall | null>
  settle(rowId: string, reply: unknown, options: SettleOptions): Promise<ToolCall>
}

/**
 * What an effect (`ctx.after`) receives besides its data.
 */
export type EffectContext = {
  /** This effect's own key, the same on every delivery of it */
  idempotencyKey: string
  runId: string
  /** The tool-call row of the action that asked for it */
  rowId: string
  /** Deliveries so far, this one included */
  attempt: number
}

/** An external call that follows a transactional action's commit */
export type Effect = (data: any, context: EffectContext) => unknown

export type Effects = Record<string, Effect>

/**
 * What a transactional handler receives: the call's context, the
 * transaction its writes go through (they commit with the call's result,
 * or not at all) and `after`, which asks for an effect of the tool to run
 * once that commit is done.
 */
export type TransactionalToolContext<ToolEffects extends Effects = Effects> = ToolContext & {
  /** Every query of the handler goes through it: `Model.create(data, { client: trx })` */
  trx: TransactionClientContract
  /**
   * Runs the tool's effect `name` with `data` (JSON) after the commit,
   * recorded in the same transaction: a crash between the commit and the
   * call runs it again, with the same idempotency key
   */
  after<Name extends keyof ToolEffects & string>(
    name: Name,
    data: Parameters<ToolEffects[Name]>[0]
  ): void
}

type CommonToolOptions<Schema extends SchemaTypes> = {
  name: string
  description: string
  input: Schema
  /** Default: true for actions, false for reads */
  needsApproval?: boolean | ((input: Infer<Schema>) => boolean | Promise<boolean>)
  /** One line shown on the approval card, e.g. "Deploy main to production" */
  summary?: (input: Infer<Schema>) => string
  /**
   * Decides each call before any row is opened: allow, deny with a reason,
   * ask, or ask a quorum (docs/design.md §11.1). Returning nothing leaves
   * it to the app-wide `approvals.policy`, then to `needsApproval`.
   */
  policy?: Policy
  /** Never covered by a remembered grant, whatever the config */
  irreversible?: boolean
  /**
   * What an approval card may remember for this tool: later calls in the
   * run, the approver's own runs for a while, or with the same args.
   */
  grants?: GrantChoice[]
  /** Escalation steps of its approvals, in place of the agent's (docs/design.md §7.7) */
  ladder?: LadderStep[]
}

/**
 * A tool run as today: at most once, `interrupted` when its process died
 * while it ran.
 */
export type PlainToolOptions<Schema extends SchemaTypes> = CommonToolOptions<Schema> & {
  kind: ToolKind
  transactional?: false
  handle: (input: Infer<Schema>, context: ToolContext) => unknown
}

/**
 * An action whose writes commit with its result: exactly once in effect.
 */
export type TransactionalToolOptions<
  Schema extends SchemaTypes,
  ToolEffects extends Effects,
> = CommonToolOptions<Schema> & {
  kind: 'action'
  transactional: true
  /** External calls the handler may ask for with `ctx.after(name, data)` */
  effects?: ToolEffects
  handle: (input: Infer<Schema>, context: TransactionalToolContext<ToolEffects>) => unknown
}

export type ToolOptions<Schema extends SchemaTypes, ToolEffects extends Effects = Effects> =
  PlainToolOptions<Schema> | TransactionalToolOptions<Schema, ToolEffects>

export type ValidationResult = { ok: true; value: unknown } | { ok: false; issues: QuestionIssue[] }

/**
 * A tool ready for the runtime: its options plus the compiled validator and
 * JSON Schema.
 */
export type ToolDefinition = {
  name: string
  description: string
  kind: ToolKind
  jsonSchema: Record<string, unknown>
  policy?: Policy
  irreversible: boolean
  grants: GrantChoice[]
  ladder?: LadderStep[]
  validate(input: unknown): Promise<ValidationResult>
  needsApproval(input: unknown): Promise<boolean>
  summarize(input: unknown): string
  /** Its handler runs in a transaction with the row's result (`context` is then transactional) */
  transactional: boolean
  /** Its effects by name (transactional actions only) */
  effects: Map<string, Effect>
  handle(input: unknown, context: ToolContext | TransactionalToolContext): Promise<unknown>
  /**
   * The tool may open waits while it runs (an MCP tool): it always runs
   * claimed on its own row, never in the reads' batch (docs/design.md §8.2)
   */
  opensWaits?: boolean
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * Defines a tool.
 *
 * @example
 * const deploy = defineTool({
 *   name: 'deploy',
 *   description: 'Deploy a branch to production',
 *   kind: 'action',
 *   input: vine.object({ branch: vine.string() }),
 *   summary: ({ branch }) => `Deploy ${branch} to production`,
 *   handle: async ({ branch }) => ({ deployed: branch }),
 * })
 *
 * // Exactly once: the refund row and the call's result commit together
 * const refund = defineTool({
 *   name: 'refund_order',
 *   description: 'Refund an order',
 *   kind: 'action',
 *   transactional: true,
 *   input: vine.object({ orderId: vine.number() }),
 *   effects: {
 *     notifyPayments: (data: { orderId: number }, { idempotencyKey }) =>
 *       payments.refund(data.orderId, { idempotencyKey }),
 *   },
 *   handle: async ({ orderId }, { trx, after }) => {
 *     await Refund.create({ orderId }, { client: trx })
 *     after('notifyPayments', { orderId })
 *     return { refunded: orderId }
 *   },
 * })
 */
export function defineTool<Schema extends SchemaTypes, ToolEffects extends Effects = Effects>(
  options: ToolOptions<Schema, ToolEffects>
): ToolDefinition {
  if (!TOOL_NAME.test(options.name)) {
    throw new Error(
      `Invalid tool name "${options.name}": use 1 to 64 letters, digits, "_" or "-" (model providers refuse others)`
    )
  }
  const effects = effectsOf(options)
  const validator = vine.create(options.input)
  const jsonSchema = validator['~standard'].jsonSchema.input({ target: 'draft-07' }) as Record<
    string,
    unknown
  >
  const needsApproval = options.needsApproval ?? options.kind === 'action'
  const irreversible = options.irreversible === true
  checkGrantChoices(options.name, options.grants ?? [], irreversible)

  return {
    name: options.name,
    description: options.description,
    kind: options.kind,
    jsonSchema,
    policy: options.policy as Policy | undefined,
    irreversible,
    grants: irreversible ? [] : (options.grants ?? []),
    ...checkedLadder(`Tool "${options.name}": `, options.ladder),
    async validate(input) {
      try {
        return { ok: true, value: await validator.validate(input) }
      } catch (error) {
        if (error instanceof vineErrors.E_VALIDATION_ERROR) {
          return { ok: false, issues: vineIssues(error.messages, formatIssuePath) }
        }
        throw error
      }
    },
    async needsApproval(input) {
      return typeof needsApproval === 'function'
        ? Boolean(await needsApproval(input as Infer<Schema>))
        : needsApproval
    },
    summarize(input) {
      return options.summary ? options.summary(input as Infer<Schema>) : `${options.name}`
    },
    transactional: options.transactional === true,
    effects,
    async handle(input, context) {
      return (options.handle as (input: unknown, context: unknown) => unknown)(input, context)
    },
  }
}

/**
 * A tool's effects, checked: only a transactional action commits before
 * them, and their names are stored on the outbox's rows.
 */
function effectsOf(options: {
  name: string
  kind: ToolKind
  transactional?: boolean
  effects?: Effects
}): Map<string, Effect> {
  const transactional = options.transactional === true
  if (transactional && options.kind !== 'action') {
    throw new Error(
      `Tool "${options.name}": only an action can be transactional (a read has no writes to commit)`
    )
  }
  const given = transactional ? options.effects : undefined
  if (!transactional && options.effects !== undefined) {
    throw new Error(
      `Tool "${options.name}": effects follow a commit, so they need \`transactional: true\``
    )
  }
  const effects = new Map<string, Effect>()
  for (const [name, effect] of Object.entries(given ?? {})) {
    if (!TOOL_NAME.test(name) || typeof effect !== 'function') {
      throw new Error(
        `Tool "${options.name}": effect "${name}" must be a function named with 1 to 64 letters, digits, "_" or "-"`
      )
    }
    effects.set(name, effect)
  }
  return effects
}
