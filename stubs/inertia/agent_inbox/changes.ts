/*
 * What a pending row's card says when the app changed since the row was
 * asked (the card's `changed`, docs/guides/deploying_while_runs_wait.md),
 * and what it still offers, without a framework so both pages say the same
 * and Node can test it. The app receives this file in inertia/agent_inbox/.
 */

import type { AnswersReply, DecisionReply, RowCard } from 'adonis-agent-inbox/types'
import { t } from './words'

/**
 * A changed card in words, and the buttons it keeps: never the plain
 * Approve (nor a grant); `edit` (the edit form, which then approves),
 * `reject`; a card of a removed agent offers only `close`.
 */
export type ChangeView = {
  kind: NonNullable<RowCard['changed']>['kind']
  title: string
  detail: string
  edit: boolean
  reject: boolean
  close: boolean
}

/**
 * What changed since the card's row was asked, or null when nothing did.
 *
 * @example
 * changeView(card)?.title // 'This tool was removed'
 */
export function changeView(card: RowCard): ChangeView | null {
  const changed = card.changed
  if (!changed) return null
  const only = { edit: false, reject: true, close: false }
  const tool = card.toolName
  switch (changed.kind) {
    case 'agent-removed':
      return {
        kind: changed.kind,
        title: t('page.card.changed_agent'),
        detail: t('page.card.changed_agent_detail', { agent: changed.agent }),
        ...only,
        reject: false,
        close: true,
      }
    case 'tool-removed':
      return {
        kind: changed.kind,
        title: t('page.card.changed_tool'),
        detail: t('page.card.changed_tool_detail', { tool }),
        ...only,
      }
    case 'policy-denies':
      return {
        kind: changed.kind,
        title: t('page.card.changed_policy', { reason: changed.reason }),
        detail: changed.rule
          ? t('page.card.changed_policy_rule_detail', { tool, rule: changed.rule })
          : t('page.card.changed_policy_detail', { tool }),
        ...only,
      }
    case 'policy-failed':
      return {
        kind: changed.kind,
        title: t('page.card.changed_failed'),
        detail: t('page.card.changed_failed_detail', { tool }),
        ...only,
      }
    case 'schema-changed':
      return {
        kind: changed.kind,
        title: t('page.card.changed_schema'),
        detail: t('page.card.changed_schema_detail', {
          tool,
          issues: changed.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '),
        }),
        ...only,
        edit: true,
      }
  }
}

/**
 * The args an edit form starts from: what still fits the new schema when
 * the schema changed, else the args asked.
 */
export function editStart(card: RowCard): unknown {
  return card.changed?.kind === 'schema-changed' ? card.changed.prefill : card.action?.args
}

/**
 * What "Close" sends for a row of a removed agent: the plain settle, which
 * the server refuses with E_UNKNOWN_AGENT once it has ended the run and
 * closed its rows.
 */
export function closeReply(card: RowCard): AnswersReply | DecisionReply {
  return card.questionSet ? { answers: {}, skip: true } : { approved: false }
}
