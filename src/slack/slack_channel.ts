/*
 * The Slack answer channel (docs/guides/slack.md) on the official
 * `@slack/web-api` client. Its notifier posts a row's message through the
 * notifications outbox, so a post Slack refuses (a 429 with Retry-After, a
 * 500) is given back and retried by the outbox, never by the client, and
 * a row is posted once per conversation (agent_slack_messages). Once a row
 * settles, wherever and by whomever, `settled` updates its messages.
 */

import { DateTime } from 'luxon'
import type { WebClient } from '@slack/web-api'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { defineNotifier, type Notifier, type Recipient } from '../notify/notifier.ts'
import { preparedColumns } from '../persistence/prepared_columns.ts'
import { rowMessage, settledMessage } from './blocks.ts'
import { SlackMessage } from './slack_message.ts'
import { Words, wordsFor } from '../i18n/words.ts'
import { hasSlackLocale } from '../persistence/schema_features.ts'
import debug from '../debug.ts'

type Maybe<T> = T | Promise<T>

export type SlackConfig = {
  /** The bot token (`xoxb-…`) */
  token: string
  /** The app's signing secret, which the interactivity endpoint checks requests with */
  signingSecret: string
  /** Slack's Web API; default https://slack.com/api/ */
  slackApiUrl?: string
  /**
   * Where a person hears of a row: a channel id, their Slack user id (a DM
   * from the bot), or null for no Slack message
   */
  destination: (row: ToolCall, person: Recipient) => Maybe<string | null>
  /** The app's person behind a Slack user, or null: the user may settle nothing */
  person: (slackUser: { id: string; teamId?: string }) => Maybe<string | null>
  /** How a settled message names the person who settled the row; default their id */
  name?: (personId: string) => Maybe<string>
}

export class SlackChannel {
  readonly config: SlackConfig
  readonly notifier: Notifier
  #client: Promise<WebClient> | null = null

  constructor(config: SlackConfig) {
    if (!config.token || !config.signingSecret) {
      throw new Error('slackChannel: give the bot token and the signing secret')
    }
    this.config = config
    this.notifier = defineNotifier({
      name: 'slack',
      // Somebody a ladder took the row from has nothing to press
      notify: async ({ row, reason }, person, context) =>
        reason === 'released'
          ? undefined
          : this.post(row, person, await wordsFor(context.make, person.locale)),
    })
  }

  /**
   * The words of the row's message a click came from (its conversation's
   * `ts`): what the channel says back, its modals and refusals, speaks the
   * language the message was posted in.
   */
  async wordsAt(rowId: string | undefined, ts: string | undefined): Promise<Words> {
    if (!rowId || !ts) return Words.english
    const message = await SlackMessage.query().where('row_id', rowId).where('ts', ts).first()
    return this.#wordsOf(message?.locale)
  }

  /** The words of a message posted in `locale`, the app's own messages first */
  async #wordsOf(locale: string | null | undefined): Promise<Words> {
    if (!locale) return Words.english
    const { default: app } = await import('@adonisjs/core/services/app')
    // A rejection, not a throw, when the container cannot make i18n: then the package's words
    return wordsFor(async (binding) => app.container.make(binding as never), locale)
  }

  /** The Web API client; the outbox retries, so the client does not */
  client(): Promise<WebClient> {
    this.#client ??= import('@slack/web-api').then(
      ({ WebClient: Client }) =>
        new Client(this.config.token, {
          slackApiUrl: this.config.slackApiUrl,
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
          // A refused call is the outbox's to report and retry
          logLevel: 'error' as never,
        })
    )
    return this.#client
  }

  /** Posts the row's message where the app says, unless it was posted there already */
  async post(row: ToolCall, person: Recipient, words: Words = Words.english): Promise<void> {
    const channel = await this.config.destination(row, person)
    if (!channel) return
    const posted = await SlackMessage.query()
      .where('row_id', row.id)
      .where('channel', channel)
      .first()
    if (posted) return
    const client = await this.client()
    const sent = await client.chat.postMessage({ channel, ...(rowMessage(row, words) as any) })
    try {
      await SlackMessage.create({
        rowId: row.id,
        channel,
        ts: sent.ts ?? null,
        conversation: sent.channel ?? channel,
        ...((await hasSlackLocale()) ? { locale: words.locale } : {}),
        createdAt: DateTime.now(),
      })
    } catch (error) {
      // Another process posted it meanwhile (the unique row and channel)
      debug('slack message of %s in %s not recorded %O', row.id, channel, error)
    }
  }

  /**
   * Updates the row's messages to its settled state; listens to
   * `agents:row:settled`. Never throws: a message Slack refused to update
   * stays due, for `catchUp`.
   */
  async settled(row: ToolCall): Promise<void> {
    if (row.status === 'pending') return
    const messages = await SlackMessage.query().where('row_id', row.id).whereNull('settled_at')
    if (messages.length === 0) return
    const name = row.answeredBy ? await (this.config.name?.(row.answeredBy) ?? row.answeredBy) : ''
    const client = await this.client()
    for (const message of messages) {
      if (!message.ts) continue
      const channel = message.conversation ?? message.channel
      try {
        const words = await this.#wordsOf(message.locale)
        const update = settledMessage(row, name, words) as any
        await client.chat.update({ channel, ts: message.ts, ...update })
      } catch (error) {
        debug('slack update of %s in %s failed %O', row.id, channel, error)
        continue
      }
      await SlackMessage.query()
        .where('id', message.id)
        .update(preparedColumns(new SlackMessage(), { settledAt: DateTime.now() }))
    }
  }

  /**
   * Updates the messages of settled rows that are not yet (Slack refused
   * the update, the process stopped): run it from a schedule, or after
   * the sweep. Returns how many rows it tried.
   */
  async catchUp(limit = 100): Promise<number> {
    const due = await SlackMessage.query()
      .whereNull('settled_at')
      .whereNotNull('ts')
      .distinct('row_id')
      .limit(limit)
      .pojo<{ row_id: string }>()
    if (due.length === 0) return 0
    const rows = await ToolCall.query()
      .whereIn(
        'id',
        due.map((entry) => entry.row_id)
      )
      .whereNot('status', 'pending')
    for (const row of rows) await this.settled(row)
    return rows.length
  }
}

/**
 * The Slack answer channel: put `channel.notifier` among the notifiers,
 * register its interactivity route (`registerSlackRoutes`) and let it hear
 * settles (`emitter.on('agents:row:settled', ({ row }) => channel.settled(row))`).
 *
 * @example
 * export const slack = slackChannel({
 *   token: env.get('SLACK_BOT_TOKEN'),
 *   signingSecret: env.get('SLACK_SIGNING_SECRET'),
 *   destination: (row, person) => slackIds[person.id] ?? null,
 *   person: ({ id }) => peopleBySlackId[id] ?? null,
 * })
 */
export function slackChannel(config: SlackConfig): SlackChannel {
  return new SlackChannel(config)
}
