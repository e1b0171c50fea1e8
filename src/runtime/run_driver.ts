/*
 * Drives one run forward from whatever its rows and journal say, until it
 * waits for a person, completes, fails or is cancelled. It holds nothing
 * between calls: every decision is read back from the database, and every
 * model response and tool result is checkpointed before it is acted on
 * (SPEC §4.2), so a process killed anywhere leaves a run the next driver —
 * here or on another worker — continues without repeating an executed
 * action or losing an answer. A lease on the run row keeps two processes
 * from driving the same run (SPEC §4.4).
 */

import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import { APICallError, generateText, jsonSchema, RetryError, tool, type ToolSet } from 'ai'
import { E_DELEGATED_CALLER, E_NO_ANSWERER } from '../errors.ts'
import type { EventSink } from '../events.ts'
import { hashArgs } from '../inbox/args_hash.ts'
import type { Inbox, OpenOptions, RecordedCall } from '../inbox/inbox.ts'
import type { WaitRequest } from '../inbox/wait.ts'
import {
  AgentRun,
  FINISHED_RUN_STATUSES,
  isFinished,
  type RunStatus,
} from '../persistence/models/agent_run.ts'
import { JournalRow } from '../persistence/models/journal_row.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { affectedRows, nextSequence, preparedColumns } from '../persistence/prepared_columns.ts'
import {
  ASK_TOOL_NAME,
  askToolDescription,
  askToolInputSchema,
  formatIssuesForModel,
} from '../questions/ask_tool.ts'
import { checkAskBudget } from '../questions/budget.ts'
import { questionSetFingerprint, recallOutcome } from '../questions/memory.ts'
import { quoteUntrusted } from '../questions/model_text.ts'
import type { DecisionOutcome, QuestionOutcome, QuestionSet } from '../questions/types.ts'
import { validateQuestionSet } from '../questions/validate.ts'
import debug from '../debug.ts'
import type { AgentDefinition } from './define_agent.ts'
import type { ToolDefinition } from './define_tool.ts'
import {
  buildMessages,
  renderInput,
  type JournalEntry,
  type JournalPayloads,
  type SavedToolCall,
  type ToolOutput,
} from './transcript.ts'

/**
 * Named points between checkpoints. Tests kill the process at each of
 * them to prove a restart loses nothing and repeats nothing.
 */
export type CheckpointPoint = 'after-response-saved' | 'after-result-saved' | 'before-execute'

export type RunDriverOptions = {
  agents: Map<string, AgentDefinition>
  /** Where the run's rows are written and its waits opened */
  inbox: Inbox
  events?: EventSink
  /** How long a lease lasts without a heartbeat; default 60 s */
  leaseTtl?: number
  /** Identifies this process in `lease_owner` */
  owner?: string
  onCheckpoint?: (point: CheckpointPoint, runId: string) => void | Promise<void>
}

/** The run must wait for a person */
const WAIT = Symbol('wait')
/** The run was cancelled under our feet */
const CANCELLED = Symbol('cancelled')

type CallResult = ToolOutput | typeof WAIT | typeof CANCELLED

const CHILD_NOTE =
  'You were started by another run and cannot ask a person. When a decision needs a person, make the most reasonable assumption, and list the open questions in your final answer so the parent run can ask them.'

/**
 * @example
 * const driver = new RunDriver({ agents })
 * await driver.drive(runId) // 'waiting' | 'completed' | 'failed' | 'cancelled' | 'busy'
 */
export class RunDriver {
  #agents: Map<string, AgentDefinition>
  #inbox: Inbox
  #events?: EventSink
  #leaseTtl: number
  #onCheckpoint?: RunDriverOptions['onCheckpoint']
  /** Runs this process is driving now */
  #active = new Set<string>()
  readonly owner: string

  constructor(options: RunDriverOptions) {
    this.#agents = options.agents
    this.#inbox = options.inbox
    this.#events = options.events
    this.#leaseTtl = options.leaseTtl ?? 60_000
    this.#onCheckpoint = options.onCheckpoint
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  }

