/*
 * The outbox of transactional actions (docs/design.md §5.5). An effect a
 * handler asked for with `ctx.after(name, data)` is a row of
 * `agent_effects`, inserted in the handler's transaction: it exists exactly
 * when the action's writes do. It is delivered after the commit, by the
 * driver that committed it, and whatever stops that delivery (a crash
 * between the commit and the call, a call that threw) leaves it `pending`
 * for the next drive of its run or for recovery, which deliver it again
 * with the same idempotency key: at least once, with a key, so an API that
 * dedupes by key applies it once.
 *
 * `available_at` is the claim: a delivery first moves it past the time the
 * call may take (the lease's ttl), conditionally, and only the process
 * whose update changed the row calls the effect; a process that dies
 * mid-call lets the claim lapse. The retry schedule is pure (./keys.ts).
 */

import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { AgentEffect } from '../../persistence/models/agent_effect.ts'
import { AgentRun } from '../../persistence/models/agent_run.ts'
import {
  affectedRows,
  preparedColumns,
  preparedRows,
  readRows,
} from '../../persistence/prepared_columns.ts'
import debug from '../../debug.ts'
import { recordFailedDeliveries } from '../../telemetry/metrics.ts'
import type { AgentDefinition } from '../define_agent.ts'
import { DEFAULT_EFFECT_RETRY, effectKey, retryWait, type EffectRetry } from './keys.ts'
import { deliverySpan } from '../../telemetry/inbox_spans.ts'

/** An effect a handler asked for, not yet written */
export type AskedEffect = { name: string; data: unknown }

export type OutboxOptions = {
  agents: Map<string, AgentDefinition>
  /** This process's lease owner: its claims name it */
  owner: string
  /** How long a claim lasts: a delivery must end within it, or it may run again */
  claimTtl: number
  retry?: Partial<EffectRetry>
}

/** How many due effects one recovery pass delivers at most */
const DUE_BATCH = 100

export class Outbox {
  #agents: Map<string, AgentDefinition>
  #owner: string
  #claimTtl: number
  #retry: EffectRetry
  /** Effects this process is delivering now: never twice at once from here */
  #inFlight = new Set<string>()

  constructor(options: OutboxOptions) {
    this.#agents = options.agents
    this.#owner = options.owner
    this.#claimTtl = options.claimTtl
    this.#retry = { ...DEFAULT_EFFECT_RETRY, ...options.retry }
  }

