/*
 * Drives one run forward from whatever its rows and journal say, until it waits for a person,
 * completes, fails or is cancelled. Between drives it holds nothing: a drive takes the lease, reads
 * the run once (run_memory.ts) and from then on appends to what it read. Every model response and
 * tool result is checkpointed before it is acted on (docs/design.md §8.2), so a process killed
 * anywhere leaves a run the next driver — here or on another worker — continues without repeating
 * an executed action or losing an answer. A lease on the run row keeps two processes from driving
 * the same run, and every checkpoint is fenced by it (docs/design.md §9).
 *
 * A step whose calls start with read tools is one checkpoint: the reads run as soon as the model
 * answers, and the response, their rows and their results commit together. Reads have no effect to
 * repeat, so a process killed before that commit just asks the model again.
 *
 * This file is the loop and the step (its model call: model_call.ts). The lease is in lease.ts, the
 * memory and checkpoints in run_memory.ts, status changes in run_state.ts, and each kind of tool
 * call in calls/. A chat's turn is first sent the turns before it (transcripts.ts, design §12).
 */

import { loadMcpTools } from './mcp_tools.ts'
import { APICallError, RetryError } from 'ai'
import type { EventSink } from '../events.ts'
import type { Inbox } from '../inbox/inbox.ts'
import type { ApprovalsConfig } from '../governance/policy.ts'
import type { DecisionSigner } from '../inbox/decision_signature.ts'
import { AgentRun, isFinished, type RunStatus } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { RunMemory, type NewEntry } from './run_memory.ts'
import { runReads } from './calls/reads.ts'
import { ASK_TOOL_NAME } from '../questions/ask_tool.ts'
import { handleAppTool } from './calls/app_tool.ts'
import { handleAsk } from './calls/ask.ts'
import type { OpenClaims } from './calls/execute_once.ts'
import { CANCELLED, WAIT, type CallContext } from './calls/context.ts'
import { handleIntake, intakeDue } from './calls/intake.ts'
import { toolset } from './calls/toolset.ts'
import type { AgentDefinition } from './define_agent.ts'
import { rowCallId, type OnCheckpoint } from './journal.ts'
import { renderInput } from './journal_messages.ts'
import { TranscriptCache } from './transcripts.ts'
import { DEFAULT_LEASE_TTL, Lease } from './lease.ts'
import { Outbox } from './effects/outbox.ts'
import type { EffectRetry } from './effects/keys.ts'
import { RUN_FAILURES } from '../errors.ts'
import { RunState } from './run_state.ts'
import type { ExecutorLogger } from './executor.ts'
import { recordStep } from '../telemetry/metrics.ts'
import * as spans from '../telemetry/run_spans.ts'
import { callModel, stepTeller, type ModelAnswer } from './model_call.ts'

export type RunDriverOptions = {
  agents: Map<string, AgentDefinition>
  /** Where the run's rows are written and its waits opened */
  inbox: Inbox
  events?: EventSink
  /** How long a lease lasts without a heartbeat; default 60 s */
  leaseTtl?: number
  /** Identifies this process in `lease_owner` */
  owner?: string
  onCheckpoint?: OnCheckpoint
  /** Verifies approvals before their action runs */
  signer?: DecisionSigner
  /** How effects that failed are tried again (docs/design.md §5.5) */
  effectRetry?: Partial<EffectRetry>
  /** The app-wide policy and role resolver (docs/design.md §11) */
  approvals?: ApprovalsConfig
  /** The app's logger: runs that fail are told there (run_state.ts) */
  logger?: ExecutorLogger
}

const CHILD_NOTE =
  'You were started by another run and cannot ask a person. When a decision needs a person, make the most reasonable assumption, and list the open questions in your final answer so the parent run can ask them.'

/**
 * @example
 * const driver = new RunDriver({ agents, inbox })
 * await driver.drive(runId) // 'waiting' | 'completed' | 'failed' | 'cancelled' | 'busy'
 */
export class RunDriver {
  #agents: Map<string, AgentDefinition>
  #inbox: Inbox
  #state: RunState
  #lease: Lease
  #events?: EventSink
  /** What every call's context passes on: checkpoints, the signer, the policies */
  #shared: Pick<RunDriverOptions, 'onCheckpoint' | 'signer' | 'approvals'>
  /** Runs this process is driving now */
  #active = new Set<string>()
  #transcripts = new TranscriptCache()
  /** Executions claimed whose outcome a lost connection kept from the database */
  #claims: OpenClaims = new Map()
  readonly owner: string
  /** Delivers the effects of transactional actions, here and in recovery */
  readonly outbox: Outbox