  /**
   * Drives a run until it waits, ends, or another driver holds it
   * (`'busy'`). Never throws for what the model or a tool does; database
   * errors propagate.
   */
  async drive(runId: string): Promise<RunStatus | 'busy'> {
    for (;;) {
      const status = await this.#driveOnce(runId)
      /*
       * A resume that arrived while this driver held the run was refused
       * as 'busy' (here or on another process). A waiting run with nothing
       * pending is exactly that case: drive it again rather than drop it.
       */
      if (status !== 'waiting' || (await this.#hasPending(runId))) return status
    }
  }

  async #driveOnce(runId: string): Promise<RunStatus | 'busy'> {
    if (this.#active.has(runId)) return 'busy'
    this.#active.add(runId)
    try {
      if (!(await this.#acquire(runId))) {
        // Refused: a finished run says so; a live one is held by another driver
        const run = await AgentRun.find(runId)
        return run && isFinished(run.status) ? run.status : 'busy'
      }
      const heartbeat = setInterval(() => void this.#extend(runId), this.#leaseTtl / 3)
      heartbeat.unref()
      try {
        return await this.#loop(runId)
      } finally {
        clearInterval(heartbeat)
        await this.#release(runId)
      }
    } finally {
      this.#active.delete(runId)
    }
  }

  async #hasPending(runId: string): Promise<boolean> {
    const pending = await ToolCall.query()
      .where('run_id', runId)
      .where('status', 'pending')
      .select('id')
      .first()
    return pending !== null
  }

  async #loop(runId: string): Promise<RunStatus> {
    for (;;) {
      const run = await AgentRun.findOrFail(runId)
      if (isFinished(run.status)) return run.status
      const agent = this.#agents.get(run.agent)
      if (!agent) {
        return this.#fail(run, 'E_UNKNOWN_AGENT', `No agent named "${run.agent}" is registered`)
      }

      const journal = await this.#journal(run.id)
      const rows = await ToolCall.query()
        .where('run_id', run.id)
        .where('attempt', run.attempt)
        .orderBy('sequence', 'asc')

      if (journal.length === 0) {
        await this.#checkpoint(run, 'input', 'input', { text: renderInput(run.input) })
        continue
      }

      if (agent.intake && !journal.some((entry) => entry.kind === 'intake')) {
        const outcome = await this.#intake(run, agent, rows)
        if (outcome === WAIT) return this.#wait(run)
        if (outcome === CANCELLED) return 'cancelled'
        if (outcome === 'invalid') return 'failed'
        await this.#checkpoint(run, 'intake', 'intake', { text: outcome })
        continue
      }

      const responses = journal.filter((entry) => entry.kind === 'model-response')
      const last = responses.at(-1)
      if (last) {
        const step = responses.length
        const payload = last.payload as JournalPayloads['model-response']
        const done = new Set(
          journal
            .filter((entry) => entry.kind === 'tool-result' && entry.payload.step === step)
            .map((entry) => (entry.payload as JournalPayloads['tool-result']).toolCallId)
        )
        for (const call of payload.toolCalls) {
          if (call.invalid || done.has(call.toolCallId)) continue
          const output = await this.#handleCall(run, agent, call, rows)
          if (output === WAIT) return this.#wait(run)
          if (output === CANCELLED) return 'cancelled'
          await this.#checkpoint(run, `step:${step}:tool:${call.toolCallId}`, 'tool-result', {
            step,
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            output,
          })
          await this.#onCheckpoint?.('after-result-saved', run.id)
        }
        if (payload.toolCalls.length === 0) return this.#complete(run, payload.text)
      }

      if (responses.length >= agent.maxSteps) {
        return this.#fail(
          run,
          'E_MAX_STEPS',
          `The run reached its limit of ${agent.maxSteps} model calls without a final answer`
        )
      }
      const status = await this.#callModel(run, agent, responses.length + 1)
      if (status) return status
    }
  }

  /**
   * One model call; its response is saved before anything acts on it.
   * Returns a final status when the call failed the run, or found it
   * cancelled while its tools ran: a cancelled run is not sent to the model
   * again.
   */
  async #callModel(run: AgentRun, agent: AgentDefinition, step: number) {
    await run.refresh()
    if (isFinished(run.status)) return run.status
    const journal = await this.#journal(run.id)
    const child = run.parentRunId !== null
    const instructions = agent.instructions(run.input)

    let result: Awaited<ReturnType<typeof generateText>>
    try {
      result = await generateText({
        model: agent.model,
        system: child ? `${instructions}\n\n${CHILD_NOTE}` : instructions,
        messages: buildMessages(journal),
        tools: this.#toolset(run, agent),
      })
    } catch (error) {
      const retryable =
        (APICallError.isInstance(error) && error.isRetryable) || RetryError.isInstance(error)
      const message = error instanceof Error ? error.message : String(error)
      return this.#fail(run, retryable ? 'E_PROVIDER_RETRYABLE' : 'E_PROVIDER', message)
    }

    await this.#checkpoint(run, `step:${step}:response`, 'model-response', {
      messages: result.response.messages,
      toolCalls: result.toolCalls.map((call) => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.input,
        invalid: Boolean((call as { invalid?: boolean }).invalid),
      })),
      text: result.text,
      finishReason: result.finishReason,
    })
    await this.#onCheckpoint?.('after-response-saved', run.id)
    return null
  }

  /**
   * The tools the model is offered: the agent's, plus the ask tool only
   * when someone can answer (SPEC §2.1).
   */
  #toolset(run: AgentRun, agent: AgentDefinition): ToolSet {
    const tools: ToolSet = {}
    for (const definition of agent.tools.values()) {
      tools[definition.name] = tool({
        description: definition.description,
        inputSchema: jsonSchema(definition.jsonSchema as any),
      })
    }
    if (canAsk(run, agent)) {
      tools[ASK_TOOL_NAME] = tool({
        description: askToolDescription(agent.limits),
        inputSchema: jsonSchema(askToolInputSchema(agent.limits) as any),
      })
    }
    return tools
  }

  /**
   * The intake row: created before the first model call, answered like
   * any question set. Returns the text for the model, or a wait.
   */
  async #intake(run: AgentRun, agent: AgentDefinition, rows: ToolCall[]) {
    let row = rows.find((candidate) => candidate.kind === 'intake')
    if (!row) {
      const intake = agent.intake!
      const set = typeof intake === 'function' ? await intake(run.input) : intake
      if (!set) return null
      const checked = await validateQuestionSet(set)
      if (!checked.ok) {
        await this.#fail(
          run,
          'E_INVALID_INTAKE',
          `The intake of agent "${agent.name}" is invalid: ${formatIssuesForModel(checked.issues)}`
        )
        return 'invalid' as const
      }
      // A retried run does not ask its intake again (SPEC §2.9)
      const recalled = await this.#recall(run, 'intake', checked.value)
      row = await this.#open(
        run,
        rows,
        { kind: 'intake', set: checked.value },
        {
          ...this.#expiry(agent),
          recalled: recalled ?? undefined,
        }
      )
    }
    if (row.status === 'pending') return WAIT
    if (row.status === 'cancelled') return CANCELLED
    const outcome = row.outcome as QuestionOutcome
    return `Intake form, answered before you started:\n${outcome.text}`
  }

  async #handleCall(
    run: AgentRun,
    agent: AgentDefinition,
    call: SavedToolCall,
    rows: ToolCall[]
  ): Promise<CallResult> {
    const row = rows.find((candidate) => candidate.toolCallId === call.toolCallId)
    if (call.toolName === ASK_TOOL_NAME) return this.#ask(run, agent, call, rows, row)

    const definition = agent.tools.get(call.toolName)
    if (!definition) {
      return errorOutput(`There is no tool named "${call.toolName}". Use one of the tools offered.`)
    }
    if (!row) {
      const checked = await definition.validate(call.input)
      if (!checked.ok) {
        return errorOutput(
          `Invalid input for tool "${definition.name}":\n${checked.issues
            .map((issue) => `${issue.path}: ${issue.message}`)
            .join('\n')}\nNothing was run. Fix the input and call the tool again.`
        )
      }
      const approval = await definition.needsApproval(checked.value)
      const recorded = {
        kind: definition.kind,
        toolName: definition.name,
        toolCallId: call.toolCallId,
        args: checked.value,
        summary: definition.summarize(checked.value),
      } satisfies RecordedCall
      if (approval) {
        await this.#open(run, rows, recorded, this.#expiry(agent))
        return WAIT
      }
      const created = await this.#record(run, rows, recorded)
      return this.#executeOnce(run, definition, created, checked.value, null)
    }

    if (row.status === 'pending') return WAIT
    if (row.status === 'cancelled') return CANCELLED
    if (row.status === 'auto')
      return this.#executeOnce(run, definition, row, row.request.args, null)

    const decision = row.outcome as DecisionOutcome
    if (row.status !== 'approved') return { type: 'text', value: decision.text }
    if (hashArgs(row.request.args) !== row.argsHash) {
      return errorOutput(
        'The approved args no longer match what the person was shown, so the action was not run.'
      )
    }
    const edited = decision.editedInput !== undefined
    const args = edited ? decision.editedInput : row.request.args
    return this.#executeOnce(run, definition, row, args, decision.text)
  }

  /**
   * The ask tool: budget, validation, answer memory, then a pending row.
   */
  async #ask(
    run: AgentRun,
    agent: AgentDefinition,
    call: SavedToolCall,
    rows: ToolCall[],
    row: ToolCall | undefined
  ): Promise<CallResult> {
    if (row) {
      if (row.status === 'pending') return WAIT
      if (row.status === 'cancelled') return CANCELLED
      return { type: 'text', value: (row.outcome as QuestionOutcome).text }
    }
    if (!canAsk(run, agent)) {
      return errorOutput(
        run.parentRunId ? new E_DELEGATED_CALLER().message : new E_NO_ANSWERER().message
      )
    }
    const budget = checkAskBudget(run.askCount, agent.limits)
    if (!budget.allowed) return errorOutput(budget.message)

    const checked = await validateQuestionSet(call.input, agent.limits)
    if (!checked.ok) return errorOutput(formatIssuesForModel(checked.issues))

    const recalled = await this.#recall(run, 'ask', checked.value)
    const ask = {
      kind: 'ask',
      set: checked.value,
      toolName: ASK_TOOL_NAME,
      toolCallId: call.toolCallId,
    } satisfies WaitRequest
    if (recalled) {
      debug('run %s: ask %s answered from memory', run.id, call.toolCallId)
      await this.#open(run, rows, ask, { recalled })
      return { type: 'text', value: recalled.text }
    }
    await this.#open(run, rows, ask, { ...this.#expiry(agent), spendsBudget: true })
    run.askCount += 1
    return WAIT
  }

  /**
   * Answer memory (SPEC §2.9): the outcome of the same question set settled
   * earlier in this run, any attempt, or null.
   */
  async #recall(run: AgentRun, kind: 'ask' | 'intake', set: QuestionSet) {
    const fingerprint = questionSetFingerprint(set)
    const remembered = await ToolCall.query()
      .where('run_id', run.id)
      .where('fingerprint', fingerprint)
      .where('kind', kind)
      .whereIn('status', ['answered', 'expired'])
      .orderBy('sequence', 'asc')
    return recallOutcome(
      set,
      remembered.map((earlier) => ({ fingerprint, outcome: earlier.outcome as QuestionOutcome }))
    )
  }

  /**
   * Runs a tool at most once per row. The row's `execution` column is
   * claimed with a conditional update before the tool runs; a row found
   * `running` by a later driver belongs to a dead process and is marked
   * `interrupted`, never run again.
   */
  async #executeOnce(
    run: AgentRun,
    definition: ToolDefinition,
    row: ToolCall,
    args: unknown,
    approvalText: string | null
  ): Promise<ToolOutput> {
    const prefix = approvalText ? `${approvalText}\n` : ''
    if (row.execution === 'running') {
      await ToolCall.query()
        .where('id', row.id)
        .where('execution', 'running')
        .update({ execution: 'interrupted' })
      row.execution = 'interrupted'
    }
    switch (row.execution) {
      case 'succeeded':
        return { type: 'text', value: `${prefix}${resultText(row.result)}` }
      case 'failed':
        return errorOutput(`${prefix}${resultText(row.result)}`)
      case 'interrupted':
        return errorOutput(
          `${prefix}The "${definition.name}" call was interrupted by a process restart while it ran. It may or may not have taken effect, and it was not run again. Check its effect before calling it again.`
        )
    }

    const claimed = await ToolCall.query()
      .where('id', row.id)
      .whereNull('execution')
      .update({ execution: 'running' })
    if (affectedRows(claimed) !== 1) {
      const fresh = await ToolCall.findOrFail(row.id)
      return this.#executeOnce(run, definition, fresh, args, approvalText)
    }
    await this.#onCheckpoint?.('before-execute', run.id)

    const context = {
      runId: run.id,
      ownerId: run.ownerId,
      toolCallId: row.toolCallId ?? row.id,
      argsEdited: args !== row.request.args,
    }
    let execution: 'succeeded' | 'failed'
    let result: unknown
    try {
      result = { value: (await definition.handle(args, context)) ?? null }
      execution = 'succeeded'
    } catch (error) {
      result = { error: error instanceof Error ? error.message : String(error) }
      execution = 'failed'
    }
    await ToolCall.query()
      .where('id', row.id)
      .update(preparedColumns(row, { execution, result, updatedAt: DateTime.now() }))
    debug('run %s: %s %s', run.id, definition.name, execution)
    const text = `${prefix}${resultText(result)}`
    return execution === 'succeeded' ? { type: 'text', value: text } : errorOutput(text)
  }

  #expiry(agent: AgentDefinition) {
    return {
      onExpiry: agent.expiry.onExpiry,
      expiresAt: agent.expiry.ttl ? DateTime.now().plus({ milliseconds: agent.expiry.ttl }) : null,
    }
  }

  /**
   * Opens a wait of the run through the inbox and keeps the row in `rows`.
   */
  async #open(run: AgentRun, rows: ToolCall[], wait: WaitRequest, options: OpenOptions) {
    const row = await this.#inbox.open(run, wait, options)
    rows.push(row)
    return row
  }

  async #record(run: AgentRun, rows: ToolCall[], call: RecordedCall) {
    const row = await this.#inbox.record(run, call)
    rows.push(row)
    return row
  }

  async #journal(runId: string): Promise<JournalEntry[]> {
    const entries = await JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
    return entries.map((entry) => ({ kind: entry.kind, payload: entry.payload }) as JournalEntry)
  }

  async #checkpoint<Kind extends keyof JournalPayloads>(
    run: AgentRun,
    key: string,
    kind: Kind,
    payload: JournalPayloads[Kind]
  ) {
    await JournalRow.create({
      runId: run.id,
      sequence: await nextSequence(JournalRow, run.id),
      key,
      kind,
      payload,
    })
  }

  /**
   * Moves the run to a new status, unless it was cancelled meanwhile.
   */
  async #transition(run: AgentRun, status: RunStatus, changes: Partial<AgentRun> = {}) {
    const affected = await AgentRun.query()
      .where('id', run.id)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .update(preparedColumns(run, { status, ...changes, updatedAt: DateTime.now() }))
    if (affectedRows(affected) !== 1) {
      const current = await AgentRun.findOrFail(run.id)
      return current.status
    }
    Object.assign(run, { status, ...changes })
    return status
  }

  async #wait(run: AgentRun): Promise<RunStatus> {
    const status = await this.#transition(run, 'waiting')
    if (status === 'waiting') await this.#events?.emit('agents:run:waiting', { run })
    return status
  }

  async #complete(run: AgentRun, text: string): Promise<RunStatus> {
    const status = await this.#transition(run, 'completed', {
      result: { text },
      finishedAt: DateTime.now(),
    })
    if (status === 'completed') await this.#events?.emit('agents:run:completed', { run })
    return status
  }

  async #fail(run: AgentRun, code: string, message: string): Promise<RunStatus> {
    debug('run %s failed: %s %s', run.id, code, message)
    const status = await this.#transition(run, 'failed', {
      errorCode: code,
      error: message,
      finishedAt: DateTime.now(),
    })
    if (status === 'failed') await this.#events?.emit('agents:run:failed', { run })
    return status
  }

  /**
   * Takes the lease when nobody holds a live one. The status moves to
   * `running` so a dead driver's run is found at start-up.
   */
  async #acquire(runId: string): Promise<boolean> {
    const now = DateTime.now()
    const probe = new AgentRun()
    const affected = await AgentRun.query()
      .where('id', runId)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .where((free) =>
        free
          .whereNull('lease_owner')
          .orWhere(
            'lease_expires_at',
            '<',
            preparedColumns(probe, { leaseExpiresAt: now }).lease_expires_at
          )
      )
      .update(
        preparedColumns(probe, {
          status: 'running',
          leaseOwner: this.owner,
          leaseExpiresAt: now.plus({ milliseconds: this.#leaseTtl }),
          updatedAt: now,
        })
      )
    const won = affectedRows(affected) === 1
    debug('run %s: lease %s by %s', runId, won ? 'taken' : 'refused', this.owner)
    return won
  }

  async #extend(runId: string) {
    const probe = new AgentRun()
    await AgentRun.query()
      .where('id', runId)
      .where('lease_owner', this.owner)
      .update(
        preparedColumns(probe, {
          leaseExpiresAt: DateTime.now().plus({ milliseconds: this.#leaseTtl }),
        })
      )
      .catch((error) => debug('run %s: heartbeat failed %O', runId, error))
  }

  async #release(runId: string) {
    await AgentRun.query()
      .where('id', runId)
      .where('lease_owner', this.owner)
      .update({ lease_owner: null, lease_expires_at: null })
  }
}

/**
 * Whether someone can answer this run's questions (SPEC §2.1, §2.10).
 */
export function canAsk(run: AgentRun, agent: AgentDefinition): boolean {
  return agent.askEnabled && run.ownerId !== null && run.parentRunId === null
}

function errorOutput(value: string): ToolOutput {
  return { type: 'error-text', value }
}

/**
 * A tool's stored result as the model reads it. Results are data from the
 * tool, and tools may echo outside text, so error text is quoted.
 */
function resultText(result: unknown): string {
  const stored = (result ?? {}) as { value?: unknown; error?: string }
  if (stored.error !== undefined) return `The tool failed:\n${quoteUntrusted(stored.error)}`
  return typeof stored.value === 'string' ? stored.value : JSON.stringify(stored.value ?? null)
}
