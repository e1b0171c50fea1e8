/*
 * Slack's interactivity endpoint (docs/guides/slack.md). Every request is
 * checked against Slack's signature over the raw body first (401 for a
 * forged or old one). The Slack user must map to a person of the app (the
 * `person` hook) who may settle the row; the reply goes through the one
 * settle path as that person, `answered_via: 'slack'`, bound to the view
 * digest the message showed (governance and quorum apply as anywhere).
 * Slack is answered as it expects: 200 at once for a button (a refusal goes
 * to the person alone, through the payload's `response_url`), a modal's
 * submission with `response_action: 'errors'` when the reply is refused.
 * A row settles once, so a replayed click settles nothing.
 */

import type { HttpContext } from '@adonisjs/core/http'
import type { HttpRouterService } from '@adonisjs/core/types'
import { AlreadySettledException, HttpFacingException } from '../errors.ts'
import { isRowId, type ToolCall } from '../persistence/models/tool_call.ts'
import type { Reply } from '../questions/types.ts'
import { mayDecide, requestOf } from '../http/visitor.ts'
import { answerModal, modalAnswers, rejectModal, SLACK_ACTIONS, type SlackRef } from './blocks.ts'
import { SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER, verifySlackRequest } from './signature.ts'
import type { SlackChannel } from './slack_channel.ts'
import { slackText } from './words.ts'
import type { Words } from '../i18n/words.ts'
import debug from '../debug.ts'

type Payload = {
  type: string
  user?: { id: string; team_id?: string }
  team?: { id: string }
  trigger_id?: string
  response_url?: string
  container?: { channel_id?: string; message_ts?: string }
  actions?: { action_id: string; value?: string }[]
  view?: { callback_id: string; private_metadata: string; state: { values: any } }
}

/** What a settle came to: done, a vote counted, or the words refusing it */
type Outcome = { ok: true; voted: boolean } | { ok: false; message: string }

function parseRef(text: string | undefined): SlackRef | null {
  try {
    const ref = JSON.parse(text ?? '')
    return isRowId(ref?.row) && typeof ref.view === 'string' ? ref : null
  } catch {
    return null
  }
}

async function settle(
  ctx: HttpContext,
  person: string,
  ref: SlackRef,
  reply: Reply,
  words: Words
): Promise<Outcome> {
  const agents = await ctx.containerResolver.make('agents.runtime')
  const access = await ctx.containerResolver.make('agents.access')
  const row: ToolCall | null = await agents.inbox.find(ref.row)
  if (!row) return { ok: false, message: slackText('slack.refused.gone', {}, words) }
  if (row.status !== 'pending')
    return { ok: false, message: slackText('slack.refused.settled', {}, words) }
  if (!(await mayDecide(ctx, { access, person }, row))) {
    return { ok: false, message: slackText('slack.refused.forbidden', {}, words) }
  }
  try {
    const settled = await agents.inbox.settle(row, reply, {
      by: person,
      via: 'slack',
      view: ref.view,
      requireView: true,
      ...requestOf(ctx),
    })
    return { ok: true, voted: settled.status === 'pending' }
  } catch (error) {
    if (error instanceof AlreadySettledException) {
      return { ok: false, message: slackText('slack.refused.settled', {}, words) }
    }
    if ((error as { code?: string }).code === 'E_STALE_VIEW') {
      return { ok: false, message: slackText('slack.refused.stale', {}, words) }
    }
    if (error instanceof HttpFacingException) {
      const message = error.translatedMessage(HttpFacingException.translatorOf(ctx))
      return { ok: false, message: slackText('slack.refused.invalid', { message }, words) }
    }
    throw error
  }
}

/** Tells the person who clicked alone (an ephemeral message through `response_url`) */
async function tell(payload: Payload, text: string) {
  if (!payload.response_url) return
  try {
    await fetch(payload.response_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
    })
  } catch (error) {
    debug('slack response_url failed %O', error)
  }
}

