/*
 * The package's French words, complete: the example of a second language
 * shipped with the package (an app's own `resources/lang/fr` wins).
 */

import type { Catalogue, WordKey } from './en.ts'
import { PAGE_WORDS_FR } from './pages_fr.ts'

export const fr = {
  ...PAGE_WORDS_FR,
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
  'link.title': '{verb} : {title}',
  'link.heading': '{verb} ?',
  'link.signed_in': 'Connecté par ce lien en tant que',
  'link.nothing_yet': 'Rien n’est décidé tant que vous n’appuyez pas sur le bouton.',
  'link.reason': 'Motif (facultatif)',
  'link.nobody': 'personne (elle a expiré)',
  'link.done': 'C’est fait',
  'link.already_settled': 'Déjà tranché',
  'link.approval': 'approbation',
  'link.question': 'question',
  'link.settled': 'Statut de cette {what} : {status} ; tranchée par {by} via {via}.',
  'link.settled_at':
    'Statut de cette {what} : {status} ; tranchée par {by} via {via} le {when} (UTC).',
  'link.voted': 'Vote compté',
  'link.voted_text': 'Votre vote est compté ; l’approbation attend les autres.',
  'link.broken': 'Ce lien ne fonctionne pas',
  'link.not_done': 'Rien n’a été fait',
  'link.expired': 'Le lien n’est pas valide ou a expiré. Ouvrez plutôt la boîte de réception.',
  'link.invalid': 'Le lien n’est pas valide.',
  'link.gone': 'Il n’y a plus rien derrière ce lien.',
  'link.handed_on':
    'Ce n’est plus à vous de trancher : la demande a été confiée à quelqu’un d’autre.',
  'action.approve': 'Approuver',
  'action.reject': 'Refuser',
  'action.confirm_defaults': 'Confirmer les valeurs par défaut',
  'action.answer': 'Répondre…',
  'settled.approved': 'Approuvé par {by} via {via}',
  'settled.rejected': 'Refusé par {by} via {via}',
  'settled.answered': 'Répondu par {by} via {via}',
  'settled.expired': 'Expiré',
  'slack.submit': 'Envoyer',
  'slack.cancel': 'Annuler',
  'slack.args': 'Arguments',
  'slack.default': 'par défaut : {value}',
  'slack.no_default': '(aucune)',
  'slack.reject_title': 'Refuser',
  'slack.reason': 'Motif (facultatif)',
  'slack.answer_title': 'Répondre',
  'slack.settled.answered_inbox': 'Répondu dans la boîte de réception par {name}',
  'slack.settled.approved_inbox': 'Approuvé dans la boîte de réception par {name}',
  'slack.settled.rejected_inbox': 'Refusé dans la boîte de réception par {name}',
  'slack.settled.cancelled': 'Annulé',
  'slack.via.slack': 'Slack',
  'slack.refused.unmapped': 'Votre compte Slack n’est lié à aucune personne de cette application.',
  'slack.refused.forbidden': 'Ce n’est pas à vous de trancher.',
  'slack.refused.stale':
    'Cette demande a changé depuis sa publication. Ouvrez plutôt la boîte de réception.',
  'slack.refused.settled': 'C’était déjà tranché.',
  'slack.refused.gone': 'Il n’y a plus rien derrière ce message.',
  'slack.refused.invalid': 'Cette réponse a été refusée : {message}',
  'slack.voted': 'Votre vote est compté ; la demande attend d’autres approbateurs.',
} satisfies Record<WordKey, string>

export type { Catalogue }
