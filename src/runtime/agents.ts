/*
 * The runtime's public face: start, inspect, cancel and retry runs, recover
 * runs a dead process left behind, sweep expired rows. It owns the inbox so
 * that every settlement resumes its run through the executor.
 */

import type { DateTime } from 'luxon'
import { E_NO_CONVERSATIONS, E_NOT_FOUND } from '../errors.ts'
import type { EventSink } from '../events.ts'
import { Inbox } from '../inbox/inbox.ts'
import type { ApprovalsConfig } from '../governance/policy.ts'
import type { ExpiryBatch } from '../inbox/expiry.ts'
import { AgentRun, isFinished } from '../persistence/models/agent_run.ts'
import { createPrepared } from '../persistence/prepared_insert.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { Actor } from '../inbox/audit_log.ts'
import type { QuestionLimits } from '../questions/types.ts'
import debug from '../debug.ts'
import type { AgentDefinition } from './define_agent.ts'
import { strandedRuns, waitingWithNothingPending } from './stranded.ts'
import { InlineExecutor, type ExecutorLogger, type RunExecutor } from './executor.ts'
import { runRecord } from './journal.ts'
import { cancelRun, findRun, retryRun } from './run_actions.ts'
import { editedArgsValidator, inputSchemaOf } from './edited_args.ts'
import { listRuns, type RunQuery } from './run_list.ts'
import { RunDriver, type RunDriverOptions } from './run_driver.ts'
import { closeMcpServers } from './mcp_tools.ts'
import { unknownAgentCheck } from './unknown_agent.ts'
import { approvalCheck } from './approval_check.ts'
import { beat } from '../health/heartbeat.ts'
import { digestOf, runtimeDefinitions } from './definitions.ts'
import { hasConversations, hasDefinitionDigests } from '../persistence/schema_features.ts'
import { startTurn, type ChatMessage } from './conversations.ts'
import { recordRecovered } from '../telemetry/metrics.ts'
import { sweepSpan } from '../telemetry/inbox_spans.ts'

/**
 * The driver's options (run_driver.ts), but its agents and inbox, which
 * are built from these; `signer` also signs approvals when settled.
 */
export type AgentsOptions = Omit<RunDriverOptions, 'agents' | 'inbox'> & {
  agents: AgentDefinition[]
  limits?: Partial<QuestionLimits>
  /** Build another executor (a queue) around the driver; inline by default */
  executor?: (driver: RunDriver, context: { logger?: ExecutorLogger }) => RunExecutor
  /** The app's logger: drives that fail, and runs that fail, are reported here */
  logger?: ExecutorLogger
  /** Notifications are configured: rows and ladder steps write notices (src/notify/) */
  notify?: boolean
}

type SweepOptions = { resume?: boolean; batchSize?: number; now?: DateTime }

export type StartOptions = {
  input: unknown
  /** Who may answer the run's questions; null for nobody (no ask tool) */
  owner: string | null
  /** Set when another run starts this one: it cannot ask (docs/design.md §4.1) */
  parentRunId?: string
}

/**
 * @example
 * const run = await agents.start('deployer', { input: { service: 'api' }, owner: 'user:1' })
 * await agents.cancel(run.id)
 */
export class Agents {
  readonly definitions: Map<string, AgentDefinition>
  readonly driver: RunDriver
  readonly executor: RunExecutor
  readonly inbox: Inbox
  /** The app-wide policy and role resolver (docs/design.md §11) */
  readonly approvals: ApprovalsConfig
  #events?: EventSink
  /** Resumes handed off by settles, not yet given to the executor */
  #handoffs = new Set<Promise<unknown>>()

  constructor(options: AgentsOptions) {
    this.definitions = runtimeDefinitions(options.agents, options.limits)
    this.#events = options.events
    this.approvals = options.approvals ?? {}
    this.inbox = new Inbox({
      limits: options.limits,
      signer: options.signer,
      events: options.events,
      notify: options.notify,
      validateEditedInput: editedArgsValidator(this.definitions),
      checkRun: unknownAgentCheck(this.definitions, () => this.driver.owner, options),
      checkApproval: approvalCheck(this.definitions, this.approvals, (row, reason) =>
        this.inbox.settle(row, { approved: false, reason }, { by: null, via: 'policy' })
      ),
      onSettled: (rows) => this.#settled(rows),
      onExpired: async (batch) => {
        await this.#expired(batch, true)
      },
    })
    this.driver = new RunDriver({ ...options, agents: this.definitions, inbox: this.inbox })
    const { executor, logger } = options
    this.executor =
      executor?.(this.driver, { logger }) ?? new InlineExecutor(this.driver, { logger })
  }

