/*
 * The package's entry points: the main entry exports what the README
 * documents and nothing else; the runtime's building blocks and the
 * question model's inner parts are reached through
 * `adonis-agent-inbox/internals`. Every subpath's full list, with
 * signatures, is api/report.md (tests/layout/api_report.spec.ts).
 */

import { readFile } from 'node:fs/promises'
import { test } from '@japa/runner'

test.group('Package exports', () => {
  test('the main entry exports what the README documents', async ({ assert }) => {
    const main = await import('../../index.ts')
    assert.sameMembers(Object.keys(main), [
      'configure',
      'stubsRoot',
      'defineConfig',
      'errors',
      'defineAgent',
      'defineTool',
      'policy',
      'viewDigest',
      'registerInboxRoutes',
      'registerConsoleRoutes',
      'registerChatRoutes',
      'defineNotifier',
      'mailNotifier',
      'webhookNotifier',
      'verifyWebhook',
      'SIGNATURE_HEADER',
    ])
  })

  test('internals are exported from ./internals, for the source and the build', async ({
    assert,
  }) => {
    const internals = await import('../../src/internals.ts')
    assert.sameMembers(Object.keys(internals), [
      'Agents',
      'RunDriver',
      'InlineExecutor',
      'Inbox',
      'RowSettler',
      'hashArgs',
      'AgentRun',
      'ToolCall',
      'JournalRow',
      'AgentEffect',
      'InboxEvent',
      'Approver',
      'Grant',
      'runEvents',
      'rowEvents',
      'eventJson',
      'grantsOf',
      'findGrant',
      'revokeGrant',
      // The question model's inner parts, kept out of ./questions
      'resolveLimits',
      'checkTypedValue',
      'INPUT_TYPES',
      'questionSetSchema',
      'questionSetValidator',
      'formatIssuePath',
      'semanticIssues',
      'formatIssuesForModel',
      'checkAskBudget',
      'MAX_REPLY_BYTES',
      'parseReply',
      'replyFieldPath',
      'normalizeReply',
      'isBlankValue',
      'isFreeTextValue',
      'checkAnswers',
      'sharedReplyIssues',
      'settleQuestionSet',
      'settleDecision',
      'settleReply',
      'settleExpired',
      'TRUNCATION_MARK',
      'EXPIRED_REASON',
      'UNTRUSTED_NOTE',
      'quoteUntrusted',
      'describeOutcome',
      'describeDecision',
      'canonicalJson',
      'questionSetFingerprint',
      'recallOutcome',
    ])

    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'))
    assert.deepEqual(pkg.exports['./internals'], {
      'adonis-agent-inbox-source': './src/internals.ts',
      'default': './build/src/internals.js',
    })
    assert.include(pkg.tsdown.entry, './src/internals.ts')
  })

  test('the question model exports its shapes, set checks and the ask tool; the rest is internal', async ({
    assert,
  }) => {
    const questions = await import('../../src/questions/main.ts')
    assert.sameMembers(Object.keys(questions), [
      'DEFAULT_LIMITS',
      'validateQuestionSet',
      'assertQuestionSet',
      'ASK_TOOL_NAME',
      'askToolDescription',
      'askToolInputSchema',
    ])
  })
})