  constructor(options: RunDriverOptions) {
    this.#agents = options.agents
    this.#inbox = options.inbox
    this.#lease = new Lease({ ttl: options.leaseTtl, owner: options.owner })
    this.#state = new RunState(this.#lease.owner, options.events, options.logger)
    this.#events = options.events
    const { onCheckpoint, signer, approvals } = options
    this.#shared = { onCheckpoint, signer, approvals }
    this.owner = this.#lease.owner
    this.outbox = new Outbox({
      agents: options.agents,
      owner: this.owner,
      claimTtl: options.leaseTtl ?? DEFAULT_LEASE_TTL,
      retry: options.effectRetry,
    })
  }

  /**
   * Drives a run until it waits, ends, or another driver holds it
   * (`'busy'`). Never throws for what the model or a tool does; database
   * errors propagate, noted on the run (`last_error`) where the database
   * still takes it.
   */
  async drive(runId: string): Promise<RunStatus | 'busy'> {
    try {
      return await spans.driveSpan(runId, () => this.#drive(runId))
    } catch (error) {
      // The executor logs it; the run row shows it until the run moves on
      await this.#state.noteError(runId, error)
      throw error
    }
  }

  async #drive(runId: string): Promise<RunStatus | 'busy'> {
    for (;;) {
      const status = await this.#driveOnce(runId)
      // A resume refused as 'busy' while this driver held the run (here or on
      // another process) leaves it waiting with nothing pending: drive it again
      if (status !== 'waiting' || (await this.#hasPending(runId))) return status
    }
  }

  async #driveOnce(runId: string): Promise<RunStatus | 'busy'> {
    if (this.#active.has(runId)) return 'busy'
    this.#active.add(runId)
    try {
      const hook = this.#shared.onCheckpoint
      const beforeCommit = hook && (() => hook('before-commit', runId))
      const memory = await RunMemory.take(runId, this.#lease, beforeCommit)
      if (!memory) {
        // Refused: a finished run says so; a live one is held by another driver
        const run = await AgentRun.find(runId)
        return run && isFinished(run.status) ? run.status : 'busy'
      }
      return await this.#lease.hold(
        runId,
        () => this.#loop(memory),
        // RunState's last change gave the lease up with it
        () => memory.run.leaseOwner === null
      )
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

  /**
   * Appends one entry behind the lease's fence; a refusal becomes the
   * status the loop returns.
   */
  async #append(memory: RunMemory, entry: NewEntry): Promise<RunStatus | 'busy' | null> {
    if (await memory.checkpoint([entry])) return null
    return this.#state.stopped(memory.run)
  }

  async #loop(memory: RunMemory): Promise<RunStatus | 'busy'> {
    const { run, journal, rows } = memory
    if (isFinished(run.status)) return run.status
    memory.conversation.earlier = await this.#transcripts.before(run)
    const agent = this.#agents.get(run.agent)
    // Renamed or removed by a deploy since the run started: it ends, its rows closed
    if (!agent) return this.#state.failUnknownAgent(run)
    spans.describeDrive(run)
    try {
      await loadMcpTools(agent)
    } catch (error) {
      return this.#state.fail(run, RUN_FAILURES.mcp, (error as Error).message)
    }
    const context: CallContext = {
      run,
      agent,
      rows,
      memory,
      inbox: this.#inbox,
      state: this.#state,
      ...this.#shared,
      owner: this.owner,
      claims: this.#claims,
      outbox: this.outbox,
      handlersRun: 0,
    }

    for (;;) {
      const intake = intakeDue(agent, memory)
      if (journal.length === 0) {
        const input: NewEntry = {
          key: 'input',
          kind: 'input',
          payload: { text: renderInput(run.input) },
        }
        // Derived from the run row, the input needs no commit of its own: it goes with the first response
        if (!intake) {
          memory.stage(input)
          continue
        }
        const refused = await this.#append(memory, input)
        if (refused) return refused
        continue
      }

      if (intake) {
        const outcome = await handleIntake(context)
        if (outcome === WAIT) return this.#state.wait(run)
        if (outcome === CANCELLED) return 'cancelled'
        if (outcome === 'invalid') return run.status
        const refused = await this.#append(memory, {
          key: 'intake',
          kind: 'intake',
          payload: { text: outcome },
        })
        if (refused) return refused
        continue
      }

      const steps = memory.conversation.steps
      const last = memory.conversation.lastStep
      if (last) {
        const step = steps
        const { response: payload, done } = last
        const earlier = memory.conversation.callIdsBefore(step)
        for (const call of payload.toolCalls) {
          /*
           * A call whose id an earlier call of the step already used gets
           * that call's result (the model's ids should be unique; a repeat
           * must not wedge the run on the journal's unique key).
           */
          if (call.invalid || done.has(call.toolCallId)) continue
          const stored = rowCallId(step, call.toolCallId, earlier)
          const row = rows.find((candidate) => candidate.toolCallId === stored)
          spans.linkWoken(row)
          const handlers = context.handlersRun
          const output =
            call.toolName === ASK_TOOL_NAME
              ? await handleAsk(context, call, stored, row)
              : await handleAppTool(context, call, stored, row)
          if (output === WAIT) return this.#state.wait(run)
          if (output === CANCELLED) return 'cancelled'
          // Journaled with the next response, or at once after a handler ran (run_memory.ts)
          const ran = context.handlersRun !== handlers
          if (!(await memory.result(step, call, output, ran))) return this.#state.stopped(run)
          await this.#shared.onCheckpoint?.('after-result', run.id)
        }
        if (payload.toolCalls.length === 0) return this.#state.complete(run, payload.text)
      }

      if (steps >= agent.maxSteps) {
        return this.#state.fail(
          run,
          RUN_FAILURES.maxSteps,
          `The run reached its limit of ${agent.maxSteps} model calls without a final answer`
        )
      }
      const status = await spans.stepSpan(context, steps + 1, (n) => this.#callModel(context, n))
      if (status) return status
    }
  }

