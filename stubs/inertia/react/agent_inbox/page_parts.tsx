/*
 * What the inbox's React pages share around their content: their root,
 * the links between them (inbox, history, and the operator's console when
 * the page knows where it is) and the note saying how the page keeps
 * fresh. The app receives this file in inertia/agent_inbox/.
 */

import { useLayoutEffect, useRef, useState, type HTMLAttributes } from 'react'
import { pageLandmark } from './landmark'
import type { LiveMode } from './live_client'
import type { inboxLinks } from './words'

/**
 * The root of every inbox page: the .agent-inbox element its styles are
 * scoped under, and the page's main landmark unless the app's layout
 * already wraps it in one (./landmark.ts). Other attributes land on it.
 */
export function PageRoot(props: HTMLAttributes<HTMLDivElement>) {
  const root = useRef<HTMLDivElement>(null)
  const [role, setRole] = useState<'main' | undefined>('main')
  useLayoutEffect(() => setRole(pageLandmark(root.current)), [])
  const className = props.className ? `agent-inbox ${props.className}` : 'agent-inbox'
  return <div {...props} ref={root} className={className} role={role} />
}

/**
 * The links between the pages; the current one is marked for assistive
 * technology. The console is linked when `consoleUrl` is given (its own
 * page gives it: the inbox does not know who is an operator).
 */
export function InboxNav({
  links,
  current,
  consoleUrl,
}: {
  links: ReturnType<typeof inboxLinks>
  current: 'inbox' | 'history' | 'run' | 'console'
  consoleUrl?: string
}) {
  return (
    <nav className="ai-nav" aria-label="Agent inbox">
      <a href={links.inbox} aria-current={current === 'inbox' ? 'page' : undefined}>
        Pending
      </a>
      <a href={links.history} aria-current={current === 'history' ? 'page' : undefined}>
        History
      </a>
      {consoleUrl && (
        <a href={consoleUrl} aria-current={current === 'console' ? 'page' : undefined}>
          Console
        </a>
      )}
    </nav>
  )
}

/** How the page keeps fresh, as its header tells */
export function LiveNote({ live, what = 'rows' }: { live: LiveMode; what?: string }) {
  return (
    <p className="ai-live ai-muted" aria-live="polite">
      {live === 'transmit' && 'Live'}
      {live === 'polling' && `Checking for new ${what}`}
      {live === 'paused' && 'Updates paused while you edit'}
      {live === 'off' && `Reload the page to see new ${what}`}
    </p>
  )
}
