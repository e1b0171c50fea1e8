/*
 * The Slack answer channel end to end (docs/guides/slack.md): the real
 * `@slack/web-api` client against a loopback fake of Slack's Web API
 * (tests/helpers/slack.ts), and interactivity payloads signed as Slack
 * signs them, posted to the app's route over real HTTP. Rows are opened
 * as waits outside the runtime, owned by `ada` (Slack user U_ADA).
 */

import { test } from '@japa/runner'
import { DateTime } from 'luxon'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { SLACK_SECRET, SLACK_TOKEN, signedInteraction, startFakeSlack } from '../helpers/slack.ts'
import { defineConfig } from '../../src/define_config.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { Notification } from '../../src/persistence/models/notification.ts'
import { slackChannel } from '../../src/slack/slack_channel.ts'
import { SlackMessage } from '../../src/slack/slack_message.ts'
import { registerSlackRoutes } from '../../src/slack/slack_interactions.ts'
import { SLACK_ACTIONS } from '../../src/slack/blocks.ts'

/** A row's status as stored now */
async function statusOf(id: string) {
  const row = await ToolCall.findOrFail(id)
  return row.status
}

const SLACK_USERS: Record<string, string> = { U_ADA: 'ada', U_BOB: 'bob', U_CLAIRE: 'claire' }
const NAMES: Record<string, string> = { ada: 'Ada', bob: 'Bob' }

async function createSlackApp() {
  const fake = await startFakeSlack()
  const slack = slackChannel({
    token: SLACK_TOKEN,
    signingSecret: SLACK_SECRET,
    slackApiUrl: `${fake.url}/api/`,
    // Ada's rows go to a channel, Bob's to his DM
    destination: (_row, person) =>
      (({ ada: 'C_APPROVALS', bob: 'U_BOB', claire: 'U_CLAIRE' }) as Record<string, string>)[
        person.id
      ] ?? null,
    person: ({ id }) => SLACK_USERS[id] ?? null,
    name: (id) => NAMES[id] ?? id,
  })
  const app = await createHttpApp({
    agents: defineConfig({
      notifications: {
        notifiers: [slack.notifier],
        // Claire reads French
        preferences: (id) => (id === 'claire' ? { locale: 'fr' } : {}),
      },
    }),
    preload: async (booted) => {
      registerSlackRoutes(await booted.container.make('router'), slack)
      const emitter = await booted.container.make('emitter')
      emitter.on('agents:row:settled', ({ row }: any) => slack.settled(row))
    },
  })
  const agents = await app.app.container.make('agents.runtime')
  const notifications = (await app.app.container.make('agents.notifications'))!
  return { ...app, fake, slack, agents, notifications }
}

