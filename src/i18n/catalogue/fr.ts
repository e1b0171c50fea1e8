/*
 * The package's French words, complete: the example of a second language
 * shipped with the package (an app's own `resources/lang/fr` wins).
 */

import type { Catalogue, WordKey } from './en.ts'

export const fr = {
  'mail.hello': 'Bonjour {name},',
  'mail.why.created': 'vous attend',
  'mail.why.reminded': 'vous attend toujours',
  'mail.why.reassigned': 'vous a été confié',
  'mail.why.released': 'a été confié à quelqu’un d’autre',
  'mail.approve_title': 'Approuver {tool} : {summary}',
  'mail.args': 'Arguments : {args}',
  'mail.questions_from': 'Questions de {tool}',
  'mail.default': '{prompt} — par défaut : {labels}',
  'mail.none': '(aucun)',
  'mail.open_inbox': 'Ouvrir la boîte de réception',
  'mail.digest_one': '{count} élément vous attend dans la boîte de réception',
  'mail.digest_many': '{count} éléments vous attendent dans la boîte de réception',
  'action.approve': 'Approuver',
  'action.reject': 'Refuser',
  'action.confirm_defaults': 'Confirmer les valeurs par défaut',
  'action.answer': 'Répondre…',
  'action.reason': 'Motif',
  'settled.approved': 'Approuvé par {by} via {via}',
  'settled.rejected': 'Refusé par {by} via {via}',
  'settled.answered': 'Répondu par {by} via {via}',
  'settled.expired': 'Expiré',
} satisfies Record<WordKey, string>

export type { Catalogue }
