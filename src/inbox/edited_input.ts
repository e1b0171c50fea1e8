/*
 * Args a person edited on an approval card, checked before the settle
 * writes them: by the app's validator (the runtime passes the tool's own
 * Vine schema, ../runtime/edited_args.ts), with field errors named like
 * the rest of the reply's. The validator may name the schema it checked
 * under, which the outcome keeps (`editedUnder`): a later deploy
 * validates the edit again only when its schema differs, as validation
 * is not idempotent (a transform's output is refused as its input).
 */

import { InvalidReplyException } from '../errors.ts'
import { replyFieldPath } from '../questions/reply.ts'
import type { DecisionReply } from '../questions/types.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'

/** Edited args as a validator checked them, with the digest of the schema it checked them under */
export class CheckedEdit {
  constructor(
    readonly value: unknown,
    readonly under: string
  ) {}
}

/**
 * Re-validates args a person edited on an approval card. Returns the
 * validated args (or a `CheckedEdit` naming the schema), or throws
 * `InvalidReplyException` with field errors.
 */
export type EditedInputValidator = (row: ToolCall, editedInput: unknown) => Promise<unknown>

/**
 * The reply with its edited args as `validator` checked them, and the
 * schema it checked them under when it says. A reply with no edit is
 * returned as it is; an edit with no validator is refused.
 */
export async function checkEdit(
  row: ToolCall,
  reply: DecisionReply,
  validator: EditedInputValidator | undefined
): Promise<{ reply: DecisionReply; under?: string }> {
  if (!reply.approved || reply.editedInput === undefined) return { reply }
  if (!validator) {
    throw new InvalidReplyException([
      {
        path: 'editedInput',
        rule: 'tool',
        message: `tool "${row.toolName}" does not accept edited args here`,
      },
    ])
  }
  let checked: unknown
  try {
    checked = await validator(row, reply.editedInput)
  } catch (error) {
    // Whatever the validator's path style, the 422 names fields like the rest of the reply
    if (!(error instanceof InvalidReplyException)) throw error
    const issues = error.errors.map((issue) => ({ ...issue, path: replyFieldPath(issue.path) }))
    throw new InvalidReplyException(issues)
  }
  if (!(checked instanceof CheckedEdit)) return { reply: { ...reply, editedInput: checked } }
  return { reply: { ...reply, editedInput: checked.value }, under: checked.under }
}
