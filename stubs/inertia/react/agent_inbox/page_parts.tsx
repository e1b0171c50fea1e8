/*
 * What the inbox's React pages share around their content: their root,
 * the links between them (inbox, history, and the operator's console when
 * the page knows where it is) and the note saying how the page keeps
 * fresh. The app receives this file in inertia/agent_inbox/.
 */

import { useLayoutEffect, useRef, useState, type HTMLAttributes } from 'react'
import { pageLandmark } from './landmark'
import type { LiveMode } from './live_client'
import { t, type inboxLinks } from './words'

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
    <nav className="ai-nav" aria-label={t('page.card.nav')}>
      <a href={links.inbox} aria-current={current === 'inbox' ? 'page' : undefined}>
        {t('page.card.nav_pending')}
      </a>
      <a href={links.history} aria-current={current === 'history' ? 'page' : undefined}>
        {t('page.card.nav_history')}
      </a>
      {consoleUrl && (
        <a href={consoleUrl} aria-current={current === 'console' ? 'page' : undefined}>
          {t('page.card.nav_console')}
        </a>
      )}
    </nav>
  )
}

/** How the page keeps fresh, as its header tells, of what it shows new */
export function LiveNote({
  live,
  what = 'rows',
}: {
  live: LiveMode
  what?: 'rows' | 'steps' | 'replies'
}) {
  return (
    <p className="ai-live ai-muted" aria-live="polite">
      {live === 'transmit' && t('page.card.live')}
      {live === 'polling' && t(`page.card.live_checking_${what}`)}
      {live === 'paused' && t('page.card.live_paused')}
      {live === 'off' && t(`page.card.live_reload_${what}`)}
    </p>
  )
}