  /**
   * One model call. Its response is saved before anything acts on it,
   * together with the rows and results of the read tools it starts with
   * (calls/reads.ts). Returns a final status when the call failed the run,
   * or when the checkpoint was refused: a run cancelled while its tools ran
   * (or taken by another driver) gets nothing more from this one.
   */
  async #callModel(context: CallContext, step: number) {
    const { run, agent, memory } = context
    const child = run.parentRunId !== null
    const instructions = agent.instructions(run.input)
    const started = performance.now()

    // A streaming agent's watchers see the step as it arrives (model_call.ts)
    const teller = agent.stream ? stepTeller(this.#events, run, step) : null
    let result: ModelAnswer
    try {
      const messages = memory.conversation.messages()
      const tools = toolset(run, agent)
      await this.#shared.onCheckpoint?.('before-model-call', run.id)
      const system = child ? `${instructions}\n\n${CHILD_NOTE}` : instructions
      const telemetry = spans.modelTelemetry(agent.name)
      result = await callModel({ agent, system, messages, tools, telemetry }, teller?.delta)
    } catch (error) {
      const retryable =
        (APICallError.isInstance(error) && error.isRetryable) || RetryError.isInstance(error)
      const message = error instanceof Error ? error.message : String(error)
      return this.#state.fail(
        run,
        retryable ? RUN_FAILURES.providerRetryable : RUN_FAILURES.provider,
        message
      )
    }
    await this.#shared.onCheckpoint?.('after-model-call', run.id)
    spans.noteModelResult(result)

    const toolCalls = result.toolCalls.map((call) => ({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      invalid: Boolean((call as { invalid?: boolean }).invalid),
    }))
    const reads = await runReads(context, step, toolCalls)
    const entries: NewEntry[] = [
      {
        key: `step:${step}:response`,
        kind: 'model-response',
        payload: {
          messages: result.response.messages,
          toolCalls,
          text: result.text,
          finishReason: result.finishReason,
        },
      },
      ...reads.entries,
    ]
    if (!(await memory.checkpoint(entries, reads.rows))) {
      const status = await this.#state.stopped(run)
      // Cancelled while its reads ran: they did run, so the audit says so
      if (status !== 'busy' && reads.rows) {
        await memory.checkpoint(entries, reads.rows, false)
      }
      return status
    }
    teller?.committed()
    await this.#shared.onCheckpoint?.('after-response-saved', run.id)
    recordStep(run.agent, agent.model, (performance.now() - started) / 1000, result.usage)
    return null
  }
}
