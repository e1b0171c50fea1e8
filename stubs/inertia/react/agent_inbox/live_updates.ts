/*
 * Keeping a React page fresh: the page's hook around live_client.ts
 * (Transmit when the app has it, else polling, neither while the person
 * is busy), and a run page's live step (live_step.ts). The app receives
 * this file in inertia/agent_inbox/.
 */

import { useEffect, useRef, useState } from 'react'
import { startLive, type LiveMode } from './live_client'
import { watchRunSteps, type LiveStep } from './live_step'

export { DEFAULT_POLL_INTERVAL, type LiveMode } from './live_client'

/**
 * Reloads the page (`reload`, calling `done` once over) on every Transmit
 * message it `wants`, else (or while `alsoPoll()` holds) every `interval`
 * ms, and whenever `watching` changes (what the page asks about grew),
 * never while `paused`. Returns how the page is kept fresh, for its header.
 */
export function useLiveUpdates(options: {
  person: string
  interval: number
  paused: boolean
  reload: (done: () => void) => void
  wants?: (message: unknown) => boolean
  watching?: string
  alsoPoll?: () => boolean
}): LiveMode {
  const [mode, setMode] = useState<LiveMode>('off')
  const latest = useRef(options)
  latest.current = options
  const live = useRef<ReturnType<typeof startLive> | null>(null)

  useEffect(() => {
    const started = startLive({
      person: options.person,
      interval: options.interval,
      reload: (done) => latest.current.reload(done),
      wants: (message) => latest.current.wants?.(message) ?? true,
      alsoPoll: () => latest.current.alsoPoll?.() ?? false,
      onMode: setMode,
    })
    live.current = started
    started.pause(latest.current.paused)
    return () => {
      live.current = null
      started.stop()
    }
  }, [options.person, options.interval])

  useEffect(() => {
    live.current?.pause(options.paused)
  }, [options.paused])

  useEffect(() => {
    if (options.watching) live.current?.refresh()
  }, [options.watching])

  return mode
}

/**
 * The step run `runId` is streaming now (null: none), while `enabled`
 * (the run moves and the person reads all of it); `reload` reloads the
 * timeline once a step is saved, and the live step goes when it is done.
 */
export function useLiveStep(
  runId: string,
  enabled: boolean,
  reload: (done: () => void) => void
): LiveStep | null {
  const [step, setStep] = useState<LiveStep | null>(null)
  const latest = useRef(reload)
  latest.current = reload
  useEffect(() => {
    setStep(null)
    if (!enabled) return
    return watchRunSteps({ runId, onStep: setStep, reload: (done) => latest.current(done) })
  }, [runId, enabled])
  return step
}
