/*
 * A call checked against the tool as the running deploy defines it. A row
 * may wait for days while the app is deployed again with its tools changed
 * (docs/guides/deploying_while_runs_wait.md): right before its handler
 * runs, the args it would run with (the ones shown, or the person's edit)
 * are validated against the tool's input schema as it is now. Args that
 * schema refuses, or whose fields it would drop, never run: the row ends
 * `invalid-args` (or `tool-removed`, for a tool no longer defined,
 * ./removed_tool.ts), with why in its result, and the model is told it may
 * call again.
 */

import { createHash } from 'node:crypto'
import { DateTime } from 'luxon'
import { ToolCall, type ToolExecution } from '../../persistence/models/tool_call.ts'
import type { AgentRun } from '../../persistence/models/agent_run.ts'
import { preparedColumns } from '../../persistence/prepared_columns.ts'
import type { DecisionOutcome, QuestionIssue } from '../../questions/types.ts'
import debug from '../../debug.ts'
import type { ToolDefinition } from '../define_tool.ts'
import type { ToolOutput } from '../journal.ts'
import { errorOutput, type CallContext } from './context.ts'
import { auditedUpdate } from './execution_audit.ts'

/** The executions of a row the running deploy could not run */
export type NotRunExecution = Extract<ToolExecution, 'tool-removed' | 'invalid-args'>

/** What a row that was not run stores as its result */
export type NotRunResult = { error: string; issues?: QuestionIssue[] }

const digests = new WeakMap<ToolDefinition, string>()

/**
 * The digest of a tool's input schema (its JSON Schema), which a call's row
 * keeps (`request.schema`): args validated by the schema the tool still has
 * are not validated again. Validation is not idempotent (a `vine.date()`
 * field is stored as an ISO string the same schema refuses), so only a
 * changed schema, or a row from before digests were kept, is checked.
 */
export function schemaDigest(definition: ToolDefinition): string {
  let digest = digests.get(definition)
  if (digest === undefined) {
    digest = createHash('sha256').update(JSON.stringify(definition.jsonSchema)).digest('base64url')
    digests.set(definition, digest)
  }
  return digest
}

/**
 * The digest of the schema `args` were last validated under: an edit's,
 * checked when it was settled (DecisionOutcome `editedUnder`), else the
 * row's own, kept when it was asked.
 */
export function checkedUnder(row: Pick<ToolCall, 'request'>, decision?: DecisionOutcome): unknown {
  if (decision?.editedInput !== undefined) return decision.editedUnder
  return (row.request as { schema?: unknown } | null)?.schema
}

/**
 * What keeps `args` from fitting the current input schema of the row's
 * tool: none when they were validated under the schema the tool still has
 * (`under`, its digest: see `checkedUnder`), else Vine's issues, or the
 * fields it would drop. Pure: the runtime checks before it runs a call,
 * the inbox before it lists or settles one (../changed_rows.ts).
 */
export async function currentArgsIssues(
  definition: ToolDefinition,
  under: unknown,
  args: unknown
): Promise<QuestionIssue[]> {
  if (under === schemaDigest(definition)) return []
  const checked = await definition.validate(args)
  return checked.ok ? droppedFields(args, checked.value) : checked.issues
}

/**
 * Whether `args` fit the current input schema of the row's tool: the
 * schema they were validated under (`under`), or valid and with no field
 * it would drop (the call would then run otherwise than the person
 * approved it). Args that do not fit mark the
 * row `invalid-args`, and `output` is what the model reads; null when
 * another driver ran or marked the row first (read it again).
 */
export async function checkCurrentArgs(
  context: CallContext,
  definition: ToolDefinition,
  row: ToolCall,
  args: unknown,
  prefix: string,
  under: unknown
): Promise<{ fits: true } | { fits: false; output: ToolOutput | null }> {
  const issues = await currentArgsIssues(definition, under, args)
  if (issues.length === 0) return { fits: true }
  const result: NotRunResult = {
    error: `The args no longer fit the input schema of tool "${definition.name}"`,
    issues,
  }
  return { fits: false, output: await markNotRun(context, row, 'invalid-args', result, prefix) }
}

