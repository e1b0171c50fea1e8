/*
 * Tools an agent may call. The input is a Vine schema: the same schema
 * validates what the model sent and publishes the JSON Schema the model sees,
 * so the two cannot drift apart.
 */

import vine from '@vinejs/vine'
import { errors as vineErrors } from '@vinejs/vine'
import type { Infer, SchemaTypes } from '@vinejs/vine/types'
import type { QuestionIssue } from '../questions/types.ts'
import { formatIssuePath } from '../questions/validate.ts'
import type { Policy } from '../governance/policy.ts'
import { checkGrantChoices, type GrantChoice } from '../governance/grant_rules.ts'

/**
 * `read` tools run at once; `action` tools wait for a person's approval
 * unless `needsApproval` says otherwise.
 */
export type ToolKind = 'read' | 'action'

/**
 * What a tool's `handle` receives besides its input.
 */
export type ToolContext = {
  runId: string
  ownerId: string | null
  toolCallId: string
  /** True when a person changed the args on the approval card */
  argsEdited: boolean
}

export type ToolOptions<Schema extends SchemaTypes> = {
  name: string
  description: string
  input: Schema
  kind: ToolKind
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
  handle: (input: Infer<Schema>, context: ToolContext) => unknown
}

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
  validate(input: unknown): Promise<ValidationResult>
  needsApproval(input: unknown): Promise<boolean>
  summarize(input: unknown): string
  handle(input: unknown, context: ToolContext): Promise<unknown>
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
 */
export function defineTool<Schema extends SchemaTypes>(
  options: ToolOptions<Schema>
): ToolDefinition {
  if (!TOOL_NAME.test(options.name)) {
    throw new Error(
      `Invalid tool name "${options.name}": use 1 to 64 letters, digits, "_" or "-" (model providers refuse others)`
    )
  }
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
    async validate(input) {
      try {
        return { ok: true, value: await validator.validate(input) }
      } catch (error) {
        if (error instanceof vineErrors.E_VALIDATION_ERROR) {
          const messages = error.messages as { field: string; message: string }[]
          return {
            ok: false,
            issues: messages.map((m) => ({ path: formatIssuePath(m.field), message: m.message })),
          }
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
    async handle(input, context) {
      return options.handle(input as Infer<Schema>, context)
    },
  }
}