/** Handles one signed interaction: a button of a row's message, or a modal's submission */
export async function handleSlackInteraction(ctx: HttpContext, slack: SlackChannel) {
  const raw = ctx.request.raw() ?? ''
  const headers = ctx.request.headers()
  const signature = headers[SLACK_SIGNATURE_HEADER] as string | undefined
  const timestamp = headers[SLACK_TIMESTAMP_HEADER] as string | undefined
  if (!verifySlackRequest(slack.config.signingSecret, raw, signature, timestamp)) {
    return ctx.response.unauthorized({ error: 'invalid_signature' })
  }
  let payload: Payload
  try {
    payload = JSON.parse(String(new URLSearchParams(raw).get('payload')))
  } catch {
    return ctx.response.badRequest({ error: 'invalid_payload' })
  }
  const user = payload.user
  const where = { channel: payload.container?.channel_id, ts: payload.container?.message_ts }
  const person = user
    ? await slack.config.person({ id: user.id, teamId: user.team_id ?? payload.team?.id })
    : null

  if (payload.type === 'view_submission' && payload.view) {
    const view = payload.view
    const ref = parseRef(view.private_metadata)
    const field = view.callback_id === SLACK_ACTIONS.reject ? 'reason' : firstBlock(view)
    const words = await slack.wordsAt(ref?.row, ref?.ts)
    const refuse = (message: string) =>
      ctx.response.ok({ response_action: 'errors', errors: { [field]: message } })
    if (!person) return refuse(slackText('slack.refused.unmapped', {}, words))
    if (!ref) return refuse(slackText('slack.refused.gone', {}, words))
    const reply: Reply =
      view.callback_id === SLACK_ACTIONS.reject
        ? rejection(view.state.values?.reason?.value?.value)
        : { answers: modalAnswers(view.state.values) }
    const outcome = await settle(ctx, person, ref, reply, words)
    if (!outcome.ok) return refuse(outcome.message)
    return ctx.response.ok({ response_action: 'clear' })
  }

  if (payload.type !== 'block_actions') return ctx.response.ok('')
  const action = payload.actions?.[0]
  const ref = parseRef(action?.value)
  const words = await slack.wordsAt(ref?.row, where.ts)
  if (!person) {
    await tell(payload, slackText('slack.refused.unmapped', {}, words))
    return ctx.response.ok('')
  }
  if (!action || !ref) return ctx.response.ok('')
  if (action.action_id === SLACK_ACTIONS.reject || action.action_id === SLACK_ACTIONS.answer) {
    const agents = await ctx.containerResolver.make('agents.runtime')
    const row = await agents.inbox.find(ref.row)
    if (!row || row.status !== 'pending') {
      await tell(
        payload,
        slackText(row ? 'slack.refused.settled' : 'slack.refused.gone', {}, words)
      )
      return ctx.response.ok('')
    }
    const modal =
      action.action_id === SLACK_ACTIONS.reject
        ? rejectModal({ ...ref, ...where }, words)
        : answerModal(row, { ...ref, ...where }, words)
    const client = await slack.client()
    try {
      await client.views.open({ trigger_id: String(payload.trigger_id), view: modal as any })
    } catch (error) {
      // An expired trigger (3 s) or Slack refusing: the click did nothing, the person may try again
      debug('slack views.open failed %O', error)
    }
    return ctx.response.ok('')
  }
  const reply: Reply | null =
    action.action_id === SLACK_ACTIONS.approve
      ? { approved: true }
      : action.action_id === SLACK_ACTIONS.confirm
        ? { answers: {} }
        : null
  if (!reply) return ctx.response.ok('')
  const outcome = await settle(ctx, person, ref, reply, words)
  if (!outcome.ok) await tell(payload, outcome.message)
  else if (outcome.voted) await tell(payload, slackText('slack.voted', {}, words))
  return ctx.response.ok('')
}

function rejection(reason: unknown): Reply {
  return typeof reason === 'string' && reason.trim()
    ? { approved: false, reason: reason.trim() }
    : { approved: false }
}

function firstBlock(view: NonNullable<Payload['view']>): string {
  return Object.keys(view.state?.values ?? {})[0] ?? 'reason'
}

/**
 * Registers Slack's interactivity endpoint (its Request URL in the Slack
 * app's settings), `agent_inbox.slack`. Leave the app's auth and CSRF
 * off it: Slack's signature is the credential.
 *
 * @example
 * // start/routes.ts
 * registerSlackRoutes(router, slack)
 */
export function registerSlackRoutes(
  router: HttpRouterService,
  slack: SlackChannel,
  options: { path?: string } = {}
) {
  return router
    .post(options.path ?? '/slack/interactions', (ctx) => handleSlackInteraction(ctx, slack))
    .as('agent_inbox.slack')
}
