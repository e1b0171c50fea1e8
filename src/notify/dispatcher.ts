/*
 * The notification dispatcher: the app's notification config put to work (docs/design.md
 * §7.7). The provider builds it when `notifications` is configured; it
 * sends what is due after every sweep (the ladder's notices, digests
 * whose interval ended) and, soon after a row is opened, the notices of
 * people who want them at once.
 */

import { DateTime } from 'luxon'
import type { Duration } from '../governance/grant_rules.ts'
import type { ToolCall } from '../persistence/models/tool_call.ts'
import type { Notifier, NotifierContext, ReplyLink } from './notifier.ts'
import { dispatchDue } from './outbox.ts'
import type { Preferences } from './schedule.ts'
import debug from '../debug.ts'

/**
 * `notifications` in config/agents.ts.
 *
 * @example
 * notifications: {
 *   notifiers: [mailNotifier({ from: 'inbox@example.com' })],
 *   baseUrl: env.get('APP_URL'),
 *   preferences: async (id) => ({ email: (await User.findOrFail(id)).email, digest: 30 }),
 * }
 */
export type NotificationsConfig = {
  notifiers: Notifier[]
  /**
   * A person's address and wishes (notifiers, digest interval, quiet
   * hours); null: do not notify them. Default: every notifier, at once,
   * no address (so no mail). Import the app's models inside the hook
   * (`await import('#models/user')`), not at the top of config/agents.ts
   */
  preferences?: (personId: string) => Preferences | null | Promise<Preferences | null>
  /** The app's absolute URL, for links in mails and payloads (`https://app.example.com`) */
  baseUrl?: string
  /** How long a one-tap link works; default '72h' */
  linkTtl?: Duration
}

/** What the HTTP side gives the dispatcher: the signed links and the inbox's URL */
export type LinkMaker = {
  links(row: ToolCall, personId: string): ReplyLink[]
  inboxUrl: string | null
}

export class NotificationDispatcher {
  #config: NotificationsConfig
  #make: NotifierContext['make']
  #links: () => Promise<LinkMaker | null>
  #pending: Promise<unknown> | null = null
  #again = false

  constructor(
    config: NotificationsConfig,
    make: NotifierContext['make'],
    links: () => Promise<LinkMaker | null>
  ) {
    this.#config = config
    this.#make = make
    this.#links = links
  }

  /**
   * Sends every notice due at `now`; returns how many rows were told of.
   */
  async dispatch(now: DateTime = DateTime.now()): Promise<number> {
    const maker = await this.#links()
    return dispatchDue({
      now,
      notifiers: this.#config.notifiers,
      preferences: this.#config.preferences ?? (() => ({})),
      links: (row, person) => maker?.links(row, person) ?? [],
      context: { inboxUrl: maker?.inboxUrl ?? null, make: this.#make },
    })
  }

  /**
   * Dispatches on the next tick (a row was just opened), once however
   * many rows ask meanwhile.
   */
  soon(): void {
    if (this.#pending) {
      this.#again = true
      return
    }
    this.#pending = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.dispatch())
      .catch((error) => debug('notifications failed %O', error))
      .finally(() => {
        this.#pending = null
        if (this.#again) {
          this.#again = false
          this.soon()
        }
      })
  }

  /** Resolves once the dispatches started so far are done (tests, shutdown) */
  async idle(): Promise<void> {
    while (this.#pending) await this.#pending
  }
}
