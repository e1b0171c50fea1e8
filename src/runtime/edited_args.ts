/*
 * The args a person edits on an approval: the JSON Schema of the tool's
 * input (a form is generated from it) and the check of what they sent,
 * both from the tool's own Vine schema, so the form, the model and the
 * check cannot drift apart.
 */

import { InvalidReplyException } from '../errors.ts'
import { CheckedEdit, type EditedInputValidator } from '../inbox/edited_input.ts'
import { schemaDigest } from './calls/current_tool.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import type { AgentDefinition } from './define_agent.ts'

type Definitions = Map<string, AgentDefinition>

function toolOf(definitions: Definitions, agent: string | null | undefined, toolName: string) {
  return agent ? definitions.get(agent)?.tools.get(toolName) : undefined
}

/**
 * The JSON Schema of a tool's input, or null when the agent or the tool
 * is not (or no longer) defined.
 */
export function inputSchemaOf(
  definitions: Definitions,
  agent: string | null | undefined,
  toolName: string
): Record<string, unknown> | null {
  return toolOf(definitions, agent, toolName)?.jsonSchema ?? null
}

/**
 * Checks edited args against the tool's own Vine schema; the field errors
 * name `editedInput.<path>`.
 */
export function editedArgsValidator(definitions: Definitions): EditedInputValidator {
  return async (row, editedInput) => {
    const run = row.runId ? await AgentRun.find(row.runId) : null
    const definition = toolOf(definitions, run?.agent, row.toolName)
    if (!definition) {
      throw new InvalidReplyException([
        {
          path: 'editedInput',
          rule: 'tool',
          message: `tool "${row.toolName}" is no longer defined`,
        },
      ])
    }
    const checked = await definition.validate(editedInput)
    if (!checked.ok) {
      throw new InvalidReplyException(
        checked.issues.map((issue) => ({ ...issue, path: `editedInput.${issue.path}` }))
      )
    }
    return new CheckedEdit(checked.value, schemaDigest(definition))
  }
}
