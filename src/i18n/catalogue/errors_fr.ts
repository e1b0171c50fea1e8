/*
 * The French messages of the HTTP errors (src/errors.ts), by code, or by
 * code and variant (`E_RUN_NOT_ACTIONABLE.cancel`) where the English says
 * one of two things. Used when the request's language is French and the
 * app has no message of its own (`agent_inbox.<code>`); `{name}` is filled
 * from the error's `messageData()`. Field errors keep their own messages.
 */

export const ERRORS_FR: Record<string, string> = {
  'E_REPLY_MISMATCH.decision':
    'Cette demande attend une approbation : envoyez { approved: true } ou { approved: false, reason }, pas des réponses',
  'E_REPLY_MISMATCH.answers':
    'Cette demande attend des réponses : envoyez { answers: { [questionId]: string[] } }, ou passez',
  'E_INVALID_REPLY': 'La réponse n’est pas valide',
  'E_ALREADY_SETTLED': 'La demande {rowId} a déjà été tranchée. Rechargez pour voir le résultat',
  'E_EXPIRED':
    'La demande {rowId} a expiré et sa règle d’expiration l’a tranchée. La réponse n’a pas été appliquée',
  'E_CANCELLED':
    'La demande {rowId} a été annulée avec son exécution. La réponse n’a pas été appliquée',
  'E_UNKNOWN_AGENT':
    'La demande {rowId} appartient à une exécution d’un agent que cette version de l’application ne définit plus (renommé ou retiré) : l’exécution a été terminée et ses demandes fermées. La réponse n’a pas été appliquée',
  'E_TOOL_REMOVED':
    'La demande {rowId} veut lancer un outil que cette version de l’application ne définit plus, elle ne peut donc pas être approuvée. Refusez-la : l’agent lira votre motif',
  'E_ARGS_OUTDATED':
    'Les arguments ont été demandés avec un schéma d’entrée antérieur de l’outil et n’y correspondent plus. Approuvez avec des arguments modifiés selon le schéma actuel, ou refusez',
  'E_DENIED_BY_POLICY':
    'Refusé par la politique : {reason}. La demande {rowId} a été refusée par la politique, et l’agent en a été informé',
  'E_POLICY_FAILED':
    'La politique qui régit la demande {rowId} n’a pas pu être vérifiée (elle a échoué) : l’approbation n’a pas été appliquée. Réessayez plus tard, refusez la demande, ou demandez à un opérateur de corriger la politique',
  'E_SETTLE_FAILED': 'Non tranché : réessayez',
  'E_INVALID_CURSOR':
    'Ce curseur n’a pas été donné par la boîte de réception. Utilisez la valeur « next » de la page précédente, ou omettez-le pour la première page',
  'E_INVALID_QUERY': 'La chaîne de requête n’est pas valide',
  'E_FORBIDDEN':
    'Vous ne pouvez pas trancher cette demande. Demandez à son propriétaire, ou à un administrateur autorisé par le hook d’autorisation de la boîte de réception',
  'E_STALE_VIEW':
    'La réponse portait sur une autre version de la demande {rowId} que celle d’aujourd’hui : rien n’a été appliqué. Rechargez la demande et décidez sur ce qu’elle montre',
  'E_NOT_AN_APPROVER':
    'Vous ne faites pas partie des approbateurs de la demande {rowId} : votre vote n’a pas été compté. Demandez à l’un de ses approbateurs',
  'E_NOT_AN_APPROVER.flag':
    'Votre étape de l’approbation de la demande {rowId} n’est pas encore ouverte : l’étape précédente doit d’abord approuver',
  'E_REQUESTER_EXCLUDED':
    'La demande {rowId} a été faite par vous, et son approbation exclut le demandeur : un autre approbateur doit décider',
  'E_ALREADY_VOTED': 'Vous avez déjà voté sur la demande {rowId} ; on ne vote qu’une fois',
  'E_INVALID_STREAM_REQUEST': 'La demande de flux en direct n’est pas valide',
  'E_NOT_YOUR_STREAM':
    'Ce flux en direct a été ouvert par quelqu’un d’autre. Ouvrez votre propre flux (un nouvel uid) et abonnez-le',
  'E_NOT_AN_OPERATOR':
    'Vous ne pouvez pas utiliser la console d’exploitation. Demandez à un administrateur la permission de console de l’application (viewAgentConsole, ou le hook console.authorize)',
  'E_RUN_NOT_ACTIONABLE.retry':
    'L’exécution {runId} est {status}, et seule une exécution échouée peut être relancée',
  'E_RUN_NOT_ACTIONABLE.cancel':
    'L’exécution {runId} est {status}, et une exécution terminée ne peut pas être annulée',
  'E_TURN_LIVE':
    'La conversation répond encore au dernier message (exécution {headRunId}). Attendez qu’elle finisse, ou répondez à ce qu’elle demande, puis renvoyez',
  'E_INVALID_MESSAGE': 'Le message n’est pas valide',
}