  /**
   * Starts a run of a named agent and schedules it. Returns the queued run.
   */
  async start(name: string, options: StartOptions): Promise<AgentRun> {
    const agent = this.definitions.get(name)
    if (!agent) throw new E_NOT_FOUND([`No agent named "${name}"`])
    const run = await createPrepared(AgentRun, {
      agent: name,
      ...((await hasDefinitionDigests()) && { definitionDigest: digestOf(agent) }),
      status: 'queued',
      input: options.input ?? null,
      ownerId: options.owner,
      parentRunId: options.parentRunId ?? null,
    })
    await this.#events?.emit('agents:run:started', { run })
    await this.executor.resume(run.id, 'start')
    return run
  }

  /**
   * Sends a person's message to a conversation (a chat, docs/design.md §12):
   * starts its next turn, a run of the conversation's agent whose model is
   * sent the earlier turns first, and schedules it. The first message
   * creates the conversation, with `agent`; later ones keep its agent.
   * Throws E_TURN_LIVE (409) while the last turn has not finished, and
   * E_NOT_FOUND for another person's conversation or an unknown agent.
   *
   * @example
   * const run = await agents.converse(chatId, { agent: 'helper', owner: 'user:1', text: 'Hi' })
   */
  async converse(conversationId: string, message: ChatMessage): Promise<AgentRun> {
    if (!(await hasConversations())) throw new E_NO_CONVERSATIONS()
    const { run } = await startTurn({
      ...message,
      conversationId,
      describe: async (name) => {
        const agent = this.definitions.get(name)
        if (!agent) throw new E_NOT_FOUND([`No agent named "${name}"`])
        return (await hasDefinitionDigests()) ? { definitionDigest: digestOf(agent) } : {}
      },
    })
    await this.#events?.emit('agents:run:started', { run })
    await this.executor.resume(run.id, 'start')
    return run
  }

  /** A run by id, or null */
  run(id: string): Promise<AgentRun | null> {
    return findRun(id)
  }

  /** One page of finished runs, newest first. See `RunQuery` */
  runs(query: RunQuery = {}) {
    return listRuns(query)
  }

  /**
   * The JSON Schema of the args a row's tool takes, for a form that edits
   * them; null when the tool is not (or no longer) defined.
   */
  inputSchema(agent: string | null | undefined, toolName: string) {
    return inputSchemaOf(this.definitions, agent, toolName)
  }

  /**
   * A run record: the run, its rows in order, its journal and its effects (journal.ts `runRecord`).
   */
  async runRecord(id: string) {
    const run = await findRun(id)
    if (!run) throw new E_NOT_FOUND([`No run ${id}`])
    return { run, ...(await runRecord(id)) }
  }

  /**
   * Cancels a run: its pending rows become `cancelled`, so late replies get
   * E_CANCELLED. Finished runs are left as they are (./run_actions.ts).
   * With `actor`, the cancel is audited.
   */
  async cancel(id: string, actor?: Actor): Promise<AgentRun> {
    const { run, cancelled } = await cancelRun(id, actor)
    if (cancelled) await this.#events?.emit('agents:run:cancelled', { run })
    return run
  }

  /**
   * Replays a failed run from its input as a new attempt (./run_actions.ts).
   * Throws `E_NOT_RETRYABLE` (409) for a run that is not `failed`. With
   * `actor`, the retry is audited.
   */
  async retry(id: string, actor?: Actor): Promise<AgentRun> {
    const run = await retryRun(id, actor)
    await this.executor.resume(run.id, 'start')
    return run
  }

  /**
   * Resumes runs a dead process left behind (`queued`/`running` with a lapsed lease, or one this
   * process holds but no longer drives; `waiting` with nothing pending: settled while no process
   * could resume them) and delivers due effects (docs/design.md §5.5). Returns how many runs.
   */
  async recover(): Promise<number> {
    const runs = await strandedRuns(this.driver.owner)
    recordRecovered(runs, this.driver.owner)
    for (const run of runs) await this.executor.resume(run.id, 'recover')
    debug('recovered %d runs', runs.length)
    this.#handOff(() => this.driver.outbox.deliverDue())
    return runs.length
  }