test.group(`Slack | ${dbName()}`, (group) => {
  let app: Awaited<ReturnType<typeof createSlackApp>>
  group.setup(async () => {
    app = await createSlackApp()
    return async () => {
      await app.terminate()
      await app.fake.close()
    }
  })
  group.each.setup(async () => {
    await app.notifications.idle()
    await SlackMessage.query().delete()
    await ToolCall.query().delete()
    app.fake.calls.length = 0
    app.fake.responses.length = 0
    app.fake.updateFailures = 0
  })
  group.each.timeout(30_000)

  /** An approval for ada, posted to Slack; its posted message's args */
  async function postedApproval(summary = 'Deploy main') {
    const row = await app.agents.inbox.open(
      { id: null, ownerId: 'ada' },
      { kind: 'action', toolName: 'deploy', args: { branch: 'main' }, summary }
    )
    await app.notifications.idle()
    const post = app.fake.of('chat.postMessage').at(-1)!
    return { row, post }
  }

  async function postedQuestions() {
    const row = await app.agents.inbox.open(
      { id: null, ownerId: 'ada' },
      {
        kind: 'ask',
        set: {
          questions: [
            {
              id: 'region',
              prompt: 'Which region?',
              options: [
                { value: 'eu', label: 'Europe' },
                { value: 'us', label: 'United States' },
              ],
              defaults: ['eu'],
            },
            { id: 'note', prompt: 'A note', input: { type: 'text' }, defaults: ['none'] },
          ],
        },
      }
    )
    await app.notifications.idle()
    return { row, post: app.fake.of('chat.postMessage').at(-1)! }
  }

  function button(post: { args: Record<string, any> }, actionId: string) {
    const actions = post.args.blocks.find((block: any) => block.type === 'actions')
    return actions.elements.find((element: any) => element.action_id === actionId)
  }

  function click(post: any, actionId: string, user = 'U_ADA', at?: number) {
    const payload = {
      type: 'block_actions',
      user: { id: user, team_id: 'T1' },
      trigger_id: 'trigger.1',
      response_url: `${app.fake.url}/response`,
      container: { channel_id: 'C_APPROVALS', message_ts: '1700000000.000001' },
      actions: [{ action_id: actionId, value: button(post, actionId).value }],
    }
    return signedInteraction(payload, { at })
  }

  async function send(request: { body: string; headers: Record<string, string> }) {
    const response = await fetch(`${app.baseUrl}/slack/interactions`, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
    })
    return { status: response.status, text: await response.text() }
  }

  async function statusCode(request: { body: string; headers: Record<string, string> }) {
    const answer = await send(request)
    return answer.status
  }

  function submission(view: Record<string, any>, values: Record<string, any>, user = 'U_ADA') {
    return signedInteraction({
      type: 'view_submission',
      user: { id: user, team_id: 'T1' },
      view: {
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        state: { values },
      },
    })
  }

  test('a row is posted as Block Kit, and Approve settles it and updates the message', async ({
    assert,
  }) => {
    const { row, post } = await postedApproval()
    assert.equal(post.args.channel, 'C_APPROVALS')
    assert.include(JSON.stringify(post.args.blocks), 'Deploy main')
    assert.include(JSON.stringify(post.args.blocks), '\\"branch\\": \\"main\\"')
    const answer = await send(click(post, SLACK_ACTIONS.approve))
    assert.equal(answer.status, 200)
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'approved')
    assert.equal(settled.answeredBy, 'ada')
    assert.equal(settled.answeredVia, 'slack')
    const [update] = app.fake.of('chat.update')
    assert.equal(update.args.channel, 'C_APPROVALS')
    const [message] = await SlackMessage.query().where('row_id', row.id)
    assert.equal(update.args.ts, message.ts)
    assert.include(JSON.stringify(update.args.blocks), 'Approved by Ada via Slack')
    assert.notInclude(JSON.stringify(update.args.blocks), SLACK_ACTIONS.approve)
  })

  test("a row is posted in the person's language, and updated in it once settled", async ({
    assert,
  }) => {
    const row = await app.agents.inbox.open(
      { id: null, ownerId: 'claire' },
      { kind: 'action', toolName: 'deploy', args: { branch: 'main' }, summary: 'Deploy main' }
    )
    await app.notifications.idle()
    const [post] = app.fake.of('chat.postMessage')
    assert.equal(post.args.channel, 'U_CLAIRE')
    const blocks = JSON.stringify(post.args.blocks)
    assert.include(blocks, 'Approuver deploy : Deploy main')
    assert.include(button(post, SLACK_ACTIONS.reject).text.text, 'Refuser')
    assert.notInclude(blocks, 'slack.')
    const [message] = await SlackMessage.query().where('row_id', row.id)
    assert.equal(message.locale, 'fr')
    // Claire's clicks on it, answered in French: Reject's modal…
    const clickOnHers = (actionId: string) =>
      signedInteraction({
        type: 'block_actions',
        user: { id: 'U_CLAIRE', team_id: 'T1' },
        trigger_id: 'trigger.fr',
        response_url: `${app.fake.url}/response`,
        container: { channel_id: message.conversation, message_ts: message.ts },
        actions: [{ action_id: actionId, value: button(post, actionId).value }],
      })
    assert.equal(await statusCode(clickOnHers(SLACK_ACTIONS.reject)), 200)
    const [open] = app.fake.of('views.open')
    assert.equal(open.args.view.title.text, 'Refuser')
    assert.include(JSON.stringify(open.args.view.blocks), 'Motif (facultatif)')

    // Settled elsewhere, by another process for all it knows: the update speaks French too
    await app.agents.inbox.settle(row, { approved: true }, { by: 'bob', via: 'web' })
    const [update] = app.fake.of('chat.update')
    assert.include(
      JSON.stringify(update.args.blocks),
      'Approuvé dans la boîte de réception par Bob'
    )
    // …and a click that comes too late
    assert.equal(await statusCode(clickOnHers(SLACK_ACTIONS.approve)), 200)
    assert.equal(app.fake.responses.at(-1)?.text, 'C’était déjà tranché.')
  })

  test('Reject opens a modal; its submission rejects with the reason', async ({ assert }) => {
    const { row, post } = await postedApproval()
    assert.equal(await statusCode(click(post, SLACK_ACTIONS.reject)), 200)
    const [open] = app.fake.of('views.open')
    assert.equal(open.args.trigger_id, 'trigger.1')
    assert.equal(await statusOf(row.id), 'pending')
    const answer = await send(
      submission(open.args.view, {
        reason: { value: { type: 'plain_text_input', value: 'Not on a Friday' } },
      })
    )
    assert.equal(answer.status, 200)
    assert.deepEqual(JSON.parse(answer.text), { response_action: 'clear' })
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'rejected')
    assert.equal((settled.reply as any).reason, 'Not on a Friday')
    assert.include(
      JSON.stringify(app.fake.of('chat.update')[0].args.blocks),
      'Rejected by Ada via Slack'
    )
  })

  test('Confirm the defaults answers a question set with its defaults', async ({ assert }) => {
    const { row, post } = await postedQuestions()
    assert.include(JSON.stringify(post.args.blocks), 'Europe')
    await send(click(post, SLACK_ACTIONS.confirm))
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'answered')
    assert.deepEqual((settled.outcome as any).answers.region, ['eu'])
    assert.include(
      JSON.stringify(app.fake.of('chat.update')[0].args.blocks),
      'Answered by Ada via Slack'
    )
  })

  test('Answer… opens a modal pre-filled with the defaults; a changed value is the answer', async ({
    assert,
  }) => {
    const { row, post } = await postedQuestions()
    await send(click(post, SLACK_ACTIONS.answer))
    const [open] = app.fake.of('views.open')
    const [region, note] = open.args.view.blocks
    assert.equal(region.element.initial_option.value, 'eu')
    assert.equal(note.element.initial_value, 'none')
    const answer = await send(
      submission(open.args.view, {
        'q:region': { value: { type: 'static_select', selected_option: { value: 'us' } } },
        'q:note': { value: { type: 'plain_text_input', value: 'ship it' } },
      })
    )
    assert.deepEqual(JSON.parse(answer.text), { response_action: 'clear' })
    const settled = await ToolCall.findOrFail(row.id)
    assert.equal(settled.status, 'answered')
    assert.deepEqual((settled.outcome as any).answers, { region: ['us'], note: ['ship it'] })
  })

  test('a settle from the inbox updates the message', async ({ assert }) => {
    const { row } = await postedApproval()
    await app.agents.inbox.settle(row, { approved: true }, { by: 'bob', via: 'web' })
    const [update] = app.fake.of('chat.update')
    assert.include(JSON.stringify(update.args.blocks), 'Approved in the inbox by Bob')
  })

  test("a ladder's reassign step posts the row to the new person's DM; both messages update", async ({
    assert,
  }) => {
    const opened = DateTime.now()
    const row = await app.agents.inbox.open(
      { id: null, ownerId: 'ada' },
      { kind: 'action', toolName: 'deploy', args: { branch: 'main' }, summary: 'Scale up' },
      { ladder: [{ after: '1h', reassign: 'bob' }] }
    )
    await app.notifications.idle()
    const stepAt = opened.plus({ hours: 1, minutes: 1 })
    await app.agents.sweep({ now: stepAt, resume: false })
    await app.notifications.dispatch(stepAt)
    const posts = app.fake.of('chat.postMessage')
    assert.deepEqual(
      posts.map((post) => post.args.channel),
      ['C_APPROVALS', 'U_BOB']
    )
    // The channel's message showed the row before the step: it settles nothing; Bob's DM does
    await send(click(posts[0], SLACK_ACTIONS.approve))
    assert.match(app.fake.responses.at(-1)!.text, /changed since/)
    assert.equal(await statusOf(row.id), 'pending')
    await send(click(posts[1], SLACK_ACTIONS.approve, 'U_BOB'))
    assert.equal(await statusOf(row.id), 'approved')
    const updates = app.fake.of('chat.update')
    assert.sameMembers(
      updates.map((update) => update.args.channel),
      ['C_APPROVALS', 'DU_BOB']
    )
    assert.include(JSON.stringify(updates[0].args.blocks), 'Approved by Bob via Slack')
  })

  test('an update Slack refuses leaves the row settled and is caught up later', async ({
    assert,
  }) => {
    const { row, post } = await postedApproval()
    app.fake.updateFailures = 1
    assert.equal(await statusCode(click(post, SLACK_ACTIONS.approve)), 200)
    assert.equal(await statusOf(row.id), 'approved')
    assert.lengthOf(app.fake.of('refused:update'), 1)
    assert.lengthOf(app.fake.of('chat.update'), 0)
    assert.equal(await app.slack.catchUp(), 1)
    assert.lengthOf(app.fake.of('chat.update'), 1)
    assert.equal(await app.slack.catchUp(), 0)
  })

  test('a forged signature, an old timestamp, a replay, an unmapped user and a stale view settle nothing', async ({
    assert,
  }) => {
    const { row, post } = await postedApproval()
    const forged = click(post, SLACK_ACTIONS.approve)
    forged.headers['x-slack-signature'] = forged.headers['x-slack-signature'].replace(/.$/, (c) =>
      c === '0' ? '1' : '0'
    )
    assert.equal(await statusCode(forged), 401)
    const old = click(post, SLACK_ACTIONS.approve, 'U_ADA', Math.floor(Date.now() / 1000) - 301)
    assert.equal(await statusCode(old), 401)
    const stranger = await send(click(post, SLACK_ACTIONS.approve, 'U_EVE'))
    assert.equal(stranger.status, 200)
    assert.match(app.fake.responses.at(-1)!.text, /not linked/)
    assert.equal(app.fake.responses.at(-1)!.response_type, 'ephemeral')
    assert.equal(await statusOf(row.id), 'pending')

    // Stale: the row changed since the message showed it
    const changed = await ToolCall.findOrFail(row.id)
    changed.request = { ...changed.request, summary: 'Deploy main to production' }
    await changed.save()
    assert.equal(await statusCode(click(post, SLACK_ACTIONS.approve)), 200)
    assert.match(app.fake.responses.at(-1)!.text, /changed since/)
    assert.equal(await statusOf(row.id), 'pending')
    assert.lengthOf(app.fake.of('chat.update'), 0)

    // A replay of a click that settled: nothing more
    const fresh = await postedApproval('Restart the cache')
    const request = click(fresh.post, SLACK_ACTIONS.approve)
    await send(request)
    const first = await ToolCall.findOrFail(fresh.row.id)
    assert.equal(await statusCode(request), 200)
    assert.match(app.fake.responses.at(-1)!.text, /already settled/)
    const again = await ToolCall.findOrFail(fresh.row.id)
    assert.equal(again.settledAt!.toMillis(), first.settledAt!.toMillis())
    assert.lengthOf(app.fake.of('chat.update'), 1)
  })

  test('20 concurrent clicks settle once', async ({ assert }) => {
    const { row, post } = await postedApproval()
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => send(click(post, SLACK_ACTIONS.approve)))
    )
    assert.isTrue(answers.every((answer) => answer.status === 200))
    assert.equal(await statusOf(row.id), 'approved')
    assert.lengthOf(
      app.fake.responses.filter((r) => /already settled/.test(r.text)),
      19
    )
    assert.lengthOf(app.fake.of('chat.update'), 1)
  })

  test('a post refused with 429 Retry-After and then 500 is retried by the outbox and posted once', async ({
    assert,
  }) => {
    app.fake.failures.push(429, 500)
    const row = await app.agents.inbox.open(
      { id: null, ownerId: 'ada' },
      { kind: 'action', toolName: 'deploy', args: { branch: 'main' }, summary: 'Deploy main' }
    )
    await app.notifications.idle()
    assert.lengthOf(app.fake.of('refused:429'), 1)
    assert.lengthOf(app.fake.of('chat.postMessage'), 0)
    const [notice] = await Notification.query().where('row_id', row.id)
    // Retry-After: 120 s, longer than the first backoff (1 min)
    assert.isAtLeast(notice.dueAt.diff(DateTime.now(), 'seconds').seconds, 100)
    await app.notifications.dispatch(DateTime.now().plus({ minutes: 3 }))
    assert.lengthOf(app.fake.of('refused:500'), 1)
    await app.notifications.dispatch(DateTime.now().plus({ minutes: 10 }))
    await app.notifications.dispatch(DateTime.now().plus({ minutes: 30 }))
    assert.lengthOf(app.fake.of('chat.postMessage'), 1)
    assert.lengthOf(await SlackMessage.query().where('row_id', row.id), 1)
  })
})
