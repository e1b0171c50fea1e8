/*
 * Whether a page's root is the page's main landmark. An app's layout
 * often wraps every page in its own <main> (the AdonisJS starter kits'
 * does); a second main landmark inside it would be one too many for
 * assistive technology, and a page alone needs one. Plain TypeScript,
 * shared by the React and Vue roots (page_root).
 */

/**
 * The role the page's root takes: 'main', unless an element around it is
 * already the main landmark.
 *
 * @example
 * pageLandmark(document.querySelector('.agent-inbox')) // 'main', or undefined inside a layout's <main>
 */
export function pageLandmark(root: Element | null): 'main' | undefined {
  return root?.parentElement?.closest('main, [role="main"]') ? undefined : 'main'
}
