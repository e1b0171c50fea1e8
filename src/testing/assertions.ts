/*
 * A Japa plugin adding assertions about runs to `@japa/assert`'s `assert`:
 * they read the run and its rows from the database, so they hold whatever
 * process drove the run. Each failure message says what the run did
 * instead (its status and error code, its rows), which is the first thing
 * one wants to know when an agent test fails.
 */

import { Assert } from '@japa/assert'
import type { PluginFn } from '@japa/runner/types'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { ToolCall, type ToolCallKind } from '../persistence/models/tool_call.ts'
import { approvedArgs } from '../inbox/decision_signature.ts'
import type { DecisionOutcome } from '../questions/types.ts'

type RunRef = AgentRun | string

declare module '@japa/assert' {
  interface Assert {
    /** The run completed; returns it, with its final text in `result` */
    runCompleted(run: RunRef): Promise<AgentRun>
    /**
     * The run has a pending row of this kind and/or tool; returns the
     * first. Kinds: 'intake', 'ask' (the ask tool's questions), 'action'
     * (an approval: the card says "approval") and 'read'.
     */
    rowPending(run: RunRef, match?: { kind?: ToolCallKind; tool?: string }): Promise<ToolCall>
    /** The tool ran exactly once in the run, with these args when given */
    toolExecutedOnce(run: RunRef, tool: string, args?: unknown): Promise<ToolCall>
  }
}

async function rowsOf(id: string) {
  return ToolCall.query().where('run_id', id).orderBy('sequence', 'asc')
}

function describeRows(rows: ToolCall[]) {
  if (rows.length === 0) return 'no rows'
  return rows
    .map(
      (row) =>
        `${row.kind} ${row.toolName} ${row.status}${row.execution ? `/${row.execution}` : ''}`
    )
    .join(', ')
}

/** The row kinds, as a test names them, each with what the inbox calls it */
const ROW_KINDS: Record<ToolCallKind, string> = {
  intake: 'intake',
  ask: 'ask (a question set)',
  action: 'action (an approval)',
  read: 'read',
}

function idOf(run: RunRef) {
  return typeof run === 'string' ? run : run.id
}

/**
 * @example
 * // tests/bootstrap.ts
 * export const plugins: Config['plugins'] = [assert(), agentAssertions()]
 * // a test
 * await assert.runCompleted(run)
 * await assert.rowPending(run, { kind: 'action', tool: 'deploy' })
 * await assert.toolExecutedOnce(run, 'deploy', { branch: 'main' })
 */
export function agentAssertions(): PluginFn {
  return () => {
    Assert.macro('runCompleted', async function (this: Assert, run: RunRef) {
      const found = await AgentRun.findOrFail(idOf(run))
      const failure = found.errorCode ? ` (${found.errorCode}: ${found.error})` : ''
      this.evaluate(
        found.status === 'completed',
        `expected run ${found.id} to be completed, but it is ${found.status}${failure}; its rows: ${describeRows(await rowsOf(found.id))}`,
        { actual: found.status, expected: 'completed', operator: 'strictEqual' }
      )
      return found
    })

    Assert.macro(
      'rowPending',
      async function (this: Assert, run: RunRef, match: { kind?: string; tool?: string } = {}) {
        if (match.kind !== undefined && !Object.hasOwn(ROW_KINDS, match.kind)) {
          // 'approval' is what a card says; the row's kind is 'action'
          this.evaluate(
            false,
            `"${match.kind}" is not a row kind: use ${Object.values(ROW_KINDS).join(', ')}`,
            { actual: match.kind, expected: Object.keys(ROW_KINDS), operator: 'oneOf' }
          )
        }
        const rows = await rowsOf(idOf(run))
        const found = rows.find(
          (row) =>
            row.status === 'pending' &&
            (match.kind === undefined || row.kind === match.kind) &&
            (match.tool === undefined || row.toolName === match.tool)
        )
        const wanted = [match.kind, match.tool].filter(Boolean).join(' ') || 'any'
        this.evaluate(
          found !== undefined,
          `expected run ${idOf(run)} to have a pending row (${wanted}); its rows: ${describeRows(rows)}`,
          { actual: describeRows(rows), expected: wanted, operator: 'include' }
        )
        return found!
      }
    )

    Assert.macro(
      'toolExecutedOnce',
      async function (this: Assert, run: RunRef, tool: string, args?: unknown) {
        const rows = await rowsOf(idOf(run))
        const ran = rows.filter(
          (row) =>
            row.toolName === tool && (row.execution === 'succeeded' || row.execution === 'failed')
        )
        this.evaluate(
          ran.length === 1,
          `expected "${tool}" to have run once in run ${idOf(run)}, but it ran ${ran.length} times; its rows: ${describeRows(rows)}`,
          { actual: ran.length, expected: 1, operator: 'strictEqual' }
        )
        const row = ran[0]
        if (args !== undefined) {
          const decision = row.outcome as DecisionOutcome | null
          const used =
            decision?.kind === 'decision' ? approvedArgs(row, decision) : row.request.args
          this.deepEqual(used, args, `"${tool}" ran with other args`)
        }
        return row
      }
    )
  }
}
