/*
 * A run as its page tells it: a timeline built from the run, its rows and
 * its journal, with no query of its own. The journal gives the order of the
 * current attempt (its input, the intake, each model step and the calls the
 * step made, each call's result as the model read it); the rows give who
 * answered what, through what and when, the args and what a tool returned.
 * Rows of earlier attempts, and rows the journal does not place yet (an
 * intake or a call still waiting), keep their order by sequence. The run's
 * end (its result, or its error code) closes it. An action's entry tells
 * how it ran (docs/design.md §5.4): when it started, how many times (a
 * transactional one killed mid-way rolled back and ran again), when its
 * result committed or it was interrupted, its idempotency key, and the
 * effects that followed its commit.
 */

import type { AgentRun } from '../persistence/models/agent_run.ts'
import type { AgentEffect, EffectStatus } from '../persistence/models/agent_effect.ts'
import type { JournalRow } from '../persistence/models/journal_row.ts'
import type { ToolCall, ToolExecution } from '../persistence/models/tool_call.ts'
import type { Vote } from '../governance/quorum.ts'
import type { RowChange } from '../runtime/changed_rows.ts'
import type { JournalPayloads, ToolOutput } from '../runtime/journal.ts'
import { rowCallId } from '../runtime/journal.ts'
import { rowCard, runSummary, type RowCard, type RunSummary } from './cards.ts'
import type { AuditLine } from './timeline_audit.ts'

/**
 * An effect a transactional action asked for (`ctx.after`), and what
 * became of it.
 */
export type TimelineEffect = {
  name: string
  idempotencyKey: string
  status: EffectStatus
  /** Deliveries started */
  attempts: number
  lastError: string | null
  doneAt: string | null
}

/**
 * How an action ran: null until it started.
 */
export type TimelineAction = {
  /** Its handler's writes committed with its result */
  transactional: boolean
  idempotencyKey: string | null
  startedAt: string | null
  /** When its result (or its interruption) was written */
  executedAt: string | null
  /** Starts of its handler: more than one when a transaction rolled back and it ran again */
  starts: number
  effects: TimelineEffect[]
}

/**
 * One tool call of the run: its row when it has one (the question set and
 * its answers, the approval and its decision, who settled it), the args it
 * was called with, what the tool returned (or its error), and what the
 * model read back.
 */
export type TimelineCall = {
  type: 'call'
  at: string | null
  /** The model step that made the call; null for an intake or a wait opened on the run */
  step: number | null
  attempt: number
  toolName: string
  row: RowCard | null
  args: unknown
  execution: ToolExecution | null
  /** What the tool returned: `{ value }` or `{ error }`, when it ran */
  result: unknown
  /** What the model read as the call's result */
  output: ToolOutput | null
  /** How an action ran, once it started */
  action: TimelineAction | null
  /** The row's audit entries (./timeline_audit.ts) */
  audit?: AuditLine[]
}

export type TimelineEntry =
  | { type: 'input'; at: string | null; text: string }
  | { type: 'step'; at: string | null; step: number; text: string; finishReason: string }
  | TimelineCall
  | {
      type: 'end'
      at: string | null
      status: 'completed' | 'failed' | 'cancelled'
      /** A completed run's final answer */
      text: string | null
      errorCode: string | null
      error: string | null
    }

export type RunTimeline = {
  run: RunSummary & {
    attempt: number
    parentRunId: string | null
    /** A drive that failed and is retried by the periodic recovery */
    lastError: string | null
  }
  entries: TimelineEntry[]
}

type Journaled = Pick<JournalRow, 'key' | 'kind' | 'payload' | 'createdAt'>

type Effected = Pick<
  AgentEffect,
  'rowId' | 'position' | 'name' | 'idempotencyKey' | 'status' | 'attempts' | 'lastError' | 'doneAt'
>

function iso(date: { toISO(): string | null } | null | undefined): string | null {
  return date?.toISO() ?? null
}

/**
 * How a row's action ran, with its effects in order; null for a row that
 * is not an action or has not started.
 */
function actionOf(row: ToolCall | null, effects: Effected[]): TimelineAction | null {
  if (!row || row.kind !== 'action' || (!row.startedAt && !row.execution)) return null
  return {
    transactional: Boolean(row.transactional),
    idempotencyKey: row.idempotencyKey ?? null,
    startedAt: iso(row.startedAt),
    executedAt: iso(row.executedAt),
    starts: row.executionAttempts ?? 0,
    effects: effects
      .filter((effect) => effect.rowId === row.id)
      .sort((a, b) => a.position - b.position)
      .map((effect) => ({
        name: effect.name,
        idempotencyKey: effect.idempotencyKey,
        status: effect.status,
        attempts: effect.attempts,
        lastError: effect.lastError ?? null,
        doneAt: iso(effect.doneAt),
      })),
  }
}

/** What the calls' entries draw on beside their rows */
type CallFacts = {
  effects: Effected[]
  votes?: Map<string, Vote[]>
  /** What changed since a pending row was asked, by row id */
  changes?: Map<string, RowChange>
}

function callEntry(
  row: ToolCall | null,
  { effects, votes, changes }: CallFacts,
  fields: Partial<TimelineCall> & Pick<TimelineCall, 'toolName' | 'step' | 'attempt'>
): TimelineCall {
  return {
    type: 'call',
    at: iso(row?.createdAt),
    row: row ? rowCard(row, undefined, votes?.get(row.id), changes?.get(row.id)) : null,
    args: row?.request?.args ?? null,
    execution: row?.execution ?? null,
    result: row?.result ?? null,
    output: null,
    action: actionOf(row, effects),
    ...fields,
  }
}

