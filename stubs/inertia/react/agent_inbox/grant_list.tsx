/*
 * The person's remembered grants on the inbox page, each with Revoke
 * (docs/design.md §11.2). The words come from ./governance, shared with
 * the Vue page. The app receives this file in inertia/agent_inbox/.
 */

import { router } from '@inertiajs/react'
import { grantWords, revokeUrl, type GrantItem } from './governance'
import { formatTime, t } from './words'

/**
 * Lists the grants, or nothing when there are none.
 */
export function GrantList({ grants, inbox }: { grants: GrantItem[]; inbox: string }) {
  if (grants.length === 0) return null
  return (
    <section className="ai-grants" aria-labelledby="ai-grants-title">
      <h2 id="ai-grants-title">{t('page.card.grants')}</h2>
      <ul>
        {grants.map((grant) => (
          <li key={grant.id} data-grant-id={grant.id}>
            <span>{grantWords(grant, formatTime)}</span>{' '}
            <button
              type="button"
              className="ai-link"
              onClick={() => router.post(revokeUrl(inbox, grant.id), {}, { preserveScroll: true })}
            >
              {t('page.card.revoke')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
