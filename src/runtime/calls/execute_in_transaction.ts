/*
 * A transactional action (docs/design.md §5.4): its handler's writes, the
 * row's result and the effects it asked for (`ctx.after`) commit in one
 * transaction on the run's connection, or not at all. A process killed
 * while the handler runs leaves nothing committed — not its writes, not a
 * claim — so the next driver simply runs it again: exactly once in effect,
 * never `interrupted`.
 *
 * The transaction's first statement claims the row (`execution` from null
 * to `running`): on SQLite it takes the database's write lock before the
 * handler reads anything (the pool's one connection is the transaction's
 * until it ends), and on PostgreSQL and MySQL it locks the row, so a second
 * driver running the same call waits there and then finds it done. Only
 * the count of starts is written before the transaction, so a start a kill
 * rolled back still shows on the run's timeline as a retry.
 */

import { toolSpan } from '../../telemetry/run_spans.ts'
import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { AgentEffect } from '../../persistence/models/agent_effect.ts'
import { AgentRun } from '../../persistence/models/agent_run.ts'
import { ToolCall } from '../../persistence/models/tool_call.ts'
import { affectedRows, preparedColumns } from '../../persistence/prepared_columns.ts'
import { transaction } from '../../persistence/transaction.ts'
import debug from '../../debug.ts'
import type { ToolDefinition, TransactionalToolContext } from '../define_tool.ts'
import type { AskedEffect } from '../effects/outbox.ts'
import { isTransient } from '../transient.ts'
import { toolContext, type CallContext } from './context.ts'
import { auditedUpdate, auditExecution } from './execution_audit.ts'

type Committed = { result: unknown; effects: AgentEffect[]; at: DateTime }

/**
 * Runs `definition`'s handler on `row` in a transaction with the row's
 * result, then delivers the effects it asked for. True when this driver
 * wrote the row's outcome (in `row` now); false when another driver ran
 * the call first (read the row again). A passing database error (a lost
 * connection, a deadlock, a lost COMMIT) is thrown: nothing of this start
 * is known to be committed, and the retried drive finds out from the row.
 */
export async function runInTransaction(
  context: CallContext,
  definition: ToolDefinition,
  row: ToolCall,
  args: unknown
): Promise<boolean> {
  const { run } = context
  const handlerContext = toolContext(run, row.toolCallId ?? row.id, row, args !== row.request.args)
  if (!(await countStart(row, handlerContext.idempotencyKey))) return false

  let committed: Committed | null
  try {
    committed = await transaction(AgentRun, (trx) =>
      runHandler(context, definition, row, args, { ...handlerContext, trx })
    )
  } catch (error) {
    if (isTransient(error)) throw error
    // Rolled back: nothing it wrote stays; the failure is the call's result
    return recordFailure(row, error)
  }
  if (!committed) return false
  Object.assign(row, { execution: 'succeeded', result: committed.result, executedAt: committed.at })
  debug('run %s: %s committed', run.id, definition.name)
  await context.onCheckpoint?.('after-action-commit', run.id)
  await context.outbox.deliver(run.agent, committed.effects)
  return true
}

/**
 * Counts a start of the handler, outside its transaction; false when the
 * call already has an outcome.
 */
async function countStart(row: ToolCall, key: string): Promise<boolean> {
  const now = DateTime.now()
  const client = ToolCall.$adapter.modelConstructorClient(ToolCall)
  const columns = preparedColumns(row, {
    transactional: true,
    idempotencyKey: key,
    startedAt: now,
    updatedAt: now,
  })
  const started = await ToolCall.query()
    .where('id', row.id)
    .whereNull('execution')
    .update({
      ...columns,
      execution_attempts: client.raw('execution_attempts + 1'),
      started_at: client.raw('coalesce(started_at, ?)', [columns.started_at]),
    })
  if (affectedRows(started) !== 1) return false
  Object.assign(row, { transactional: true, idempotencyKey: key })
  return true
}

/**
 * The transaction's work: claim the row, run the handler, write its
 * result and its effects. Null when the claim found the call done.
 */
async function runHandler(
  context: CallContext,
  definition: ToolDefinition,
  row: ToolCall,
  args: unknown,
  handlerContext: Omit<TransactionalToolContext, 'after'>
): Promise<Committed | null> {
  const { trx } = handlerContext
  const claimed = await trx
    .from(ToolCall.table)
    .where('id', row.id)
    .whereNull('execution')
    .update({ execution: 'running', claimed_by: context.owner })
  if (affectedRows(claimed) !== 1) return null
  await context.onCheckpoint?.('before-execute', context.run.id)

  const asked: AskedEffect[] = []
  let open = true
  const after = (name: string, data: unknown) => {
    if (!open) throw new Error(`ctx.after("${name}") came after the handler returned`)
    if (!definition.effects.has(name)) {
      throw new Error(`Tool "${definition.name}" has no effect "${name}" (see its \`effects\`)`)
    }
    // Stored as JSON: what it holds now is what every delivery gets
    asked.push({ name, data: data === undefined ? null : JSON.parse(JSON.stringify(data)) })
  }
  let value: unknown
  try {
    context.handlersRun++
    value =
      (await toolSpan(row, async () => definition.handle(args, { ...handlerContext, after }))) ??
      null
  } finally {
    open = false
  }
  ensureOpen(trx, definition)

  const at = DateTime.now()
  const result = { value }
  await trx
    .from(ToolCall.table)
    .where('id', row.id)
    .update(preparedColumns(row, { execution: 'succeeded', result, executedAt: at, updatedAt: at }))
  await auditExecution(row, 'executed', { execution: 'succeeded' }, trx)
  const effects = await context.outbox.insert(
    trx,
    {
      runId: context.run.id,
      rowId: row.id,
      toolName: definition.name,
      key: handlerContext.idempotencyKey,
    },
    asked
  )
  await context.onCheckpoint?.('before-action-commit', context.run.id)
  return { result, effects, at }
}

function ensureOpen(trx: TransactionClientContract, definition: ToolDefinition) {
  if (trx.isCompleted) {
    throw new Error(
      `Tool "${definition.name}": its handler ended the transaction itself; leave the commit to the runtime`
    )
  }
}

/**
 * A handler that threw: its transaction rolled back, the error is the
 * call's result, written where the call still has none.
 */
async function recordFailure(row: ToolCall, error: unknown): Promise<boolean> {
  const message = error instanceof Error ? error.message : String(error)
  const at = DateTime.now()
  const failed = await auditedUpdate(
    row,
    'executed',
    { execution: 'failed' },
    preparedColumns(row, {
      execution: 'failed',
      result: { error: message },
      executedAt: at,
      updatedAt: at,
    }),
    [['id = ?', row.id], ['execution is null']]
  )
  if (!failed) return false
  Object.assign(row, { execution: 'failed', result: { error: message }, executedAt: at })
  return true
}
