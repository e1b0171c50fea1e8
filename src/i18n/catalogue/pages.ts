/*
 * The published pages' English words (the inbox, a run's page, the
 * history and the cards on them). Apart from the rest of the catalogue
 * because the pages import it in the browser, through
 * `adonis-agent-inbox/questions/client`, as their English fallback: so
 * nothing here may import anything. The server sends a page the words of
 * its person's language (`words` prop); a key it lacks reads English here.
 */

export const PAGE_WORDS = {
  // Times and people (inertia/agent_inbox/words.ts)
  'page.someone': 'someone',
  'page.via': 'via {via}',
  'page.at_time': 'at {time}',

  // The cards, their fields and the bulk bar (inertia/agent_inbox/, react/ and vue/)
  'page.card.placeholder': '',
} as const

/** A word of the pages */
export type PageWordKey = keyof typeof PAGE_WORDS
