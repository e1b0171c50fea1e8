/*
 * The Slack channel's own words in English, keyed `slack.*`: the English
 * catalogue (src/i18n/catalogue/en.ts) takes them in. No imports, so the
 * catalogue can read it without a cycle. Its buttons and settled lines are
 * the package's shared words (`action.*`, `settled.*`), so an app rewords
 * Approve once for every channel.
 */

export const SLACK_WORDS = {
  'slack.submit': 'Send',
  'slack.cancel': 'Cancel',
  'slack.args': 'Arguments',
  'slack.default': 'default: {value}',
  'slack.no_default': '(none)',
  'slack.reject_title': 'Reject',
  'slack.reason': 'Reason (optional)',
  'slack.answer_title': 'Answer',
  'slack.settled.answered_inbox': 'Answered in the inbox by {name}',
  'slack.settled.approved_inbox': 'Approved in the inbox by {name}',
  'slack.settled.rejected_inbox': 'Rejected in the inbox by {name}',
  'slack.settled.cancelled': 'Cancelled',
  'slack.via.slack': 'Slack',
  'slack.refused.unmapped': 'Your Slack account is not linked to a person of this app.',
  'slack.refused.forbidden': 'This is not yours to settle.',
  'slack.refused.stale': 'This request changed since it was posted. Open the inbox instead.',
  'slack.refused.settled': 'This was already settled.',
  'slack.refused.gone': 'There is nothing behind this message any more.',
  'slack.refused.invalid': 'That answer was refused: {message}',
  'slack.voted': 'Your vote is counted; the request waits for more approvers.',
} as const
