/*
 * What the pages say of a row the app changed since it was asked, shared
 * by the React and Vue pages (stubs/inertia/agent_inbox/changes.ts): the
 * words and the buttons each change leaves, the args an edit starts from,
 * what Close sends; and that a changed row's 409 is not called a conflict
 * (feedback.ts).
 */

import { test } from '@japa/runner'
import type { RowCard, RowChange } from '../../src/types/main.ts'
import { changeView, closeReply, editStart } from '../../stubs/inertia/agent_inbox/changes.ts'
import { alertHeading, isConflict } from '../../stubs/inertia/agent_inbox/feedback.ts'

const deploy: RowCard = {
  id: 'r1',
  runId: 'run1',
  digest: 'd',
  kind: 'action',
  status: 'pending',
  toolName: 'deploy',
  toolCallId: null,
  createdAt: null,
  expiresAt: null,
  onExpiry: 'reject',
  action: { summary: 'Deploy main', args: { branch: 'main', target: 'eu' } },
}

const changed = (change: RowChange): RowCard => ({ ...deploy, changed: change })

test.group('Page | changed rows', () => {
  test('each change: its words, and only what can still happen', ({ assert }) => {
    assert.isNull(changeView(deploy))
    const offers = (card: RowCard) => {
      const view = changeView(card)!
      return { edit: view.edit, reject: view.reject, close: view.close }
    }
    const rejectOnly = { edit: false, reject: true, close: false }
    assert.deepEqual(offers(changed({ kind: 'tool-removed' })), rejectOnly)
    assert.deepEqual(offers(changed({ kind: 'policy-failed' })), rejectOnly)
    const denied = changed({ kind: 'policy-denies', reason: 'Frozen', rule: 'freeze' })
    assert.deepEqual(offers(denied), rejectOnly)
    assert.equal(changeView(denied)!.title, 'Denied by policy: Frozen')
    assert.include(changeView(denied)!.detail, '(rule: freeze)')
    const schema = changed({
      kind: 'schema-changed',
      schema: { type: 'object', properties: { branch: { type: 'string' } } },
      prefill: { branch: 'main' },
      issues: [{ path: 'target', message: 'is no longer accepted by the tool' }],
    })
    assert.deepEqual(offers(schema), { ...rejectOnly, edit: true })
    assert.include(changeView(schema)!.detail, 'target: is no longer accepted by the tool')
    const ghost = changed({ kind: 'agent-removed', agent: 'ghost' })
    assert.deepEqual(offers(ghost), { edit: false, reject: false, close: true })
    assert.include(changeView(ghost)!.detail, '"ghost"')
  })

  test('an edit starts from the prefill of a changed schema, else from the args asked', ({
    assert,
  }) => {
    assert.deepEqual(editStart(deploy), { branch: 'main', target: 'eu' })
    const schema = changed({
      kind: 'schema-changed',
      schema: {},
      prefill: { branch: 'main' },
      issues: [],
    })
    assert.deepEqual(editStart(schema), { branch: 'main' })
  })

  test('Close sends the plain settle of the row’s kind', ({ assert }) => {
    assert.deepEqual(closeReply(deploy), { approved: false })
    const asked = { ...deploy, action: undefined, questionSet: { questions: [] } }
    assert.deepEqual(closeReply(asked), { answers: {}, skip: true })
  })

  test('a refused approval of a changed row is not a conflict; another reply first is', ({
    assert,
  }) => {
    const entry = (code: string) => ({ status: 409, errors: [{ message: 'm', code }] })
    assert.isTrue(isConflict(entry('E_ALREADY_SETTLED')))
    assert.equal(alertHeading(entry('E_ALREADY_SETTLED')), 'Already settled.')
    for (const code of ['E_TOOL_REMOVED', 'E_DENIED_BY_POLICY']) {
      assert.isFalse(isConflict(entry(code)), code)
      assert.equal(alertHeading(entry(code)), 'That did not go through.', code)
    }
    assert.isFalse(isConflict({ status: 410, errors: [{ message: 'm', code: 'E_UNKNOWN_AGENT' }] }))
  })
})
