/*
 * The inbox as a service: what is waiting for a person, and settling it.
 * Channels (the Inertia page, the terminal, the JSON API) all go through
 * here, so every settlement takes the same path and leaves the same audit.
 */

import { DateTime } from 'luxon'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { resolveAccess, type InboxAccess } from '../http/access.ts'
import { preparedColumns } from '../persistence/prepared_columns.ts'
import { RowSettler, type RowSettlerOptions, type SettleOptions } from './row_settler.ts'

/**
 * @example
 * const rows = await inbox.pending('user:1')
 * await inbox.settle(rows[0].id, { answers: {} , skip: true }, { by: 'user:1', via: 'api' })
 */
export type InboxOptions = RowSettlerOptions & {
  /** Called after a row is settled and committed: the runtime resumes its run here */
  onSettled?: (row: ToolCall) => void | Promise<void>
  /** Who may see and settle rows over HTTP (config `inbox` hooks) */
  access?: Partial<InboxAccess>
}

export class Inbox {
  #settler: RowSettler
  #now: () => DateTime
  #onSettled?: InboxOptions['onSettled']
  readonly access: InboxAccess

  constructor(options: InboxOptions = {}) {
    this.#settler = new RowSettler(options)
    this.#now = options.now ?? (() => DateTime.now())
    this.#onSettled = options.onSettled
    this.access = resolveAccess(options.access)
  }

  /**
   * Pending rows owned by a person, oldest first (served by the
   * `agent_tool_calls_inbox_index`).
   */
  pending(ownerId: string, options: { limit?: number } = {}): Promise<ToolCall[]> {
    return ToolCall.query()
      .where('status', 'pending')
      .where('owner_id', ownerId)
      .orderBy('created_at', 'asc')
      .orderBy('sequence', 'asc')
      .limit(options.limit ?? 100)
  }

  /**
   * One row by id, or null.
   */
  find(rowId: string): Promise<ToolCall | null> {
    return ToolCall.find(rowId)
  }

  /**
   * Settles a pending row with a reply. See `RowSettler.settle` for the
   * errors it raises.
   */
  async settle(rowId: string, reply: unknown, options: SettleOptions): Promise<ToolCall> {
    const row = await this.#settler.settle(rowId, reply, options)
    await this.#onSettled?.(row)
    return row
  }

  /**
   * Settles every pending row whose expiry has passed, by its policy.
   * Returns the rows this call settled (rows answered meanwhile are left).
   */
  async sweepExpired(): Promise<ToolCall[]> {
    const at = this.#now()
    const due = await ToolCall.query()
      .where('status', 'pending')
      .whereNotNull('expires_at')
      .where('expires_at', '<=', preparedColumns(new ToolCall(), { expiresAt: at }).expires_at)
    const settled: ToolCall[] = []
    for (const row of due) {
      if (await this.#settler.expire(row)) settled.push(await row.refresh())
    }
    return settled
  }
}
