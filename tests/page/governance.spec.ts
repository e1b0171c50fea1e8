/*
 * What the pages say of governed approvals, shared by the React and Vue
 * pages (stubs/inertia/agent_inbox/governance.ts): a quorum's count, who
 * voted, whether the person looking may vote and why not; a grant in a
 * line; a call's audit entries on the run page.
 */

import { test } from '@japa/runner'
import type { RowCard, TimelineEntry } from '../../src/types/main.ts'
import { auditText, grantWords, quorumView } from '../../stubs/inertia/agent_inbox/governance.ts'
import { showEntry } from '../../stubs/inertia/agent_inbox/timeline.ts'

const people = { '1': 'Ada Lovelace', '2': 'Grace Hopper', '3': 'Margaret Hamilton' }

const refund: RowCard = {
  id: 'r1',
  runId: 'run1',
  digest: 'd',
  kind: 'action',
  status: 'pending',
  toolName: 'refund',
  toolCallId: null,
  createdAt: null,
  expiresAt: null,
  onExpiry: 'defaults',
  action: { summary: 'Refund $120', args: { amount: 120 } },
  quorum: {
    stage: 0,
    stages: [{ approvers: ['2', '3'], quorum: 2 }],
    approvals: 1,
    needed: 2,
    excludeRequester: true,
    requester: '1',
    votes: [{ personId: '2', stage: 0, vote: 'approve' }],
  },
}

test.group('Page | governance words', () => {
  test('a quorum: the count, the votes, and who may still vote', ({ assert }) => {
    assert.deepEqual(quorumView(refund, '3', people), {
      count: '1 of 2 approvals',
      votes: ['Grace Hopper approved'],
      canVote: true,
      note: null,
    })
    assert.equal(quorumView(refund, '2', people)?.note, 'You voted on this call.')
    assert.equal(
      quorumView(refund, '1', people)?.note,
      'You requested this call, so another approver must decide.'
    )
    assert.equal(quorumView(refund, '9', people)?.note, 'You are not among its approvers.')
    assert.isNull(quorumView({ ...refund, quorum: undefined }, '1', people))
  })

  test("a grant in a line, and a call's audit log on the run page", ({ assert }) => {
    const time = (iso: string) => iso.slice(11, 16)
    assert.equal(
      grantWords(
        {
          id: 'g',
          scope: 'args',
          toolName: 'read_logs',
          runId: null,
          predicate: { service: 'api' },
          createdAt: null,
          expiresAt: '2030-01-01T10:00:00.000Z',
        },
        time
      ),
      'read_logs with service = "api", until 10:00'
    )
    const entry: TimelineEntry = {
      type: 'call',
      at: null,
      step: 1,
      attempt: 1,
      toolName: 'refund',
      row: null,
      args: { amount: 120 },
      execution: 'succeeded',
      result: { value: 'ok' },
      output: null,
      action: null,
      audit: [
        { type: 'created', actor: null, channel: 'runtime', at: null, data: null },
        { type: 'voted', actor: '2', channel: 'web', at: null, data: { vote: 'approve' } },
      ],
    }
    assert.equal(
      auditText(entry.type === 'call' ? entry.audit : [], people, time),
      'created — runtime\nvoted — Grace Hopper, web: approve'
    )
    const shown = showEntry(entry, { people, owner: '1', attempt: 1 })
    assert.deepInclude(shown.blocks, {
      label: 'Audit log',
      text: 'created — runtime\nvoted — Grace Hopper, web: approve',
    })
  })
})
