/*
 * Tools an agent may call. The input is a Vine schema: the same schema
 * validates what the model sent and publishes the JSON Schema the model sees,
 * so the two cannot drift apart.
 */

import vine from '@vinejs/vine'
import { errors as vineErrors } from '@vinejs/vine'
import type { Infer, SchemaTypes } from '@vinejs/vine/types'
import type { QuestionIssue } from '../questions/types.ts'
import type { WaitRequest } from '../inbox/wait.ts'
import type { AwaitOptions } from '../inbox/awaiting.ts'
import type { SettleOptions } from '../inbox/row_settler.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import { formatIssuePath } from '../questions/validate.ts'

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

export type ToolOptions<Schema extends SchemaTypes> = {
  name: string
  description: string
  input: Schema
  kind: ToolKind
  /** Default: true for actions, false for reads */
  needsApproval?: boolean | ((input: Infer<Schema>) => boolean | Promise<boolean>)
  /** One line shown on the approval card, e.g. "Deploy main to production" */
  summary?: (input: Infer<Schema>) => string
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
  validate(input: unknown): Promise<ValidationResult>
  needsApproval(input: unknown): Promise<boolean>
  summarize(input: unknown): string
  handle(input: unknown, context: ToolContext): Promise<unknown>
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

  return {
    name: options.name,
    description: options.description,
    kind: options.kind,
    jsonSchema,
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
