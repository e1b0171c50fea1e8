/*
 * The cards' words in the page's language (stubs/inertia/agent_inbox/):
 * with the French words the server sends, the framework-free helpers the
 * React and Vue cards share speak French (bulk labels, a quorum, a changed
 * row, an alert, an edit's errors and changes, a grant); and every French
 * card word keeps the placeholders its English fills, so no value is lost
 * in translation.
 */

import { test } from '@japa/runner'
import type { RowCard } from '../../src/types/main.ts'
import { PAGE_WORDS } from '../../src/i18n/catalogue/pages.ts'
import { PAGE_WORDS_FR } from '../../src/i18n/catalogue/pages_fr.ts'
import { useWords } from '../../stubs/inertia/agent_inbox/words.ts'
import { bulkActions } from '../../stubs/inertia/agent_inbox/rows.ts'
import { grantWords, quorumView } from '../../stubs/inertia/agent_inbox/governance.ts'
import { changeView } from '../../stubs/inertia/agent_inbox/changes.ts'
import { alertHeading, alertText, NO_WORD } from '../../stubs/inertia/agent_inbox/feedback.ts'
import { editReply } from '../../stubs/inertia/agent_inbox/schema_form.ts'
import { argsChangeLines } from '../../stubs/inertia/agent_inbox/args_changes.ts'

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
  action: { summary: 'Deploy main', args: { branch: 'main' } },
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort()
}

test.group('Page | the cards in French', (group) => {
  group.each.setup(() => {
    useWords({ locale: 'fr-FR', words: PAGE_WORDS_FR })
    return () => useWords({})
  })

  test('the shared helpers speak the page language', ({ assert }) => {
    assert.equal(bulkActions([deploy, deploy]).accept.label, 'Approuver 2')
    assert.equal(bulkActions([deploy]).refuse.label, 'Refuser 1')

    const quorum = quorumView(
      {
        ...deploy,
        quorum: {
          stage: 0,
          stages: [{ approvers: ['1', '2'], quorum: 2 }],
          approvals: 1,
          needed: 2,
          excludeRequester: false,
          requester: '3',
          votes: [{ personId: '1', stage: 0, vote: 'approve' }],
        },
      },
      '1',
      { '1': 'Ada Lovelace' }
    )!
    assert.equal(quorum.count, '1 approbation sur 2')
    assert.deepEqual(quorum.votes, ['Ada Lovelace a approuvé'])
    assert.equal(quorum.note, 'Vous avez voté sur cet appel.')

    const denied = changeView({
      ...deploy,
      changed: { kind: 'policy-denies', reason: 'Gel', rule: 'freeze' },
    })!
    assert.equal(denied.title, 'Refusé par une règle : Gel')
    assert.include(denied.detail, '« deploy » (règle : freeze)')

    const conflict = {
      status: 409,
      errors: [
        {
          code: 'E_ALREADY_SETTLED',
          message: 'already settled',
          meta: { settledBy: '1', settledVia: 'web', settledAt: null },
        },
      ],
    }
    assert.equal(alertHeading(conflict), 'Déjà tranché.')
    assert.equal(
      alertText(conflict, { person: '1', card: null, formatTime: (iso) => iso }),
      'Tranché par vous, dans un autre onglet.'
    )
    assert.match(NO_WORD.errors[0].message, /^Aucune nouvelle de cette réponse/)

    assert.deepEqual(editReply('  '), { error: 'Écrivez les arguments en JSON, par exemple {}' })
    assert.deepEqual(argsChangeLines({ force: false }, { force: true }), ['Force : Non → Oui'])
    assert.equal(
      grantWords(
        {
          id: 'g1',
          scope: 'person',
          toolName: 'deploy',
          runId: null,
          predicate: null,
          createdAt: null,
          expiresAt: null,
        },
        (iso) => iso
      ),
      'deploy dans vos exécutions'
    )
  })

  test('every French card word keeps the placeholders its English fills', ({ assert }) => {
    const keys = (Object.keys(PAGE_WORDS) as (keyof typeof PAGE_WORDS)[]).filter((key) =>
      key.startsWith('page.card.')
    )
    assert.isAbove(keys.length, 100)
    for (const key of keys) {
      assert.deepEqual(placeholders(PAGE_WORDS_FR[key]), placeholders(PAGE_WORDS[key]), key)
    }
  })
})