/**
 * Marks `row` as not run, where nothing ran it yet, and returns what the
 * model reads of it; null when a driver ran or marked it first.
 */
export async function markNotRun(
  context: CallContext,
  row: ToolCall,
  execution: NotRunExecution,
  result: NotRunResult,
  prefix: string
): Promise<ToolOutput | null> {
  const now = DateTime.now()
  const marked = await auditedUpdate(
    row,
    'not-run',
    { execution, ...result },
    preparedColumns(row, { execution, result, executedAt: now, updatedAt: now }),
    [['id = ?', row.id], ['execution is null']]
  )
  if (!marked) return null
  Object.assign(row, { execution, result, executedAt: now })
  debug('run %s: row %s not run: %s', context.run.id, row.id, execution)
  return errorOutput(`${prefix}${notRunText(row)}`)
}

/**
 * The approved actions of a run that ended because its agent is no longer
 * defined (../unknown_agent.ts): one not run yet ends `tool-removed`
 * (its tool went with its agent), one that was running when its process
 * died ends `interrupted`. No row is left approved without an execution
 * state in a finished run. Each is a conditional write: a row another
 * process marked first is left as that process marked it.
 */
export async function closeApprovedRows(run: Pick<AgentRun, 'id' | 'agent'>) {
  const rows = await ToolCall.query()
    .where('run_id', run.id)
    .where('status', 'approved')
    .where((open) => open.whereNull('execution').orWhere('execution', 'running'))
  for (const row of rows) {
    const now = DateTime.now()
    if (row.execution === 'running') {
      const set = preparedColumns(row, {
        execution: 'interrupted',
        executedAt: now,
        updatedAt: now,
      })
      await auditedUpdate(row, 'interrupted', {}, set, [
        ['id = ?', row.id],
        ["execution = 'running'"],
      ])
      continue
    }
    const result: NotRunResult = {
      error: `Not run: the agent "${run.agent}" is no longer defined in this version of the app`,
    }
    const execution = 'tool-removed'
    const set = preparedColumns(row, { execution, result, executedAt: now, updatedAt: now })
    await auditedUpdate(row, 'not-run', { execution, ...result }, set, [
      ['id = ?', row.id],
      ['execution is null'],
    ])
  }
}

/**
 * What the model reads of a row the running deploy did not run.
 */
export function notRunText(row: Pick<ToolCall, 'toolName' | 'execution' | 'result'>): string {
  const name = row.toolName
  if (row.execution === 'tool-removed') {
    return `The "${name}" call was not run: the tool "${name}" no longer exists in this version of the app (it was removed after the call was made). Do not call it again; use the tools offered, or say in your final answer that this could not be done.`
  }
  const issues = ((row.result as NotRunResult | null)?.issues ?? [])
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('\n')
  return `The "${name}" call was not run: its args no longer fit the tool's input schema, which changed after the call was made:\n${issues}\nIf it is still needed, call "${name}" again with args that fit its current schema.`
}

/**
 * The top-level fields of `args` a schema's validated `value` left out:
 * Vine drops the fields it does not know, so a field the tool no longer
 * takes (say, `dryRun`) would silently vanish from a call a person approved
 * with it. Values the schema rewrites (a trim, a number from a string) are
 * not counted: the handler runs with the args approved. Pure.
 *
 * @example
 * droppedFields({ branch: 'main', dryRun: true }, { branch: 'main' })
 * // [{ path: 'dryRun', message: 'is no longer accepted by the tool' }]
 */
export function droppedFields(args: unknown, value: unknown): QuestionIssue[] {
  if (!isRecord(args) || !isRecord(value)) return []
  return Object.keys(args)
    .filter((key) => args[key] !== undefined && value[key] === undefined)
    .map((path) => ({ path, message: 'is no longer accepted by the tool' }))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
