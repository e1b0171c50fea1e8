/*
 * Keeping the inbox fresh: Transmit when the app has it, else polling.
 *
 * With `@adonisjs/transmit-client` installed in the app (and the server
 * broadcasting on the person's channel, `liveChannel` of the package), the
 * page subscribes and reloads its rows on every message, and stops polling.
 * Without it, nothing here fails: the page polls. Two ways to find the
 * client, neither of which breaks a build when it is absent:
 *  1. `import.meta.glob` on the package's file: Vite bundles it when it
 *     exists and yields nothing when it does not;
 *  2. a dynamic import with a variable specifier, for setups resolving bare
 *     specifiers at runtime (an import map).
 * Apps that always have Transmit may replace `loadTransmit` with a plain
 * `import('@adonisjs/transmit-client')`. The app receives this file in
 * inertia/agent_inbox/.
 */

import { router, usePoll } from '@inertiajs/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { liveChannel } from 'adonis-agent-inbox/questions/client'

/** How often (ms) the page looks for new and settled rows when the app passes no interval */
export const DEFAULT_POLL_INTERVAL = 3000

/** How the page is kept fresh, as its header tells */
export type LiveMode = 'transmit' | 'polling' | 'paused' | 'off'

type TransmitSubscription = {
  readonly isCreated: boolean
  create(): Promise<void>
  delete(): Promise<void>
  onMessage(handler: (message: unknown) => void): () => void
}
type TransmitClient = {
  subscription(channel: string): TransmitSubscription
  on(event: 'connected' | 'disconnected', callback: () => void): void
  close(): void
}
type TransmitModule = {
  Transmit: new (options: { baseUrl: string }) => TransmitClient
}

async function loadTransmit(): Promise<TransmitModule | null> {
  const bundled = import.meta.glob<TransmitModule>(
    '/node_modules/@adonisjs/transmit-client/build/index.js'
  )
  for (const load of Object.values(bundled)) {
    try {
      return await load()
    } catch {
      // fall through to the runtime import
    }
  }
  const specifier = '@adonisjs/transmit-client'
  try {
    return (await import(/* @vite-ignore */ specifier)) as TransmitModule
  } catch {
    return null
  }
}

/**
 * Subscribes to `channel` through Transmit when the app has it, calling
 * `onMessage` on every message and once more after a lost stream is back
 * (rows may have changed meanwhile). Returns whether the subscription is
 * live: false while the stream is down, so the page polls meanwhile.
 */
function useTransmit(channel: string | null, onMessage: () => void): boolean {
  const [live, setLive] = useState(false)
  const handler = useRef(onMessage)
  useEffect(() => {
    handler.current = onMessage
  })

  useEffect(() => {
    if (!channel || typeof window === 'undefined') return
    let stopped = false
    let teardown = () => {}
    void (async () => {
      try {
        const transmitModule = await loadTransmit()
        if (!transmitModule || stopped) return
        const transmit = new transmitModule.Transmit({ baseUrl: window.location.origin })
        teardown = () => transmit.close()
        // The stream first: while it is down (no Transmit routes: a 404) the
        // client would retry a subscription forever, every 100 ms
        const connected = await new Promise<boolean>((resolve) => {
          transmit.on('connected', () => resolve(true))
          transmit.on('disconnected', () => resolve(false))
        })
        if (!connected || stopped) return teardown()
        const subscription = transmit.subscription(channel)
        await subscription.create()
        // A refused subscription (signed out, not this person's channel) does not throw
        if (!subscription.isCreated || stopped) return teardown()
        const off = subscription.onMessage(() => handler.current())
        transmit.on('disconnected', () => setLive(false))
        transmit.on('connected', () => {
          setLive(true)
          handler.current()
        })
        teardown = () => {
          off()
          subscription.delete().catch(() => {})
          transmit.close()
        }
        // Rows created between the page's render and the subscription sent
        // no message here: look once, now that later ones will
        handler.current()
        setLive(true)
      } catch {
        // Transmit missing or unreachable: polling carries on
      }
    })()
    return () => {
      stopped = true
      teardown()
      setLive(false)
    }
  }, [channel])

  return live
}

/**
 * Keeps the rows fresh: Transmit messages when available, else a partial
 * reload of `groups` every `interval` ms. Both wait while `paused` (the
 * person is editing a card or a reply is on its way), so no reload lands in
 * the middle of their work.
 */
export function useLiveUpdates(person: string, interval: number, paused: boolean): LiveMode {
  const reload = useCallback(() => router.reload({ only: ['groups'] }), [])
  const missed = useRef(false)
  const pausedRef = useRef(paused)
  pausedRef.current = paused

  const live = useTransmit(liveChannel(person), () => {
    if (pausedRef.current) missed.current = true
    else reload()
  })

  const poll = usePoll(
    interval > 0 ? interval : DEFAULT_POLL_INTERVAL,
    { only: ['groups'] },
    { autoStart: false, keepAlive: false, mode: 'rest' }
  )
  const { start, stop } = poll
  useEffect(() => {
    if (interval > 0 && !paused && !live) start()
    else stop()
  }, [interval, paused, live, start, stop])

  useEffect(() => {
    if (!paused && missed.current) {
      missed.current = false
      reload()
    }
  }, [paused, reload])

  if (live) return 'transmit'
  if (interval <= 0) return 'off'
  return paused ? 'paused' : 'polling'
}