  /**
   * Writes a call's effects in its transaction, claimed by this process
   * for the claim's ttl: it delivers them itself right after the commit.
   * Returns them as written.
   */
  async insert(
    trx: TransactionClientContract,
    call: { runId: string; rowId: string; toolName: string; key: string },
    asked: AskedEffect[]
  ): Promise<AgentEffect[]> {
    if (asked.length === 0) return []
    const now = DateTime.now()
    const attributes = asked.map((effect, position) => ({
      id: randomUUID(),
      runId: call.runId,
      rowId: call.rowId,
      position,
      toolName: call.toolName,
      name: effect.name,
      payload: effect.data ?? null,
      idempotencyKey: effectKey(call.key, position),
      status: 'pending' as const,
      attempts: 1,
      claimedBy: this.#owner,
      availableAt: now.plus({ milliseconds: this.#claimTtl }),
      createdAt: now,
      updatedAt: now,
    }))
    await trx
      .insertQuery()
      .table(AgentEffect.table)
      .multiInsert(preparedRows(AgentEffect, attributes))
    return attributes.map((effect) => Object.assign(new AgentEffect(), effect))
  }

  /**
   * Delivers effects this process claimed (just committed, or claimed by
   * `claimRow` / `deliverDue`), in order, each once, and writes what
   * became of each. Never throws for what an effect does.
   */
  async deliver(agent: string, effects: AgentEffect[]): Promise<void> {
    for (const effect of effects) {
      if (this.#inFlight.has(effect.id)) continue
      await this.#whileInFlight(effect.id, () => this.#deliverOne(agent, effect))
    }
  }

  async #whileInFlight(id: string, work: () => Promise<unknown>) {
    this.#inFlight.add(id)
    try {
      await work()
    } finally {
      this.#inFlight.delete(id)
    }
  }

  /**
   * Claims and delivers the pending effects of one row. The driver asks
   * when it finds a committed transactional call whose result the journal
   * does not hold (its driver was killed between the commit and the
   * effects), holding the run's lease: the driver that committed them lost
   * that lease, so their first claim is this driver's to take, as are
   * claims that lapsed and its own. One a recovery delivers again (a later
   * attempt, or a failure noted) stays with it until its claim lapses, and
   * so does one this process delivers now.
   */
  async deliverRow(agent: string, rowId: string): Promise<void> {
    const pending = await AgentEffect.query()
      .where('row_id', rowId)
      .where('status', 'pending')
      .select('id')
      .pojo<{ id: string }>()
    // Taken in flight at once, with no await between the check and the add
    const ids = pending.map((effect) => effect.id).filter((id) => !this.#inFlight.has(id))
    if (ids.length === 0) return
    for (const id of ids) this.#inFlight.add(id)
    try {
      const now = DateTime.now()
      const at = preparedColumns(new AgentEffect(), { availableAt: now }).available_at
      await AgentEffect.query()
        .whereIn('id', ids)
        .where('status', 'pending')
        .where((free) =>
          free
            .where('available_at', '<=', at)
            .orWhere('claimed_by', this.#owner)
            .orWhere((first) => first.where('attempts', 1).whereNull('last_error'))
        )
        .update(this.#claim(now))
      const claimed = readRows(
        AgentEffect,
        await AgentEffect.query()
          .whereIn('id', ids)
          .where('status', 'pending')
          .where('claimed_by', this.#owner)
          .orderBy('position', 'asc')
          .pojo<Record<string, unknown>>()
      )
      for (const effect of claimed) await this.#deliverOne(agent, effect)
    } finally {
      for (const id of ids) this.#inFlight.delete(id)
    }
  }

  /**
   * Delivers pending effects whose claim lapsed or whose wait after a
   * failure is over, whatever became of their run: recovery's part.
   * Returns how many it delivered (done or not).
   */
  async deliverDue(): Promise<number> {
    const now = DateTime.now()
    const at = preparedColumns(new AgentEffect(), { availableAt: now }).available_at
    const due = await AgentEffect.query()
      .join(AgentRun.table, `${AgentRun.table}.id`, `${AgentEffect.table}.run_id`)
      .where(`${AgentEffect.table}.status`, 'pending')
      .where(`${AgentEffect.table}.available_at`, '<=', at)
      .orderBy(`${AgentEffect.table}.available_at`, 'asc')
      .orderBy(`${AgentEffect.table}.position`, 'asc')
      .limit(DUE_BATCH)
      .select(`${AgentEffect.table}.*`, `${AgentRun.table}.agent as run_agent`)
      .pojo<Record<string, unknown>>()
    let delivered = 0
    for (const effect of readRows(AgentEffect, due)) {
      if (this.#inFlight.has(effect.id)) continue
      // In flight before the claim, so this process's driver leaves it alone from the start
      await this.#whileInFlight(effect.id, async () => {
        const claimed = await AgentEffect.query()
          .where('id', effect.id)
          .where('status', 'pending')
          .where('available_at', '<=', at)
          .update(this.#claim(DateTime.now()))
        if (affectedRows(claimed) !== 1) return
        effect.attempts += 1
        await this.#deliverOne(String(effect.$extras.run_agent), effect)
        delivered++
      })
    }
    if (delivered > 0) debug('outbox: %d due effects delivered', delivered)
    return delivered
  }

  /** The columns of a claim by this process, made at `now` */
  #claim(now: DateTime) {
    const client = AgentEffect.$adapter.modelConstructorClient(AgentEffect)
    return {
      ...preparedColumns(new AgentEffect(), {
        claimedBy: this.#owner,
        availableAt: now.plus({ milliseconds: this.#claimTtl }),
        updatedAt: now,
      }),
      attempts: client.raw('attempts + 1'),
    }
  }

  async #deliverOne(agent: string, effect: AgentEffect) {
    const run = this.#agents.get(agent)?.tools.get(effect.toolName)?.effects.get(effect.name)
    let error: string | null = null
    if (!run) {
      error = `No effect "${effect.name}" on tool "${effect.toolName}" of agent "${agent}"`
    } else {
      try {
        const attributes = {
          'agent_inbox.effect.name': effect.name,
          'agent_inbox.idempotency_key': effect.idempotencyKey,
          'agent_inbox.run.id': effect.runId,
          'agent_inbox.row.id': effect.rowId,
          'agent_inbox.delivery.attempt': effect.attempts,
        }
        await deliverySpan('effect', attributes, async () =>
          run(effect.payload, {
            idempotencyKey: effect.idempotencyKey,
            runId: effect.runId,
            rowId: effect.rowId,
            attempt: effect.attempts,
          })
        )
      } catch (thrown) {
        error = thrown instanceof Error ? thrown.message : String(thrown)
      }
    }
    const now = DateTime.now()
    const wait = error === null ? null : retryWait(effect.attempts, this.#retry)
    const changes: Partial<AgentEffect> =
      error === null
        ? { status: 'done', doneAt: now, lastError: null, updatedAt: now }
        : wait === null
          ? { status: 'failed', lastError: error, updatedAt: now }
          : { lastError: error, availableAt: now.plus({ milliseconds: wait }), updatedAt: now }
    // Only over this process's claim: a delivery that outlived it leaves the row to the next one
    await AgentEffect.query()
      .where('id', effect.id)
      .where('status', 'pending')
      .where('claimed_by', this.#owner)
      .update(preparedColumns(effect, changes))
    Object.assign(effect, changes)
    if (error !== null) recordFailedDeliveries('effects')
    debug('outbox: effect %s (%s) %s', effect.id, effect.name, error ?? 'done')
  }
}
