/*
 * Keeping a Vue page fresh: the page's composable around live_client.ts
 * (Transmit when the app has it, else polling, neither while the person
 * is busy). The app receives this file in inertia/agent_inbox/.
 */

import { onBeforeUnmount, onMounted, ref, watch, type Ref } from 'vue'
import { startLive, type LiveMode } from './live_client'

export { DEFAULT_POLL_INTERVAL, type LiveMode } from './live_client'

/**
 * Reloads the page (`reload`, calling `done` once over) on every Transmit
 * message it `wants`, else (or while `alsoPoll()` holds) every `interval()`
 * ms, and whenever `watching()` changes (what the page asks about grew),
 * never while `paused()` holds. Returns how the page is kept fresh, for its
 * header.
 */
export function useLiveUpdates(options: {
  person: () => string
  interval: () => number
  paused: () => boolean
  reload: (done: () => void) => void
  wants?: (message: unknown) => boolean
  watching?: () => string
  alsoPoll?: () => boolean
}): Ref<LiveMode> {
  const mode = ref<LiveMode>('off')
  let live: ReturnType<typeof startLive> | null = null
  const start = () => {
    live?.stop()
    live = startLive({
      person: options.person(),
      interval: options.interval(),
      reload: (done) => options.reload(done),
      wants: (message) => options.wants?.(message) ?? true,
      alsoPoll: () => options.alsoPoll?.() ?? false,
      onMode: (next) => (mode.value = next),
    })
    live.pause(options.paused())
  }
  onMounted(start)
  watch([options.person, options.interval], start)
  watch(options.paused, (paused) => live?.pause(paused))
  if (options.watching) {
    watch(options.watching, (watching) => {
      if (watching) live?.refresh()
    })
  }
  onBeforeUnmount(() => {
    live?.stop()
    live = null
  })
  return mode
}
