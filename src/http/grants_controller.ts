/*
 * Remembered grants over HTTP (docs/design.md §11.2): a person lists their
 * live grants and revokes one. The inbox page lists them too (its `grants`
 * prop) and posts the revocation here. Only the grant's own person may
 * revoke it; the revocation is written with its audit entry.
 */

import { HttpFacingException } from '../errors.ts'
import { grantJson, grantsOf, revokeGrant } from '../inbox/grants.ts'
import { channelOf, requestOf, visitorOf, wantsPage, type InertiaContext } from './visitor.ts'

export default class GrantsController {
  /**
   * The person's live grants, newest first.
   */
  async index(ctx: InertiaContext) {
    const { person } = await visitorOf(ctx)
    const grants = await grantsOf(person)
    return { grants: grants.map(grantJson) }
  }

  /**
   * Revokes one of the person's live grants; E_NOT_FOUND for any other.
   */
  async revoke(ctx: InertiaContext) {
    const { person } = await visitorOf(ctx)
    const id = String(ctx.params.id)
    const grant = await revokeGrant(id, {
      actor: person,
      channel: channelOf(ctx),
      ...requestOf(ctx),
    })
    if (wantsPage(ctx)) {
      ctx.session?.flash(HttpFacingException.replyFlashKey, { rowId: null, revoked: id })
      return ctx.response.redirect().back()
    }
    return { grant: { ...grantJson(grant), revokedAt: grant.revokedAt?.toISO() ?? null } }
  }
}
