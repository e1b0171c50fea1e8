/*
 * Keeping a Vue page fresh: the page's composable around live_client.ts
 * (Transmit when the app has it, else polling, neither while the person
 * is busy), and a run page's live step (live_step.ts). The app receives
 * this file in inertia/agent_inbox/.
 */

import { onBeforeUnmount, onMounted, ref, shallowRef, watch, type Ref } from 'vue'
import { startLive, type LiveMode } from './live_client'
import { watchRunSteps, type LiveStep } from './live_step'

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

/**
 * The step run `runId()` is streaming now (null: none), while `enabled()`
 * (the run moves and the person reads all of it); `reload` reloads the
 * timeline once a step is saved, and the live step goes when it is done.
 */
export function useLiveStep(
  runId: () => string,
  enabled: () => boolean,
  reload: (done: () => void) => void
): Ref<LiveStep | null> {
  const step = shallowRef<LiveStep | null>(null)
  let stop = () => {}
  const start = () => {
    stop()
    step.value = null
    stop = enabled()
      ? watchRunSteps({ runId: runId(), onStep: (next) => (step.value = next), reload })
      : () => {}
  }
  onMounted(start)
  watch([runId, enabled], start)
  onBeforeUnmount(() => stop())
  return step
}