  /**
   * Settles expired rows by their expiry rule in set-based batches, a run of the
   * `cancel` rule cancelled in the same transaction as its row, and emits
   * `agents:row:settled` per row and `agents:run:cancelled` per run after
   * each batch commits. Returns how many rows expired.
   *
   * With `resume` (the default, as the web server's sweep runs it) the runs
   * of the settled rows are handed to the executor, and so are waiting runs
   * with nothing pending (settled by a process that did not resume them,
   * such as `node ace agents:sweep`). `resume: false` schedules nothing.
   *
   * Ladder steps due run first. `now` moves the clock (tests).
   *
   * @example
   * await agents.sweep({ resume: false }) // settle only; the web server resumes the runs
   */
  sweep(options: SweepOptions = {}): Promise<number> {
    return sweepSpan(() => this.#sweep(options))
  }

  async #sweep(options: SweepOptions): Promise<number> {
    const { resume = true, now, batchSize } = options
    const resumed = new Set<string>()
    // Escalation steps first (docs/design.md §7.7): a row due for both is reminded, then expired
    await this.inbox.runLadders({ now, resolveRole: this.approvals.resolveRole })
    const expired = await this.inbox.sweepExpired({
      now,
      batchSize,
      onBatch: async (batch) => {
        for (const runId of await this.#expired(batch, resume)) resumed.add(runId)
      },
    })
    if (resume) await this.#resumeSettledRuns(resumed)
    // What the sweep's health check reads (src/health/)
    await beat('sweep', this.driver.owner)
    return expired.length
  }

  /**
   * Hands to the executor the waiting runs with nothing pending left,
   * except those just resumed: their rows were settled somewhere that did
   * not resume them (the same runs `recover` picks up).
   */
  async #resumeSettledRuns(skip: Set<string>) {
    const runs = await waitingWithNothingPending(AgentRun.query()).select('id', 'status')
    const left = runs.filter((run) => !skip.has(run.id))
    recordRecovered(left, this.driver.owner)
    for (const run of left) await this.executor.resume(run.id, 'recover')
    if (left.length > 0) debug('sweep resumed %d settled runs', left.length)
  }

  /** Waits for the drives in flight, then closes the agents' MCP connections */
  async close() {
    await this.idle()
    await closeMcpServers(this.definitions.values())
  }

  /** Resolves once every scheduled drive has finished */
  async idle() {
    let busy = true
    while (busy) {
      await Promise.all([...this.#handoffs])
      await this.executor.idle()
      // Auto-answers (tests) settle the rows drives opened, which hands resumes off
      busy = (await this.inbox.settling()) || this.#handoffs.size > 0
    }
  }

  /**
   * Work after a settle or a recovery pass, on the next tick (a reply's
   * response goes out first); `idle()` waits for it, a failure is logged.
   */
  #handOff(work: () => Promise<unknown>) {
    const task: Promise<unknown> = new Promise((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error) => debug('work after a settle or recovery failed %O', error))
      .finally(() => this.#handoffs.delete(task))
    this.#handoffs.add(task)
  }

  /**
   * Rows settled by their expiry rule, by a sweep's batch or a late
   * reply, once committed: every row is announced, every run the `cancel`
   * rule cancelled too, and with `resume` the other runs (unless
   * finished) are resumed through the executor. Returns the runs resumed.
   */
  async #expired(batch: ExpiryBatch, resume: boolean): Promise<string[]> {
    for (const row of batch.expired) await this.#events?.emit('agents:row:settled', { row })
    const cancelled = new Set(batch.cancelledRunIds)
    if (cancelled.size > 0 && this.#events) {
      for (const run of await AgentRun.query().whereIn('id', [...cancelled])) {
        await this.#events?.emit('agents:run:cancelled', { run })
      }
    }
    if (!resume) return []
    const runIds = new Set(
      batch.expired.flatMap((row) =>
        row.runId && row.onExpiry !== 'cancel' && !cancelled.has(row.runId) ? [row.runId] : []
      )
    )
    if (runIds.size === 0) return []
    const runs = await AgentRun.query().whereIn('id', [...runIds])
    const resumed: string[] = []
    for (const run of runs) {
      if (isFinished(run.status)) continue
      await this.#events?.emit('agents:run:resumed', { run })
      await this.executor.resume(run.id, 'settle')
      resumed.push(run.id)
    }
    return resumed
  }

  /**
   * Settled rows resume their runs, each run once however many of its rows
   * one call settled; a wait opened outside the runtime has no run, and its
   * opener reads the outcome from the row.
   */
  async #settled(rows: ToolCall[]) {
    for (const row of rows) await this.#events?.emit('agents:row:settled', { row })
    const runIds = new Set(rows.flatMap((row) => (row.runId ? [row.runId] : [])))
    for (const runId of runIds) {
      this.#handOff(async () => {
        // The run is read only for a listener (an emitter that cannot say is assumed to have one)
        const events = this.#events
        const listening = events && (events.hasListeners?.('agents:run:resumed') ?? true)
        if (!listening) return this.executor.resume(runId, 'settle')
        // A drive here follows the event; one elsewhere is a queue hop away: hand it on first
        const first = this.executor.drivesElsewhere === true
        const handedOn = first ? this.executor.resume(runId, 'settle') : undefined
        const run = await AgentRun.find(runId)
        if (run) await events.emit('agents:run:resumed', { run })
        await (first ? handedOn : this.executor.resume(runId, 'settle'))
      })
    }
  }
}
