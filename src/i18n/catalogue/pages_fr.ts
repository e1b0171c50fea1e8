/*
 * The published pages' words in French, complete (./pages.ts has the
 * English and says what each page shows).
 */

import type { PageWordKey } from './pages.ts'

export const PAGE_WORDS_FR = {
  'page.someone': 'quelqu’un',
  'page.via': 'via {via}',
  'page.at_time': 'à {time}',

  // The cards, their fields and the bulk bar (inertia/agent_inbox/, react/ and vue/)
  'page.card.placeholder': '',
} satisfies Record<PageWordKey, string>