/**
 * The text of a run's input as the model read it, or its stored input.
 */
function inputText(run: AgentRun, journal: Journaled[]): string {
  const entry = journal.find((item) => item.kind === 'input')
  if (entry) return (entry.payload as JournalPayloads['input']).text
  return typeof run.input === 'string' ? run.input : JSON.stringify(run.input ?? null)
}

/**
 * The timeline of a run from its rows (any order), its journal (in
 * order), the effects of its actions (any order) and what changed since
 * its pending rows were asked.
 *
 * @example
 * const { run, rows, journal, effects } = await agents.runRecord(id)
 * runTimeline(run, rows, journal, effects, votes).entries
 */
export function runTimeline(
  run: AgentRun,
  rows: ToolCall[],
  journal: Journaled[],
  effects: Effected[] = [],
  votes?: Map<string, Vote[]>,
  changes?: Map<string, RowChange>
): RunTimeline {
  const facts: CallFacts = { effects, votes, changes }
  const bySequence = [...rows].sort((a, b) => a.sequence - b.sequence)
  const current = bySequence.filter((row) => row.attempt === run.attempt)
  const placed = new Set<ToolCall>()
  const entries: TimelineEntry[] = []

  // Earlier attempts first: their rows are all that is left of them
  for (const row of bySequence) {
    if (row.attempt === run.attempt) continue
    placed.add(row)
    entries.push(
      callEntry(row, facts, { toolName: row.toolName, step: null, attempt: row.attempt })
    )
  }

  entries.push({ type: 'input', at: iso(run.createdAt), text: inputText(run, journal) })

  const intake = current.find((row) => row.kind === 'intake')
  if (intake) {
    placed.add(intake)
    entries.push(callEntry(intake, facts, { toolName: 'intake', step: null, attempt: run.attempt }))
  }

  const outputs = new Map<string, ToolOutput>()
  for (const entry of journal) {
    if (entry.kind !== 'tool-result') continue
    const payload = entry.payload as JournalPayloads['tool-result']
    outputs.set(`${payload.step}:${payload.toolCallId}`, payload.output)
  }

  const byCallId = new Map(
    current.flatMap((row) => (row.toolCallId ? [[row.toolCallId, row]] : []))
  )
  const earlier = new Set<string>()
  let step = 0
  for (const entry of journal) {
    if (entry.kind !== 'model-response') continue
    const keyed = /^step:(\d+):response$/.exec(entry.key)
    step = keyed ? Number(keyed[1]) : step + 1
    const payload = entry.payload as JournalPayloads['model-response']
    entries.push({
      type: 'step',
      at: iso(entry.createdAt),
      step,
      text: payload.text,
      finishReason: payload.finishReason,
    })
    for (const call of payload.toolCalls) {
      const row = byCallId.get(rowCallId(step, call.toolCallId, earlier)) ?? null
      if (row) placed.add(row)
      entries.push(
        callEntry(row, facts, {
          toolName: call.toolName,
          step,
          attempt: run.attempt,
          args: row?.request?.args ?? call.input,
          output: outputs.get(`${step}:${call.toolCallId}`) ?? null,
          ...(row ? {} : { at: iso(entry.createdAt) }),
        })
      )
    }
    for (const call of payload.toolCalls) earlier.add(call.toolCallId)
  }

  // Waits the journal does not tell yet (a call being handled, a wait opened on the run)
  for (const row of current) {
    if (placed.has(row)) continue
    entries.push(
      callEntry(row, facts, { toolName: row.toolName, step: null, attempt: row.attempt })
    )
  }

  if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') {
    const result = run.result as { text?: unknown } | null
    entries.push({
      type: 'end',
      at: iso(run.finishedAt ?? run.updatedAt),
      status: run.status,
      text: typeof result?.text === 'string' ? result.text : null,
      errorCode: run.errorCode ?? null,
      error: run.error ?? null,
    })
  }

  return {
    run: {
      ...runSummary(run, { hasPending: rows.some((row) => row.status === 'pending') }),
      attempt: run.attempt,
      parentRunId: run.parentRunId ?? null,
      lastError: run.lastError ?? null,
    },
    entries,
  }
}

/**
 * The timeline as someone sees it who decides some of the run's rows but
 * may not read the run (`sight: 'rows'`, docs/design.md §11.6): the calls
 * of `rowIds`, each with its row, args, how it ran and its audit, and the
 * run's summary; not the run's input, the model's steps, what a tool
 * returned or the model read, the other calls, the run's end or a drive's
 * error.
 *
 * @example
 * rowsTimeline(withAudit(runTimeline(run, rows, journal), events), new Set([row.id]))
 */
export function rowsTimeline(timeline: RunTimeline, rowIds: Set<string>): RunTimeline {
  return {
    run: { ...timeline.run, lastError: null },
    entries: timeline.entries.flatMap((entry) =>
      entry.type === 'call' && entry.row && rowIds.has(entry.row.id)
        ? [{ ...entry, result: null, output: null }]
        : []
    ),
  }
}

/**
 * Every person a timeline shows: the run's owner and who settled its rows.
 */
export function timelinePeople(timeline: RunTimeline): (string | null)[] {
  return [
    timeline.run.ownerId,
    ...timeline.entries.map((entry) =>
      entry.type === 'call' ? (entry.row?.settled?.by ?? null) : null
    ),
  ]
}
