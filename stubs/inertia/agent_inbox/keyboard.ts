/*
 * The pages' keyboard rules, for DOM events whichever framework sent them:
 * Enter in a one-line field never submits anything, and a hotkey waits
 * while the person types. The app receives this file in inertia/agent_inbox/.
 */

/** What the rules read of a key event (a DOM KeyboardEvent, or React's) */
type KeyEventLike = { key: string; target: EventTarget | null; preventDefault(): void }

/** Enter in a one-line field must not submit anything */
export function stopEnter(event: KeyEventLike) {
  if (event.key === 'Enter' && event.target instanceof HTMLInputElement) event.preventDefault()
}

/** Whether the focus is in a field that takes text, where a key is a letter, not a hotkey */
export function isTyping(target: EventTarget | null): boolean {
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true
  if (!(target instanceof HTMLInputElement)) return false
  return !['radio', 'checkbox', 'button', 'submit', 'reset'].includes(target.type)
}

/** The question a key event happened in (`data-question-id`), if any */
export function questionOf(target: EventTarget | null): string | undefined {
  if (!(target instanceof HTMLElement)) return undefined
  return target.closest('[data-question-id]')?.getAttribute('data-question-id') ?? undefined
}

/**
 * Whether the focus is in a field of a card (the page pauses its live
 * updates while the person edits).
 */
export function isEditing(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    target.closest('[data-row-id]') !== null &&
    target.matches('input, textarea, select')
  )
}
