/*
 * `adonis-agent-inbox/slack`: the Slack answer channel (docs/guides/slack.md),
 * apart from the main entry so an app without `@slack/web-api` never loads it.
 */

export { slackChannel, SlackChannel, type SlackConfig } from './slack_channel.ts'
export { registerSlackRoutes, handleSlackInteraction } from './slack_interactions.ts'
export { signSlackRequest, verifySlackRequest } from './signature.ts'
export { SLACK_WORDS, slackText, type SlackWord } from './words.ts'
export type { Words } from '../i18n/words.ts'
export { SLACK_ACTIONS, type SlackRef } from './blocks.ts'
export { SlackMessage } from './slack_message.ts'
