/*
 * A run's status changes and the events they emit. Every change is a
 * conditional update that leaves a finished run alone, so a run cancelled
 * while its driver worked stays cancelled, and the event goes out only
 * when this change is the one that took. The codes a failed run is stored
 * with live here too, so every reason a run fails is in one list; and so
 * does the note of a drive that failed with an error (`last_error`). A run
 * that fails is told to the app's logger at `warn`: its run id, agent,
 * code and message, never only under NODE_DEBUG.
 */

import { DateTime } from 'luxon'
import { RUN_FAILURES, type RunFailureCode } from '../errors.ts'
import type { EventSink } from '../events.ts'
import {
  AgentRun,
  FINISHED_RUN_STATUSES,
  isFinished,
  type RunStatus,
} from '../persistence/models/agent_run.ts'
import { affectedRows, preparedColumns } from '../persistence/prepared_columns.ts'
import { transaction } from '../persistence/transaction.ts'
import { guardedWrite } from '../persistence/guarded_write.ts'
import { closePendingRows } from '../inbox/expiry.ts'
import debug from '../debug.ts'
import type { ExecutorLogger } from './executor.ts'
import { errorText } from './transient.ts'
import { freeFor } from './lease.ts'
import { closeApprovedRows } from './calls/current_tool.ts'

/**
 * @example
 * const state = new RunState(events)
 * await state.fail(run, RUN_FAILURES.maxSteps, 'The run reached its limit')
 */
export class RunState {
  #events?: EventSink
  #logger?: ExecutorLogger
  #owner: string

  /**
   * `owner` is the driver's lease owner: a change is made only while it
   * still holds the run. `logger` is the app's: failed runs are told there.
   */
  constructor(owner: string, events?: EventSink, logger?: ExecutorLogger) {
    this.#owner = owner
    this.#events = events
    this.#logger = logger
  }

  /**
   * The run waits for a person. Returns the status it ended up in.
   */
  async wait(run: AgentRun): Promise<RunStatus | 'busy'> {
    const status = await this.#transition(run, 'waiting')
    if (status === 'waiting') await this.#events?.emit('agents:run:waiting', { run })
    return status
  }

  /**
   * The run ends with the model's final answer.
   */
  async complete(run: AgentRun, text: string): Promise<RunStatus | 'busy'> {
    const status = await this.#transition(run, 'completed', {
      result: { text },
      finishedAt: DateTime.now(),
    })
    if (status === 'completed') await this.#events?.emit('agents:run:completed', { run })
    return status
  }

  /**
   * The run ends failed, with a code and a message for people.
   */
  async fail(run: AgentRun, code: RunFailureCode, message: string): Promise<RunStatus | 'busy'> {
    debug('run %s failed: %s %s', run.id, code, message)
    const status = await this.#transition(run, 'failed', {
      errorCode: code,
      error: message,
      finishedAt: DateTime.now(),
    })
    if (status === 'failed') await this.failed(run)
    return status
  }

  /**
   * Ends a run whose agent this deploy does not define (renamed or removed
   * since it started): failed with E_UNKNOWN_AGENT, its pending rows closed
   * (`cancelled`) in the same transaction, so no row waits for a settle
   * nobody can act on. Held by this driver, or by nobody (a waiting run a
   * settle found): a live lease of another process (a deploy still defining
   * the agent) keeps the run. Returns the status the run ended up in.
   */
  async failUnknownAgent(run: AgentRun): Promise<RunStatus | 'busy'> {
    const now = DateTime.now()
    const message = `No agent named "${run.agent}" is defined in this version of the app (it was renamed or removed after the run started), so the run cannot continue. Its pending rows were closed.`
    const failed = {
      status: 'failed' as const,
      errorCode: RUN_FAILURES.unknownAgent,
      error: message,
      finishedAt: now,
      lastError: null,
      lastErrorAt: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    }
    const ended = await transaction(AgentRun, async (trx) => {
      const affected = await AgentRun.query({ client: trx })
        .where('id', run.id)
        .whereNotIn('status', FINISHED_RUN_STATUSES)
        .where((free) => freeFor(free, this.#owner, now))
        .update(preparedColumns(run, { ...failed, updatedAt: now }))
      if (affectedRows(affected) !== 1) return false
      await closePendingRows(trx, [run.id], now)
      return true
    })
    if (!ended) return this.stopped(run)
    Object.assign(run, failed)
    await closeApprovedRows(run)
    await this.failed(run)
    return 'failed'
  }

  /**
   * Tells of a run this process just ended failed (its code and message
   * set): a `warn` line in the app's log, and the `agents:run:failed` event.
   */
  async failed(run: AgentRun) {
    this.#logger?.warn(
      { runId: run.id, agent: run.agent, code: run.errorCode },
      `adonis-agent-inbox: run ${run.id} of agent "${run.agent}" failed with ${run.errorCode}: ${run.error}`
    )
    await this.#events?.emit('agents:run:failed', { run })
  }

  /**
   * Notes on the run that a drive failed with `error`, for people to see
   * (the inbox's API, the ace commands), until its next checkpoint or
   * status change clears it. Not over a run that finished or that another
   * driver holds now. Best effort: the database may be what failed, and
   * the app's logger has the error anyway.
   */
  async noteError(runId: string, error: unknown) {
    await AgentRun.query()
      .where('id', runId)
      .whereNotIn('status', FINISHED_RUN_STATUSES)
      .where((free) => free.whereNull('lease_owner').orWhere('lease_owner', this.#owner))
      .update(
        preparedColumns(new AgentRun(), {
          lastError: errorText(error),
          lastErrorAt: DateTime.now(),
        })
      )
      .catch((failure) => debug('run %s: noting its error failed %O', runId, failure))
  }

  /**
   * Moves the run to a new status and gives up its lease (every change
   * here ends the drive), unless it was cancelled meanwhile or this driver
   * lost its lease: then the run's status stands, or `'busy'` when another
   * driver holds it. A drive error noted on the run is over.
   */
  async #transition(run: AgentRun, status: RunStatus, changes: Partial<AgentRun> = {}) {
    // The driver stops here: the lease goes in the same update (no release statement after it)
    const moved = {
      status,
      ...changes,
      lastError: null,
      lastErrorAt: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    }
    // A guarded write: prepared on the driver, and on SQLite in the turn's group commit
    const written = await guardedWrite({
      model: AgentRun,
      set: preparedColumns(run, { ...moved, updatedAt: DateTime.now() }),
      where: [
        ['id = ?', run.id],
        ['lease_owner = ?', this.#owner],
        [
          `status not in (${FINISHED_RUN_STATUSES.map(() => '?').join(', ')})`,
          ...FINISHED_RUN_STATUSES,
        ],
      ],
      inserts: [],
    })
    if (!written) return this.stopped(run)
    Object.assign(run, moved)
    return status
  }

  /**
   * Why a write behind the lease was refused: the run's final status when it
   * ended (a cancel), else `'busy'` (another driver took the lease).
   */
  async stopped(run: AgentRun): Promise<RunStatus | 'busy'> {
    const current = await AgentRun.findOrFail(run.id)
    run.status = current.status
    return isFinished(current.status) ? current.status : 'busy'
  }
}
