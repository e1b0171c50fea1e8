/*
 * Keeping a page fresh, without a framework (the React and Vue pages wrap
 * it): Transmit when the app has it, else polling, and neither while the
 * person is busy (editing a card, a reply on its way).
 *
 * With `@adonisjs/transmit-client` installed in the app (and the server
 * broadcasting on the person's channel, `transmitChannel` of the package), the
 * page subscribes and reloads on every message, and stops polling.
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

import { transmitChannel } from 'adonis-agent-inbox/questions/client'

/** How often (ms) a page looks for changes when the app passes no interval */
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
 * Subscribes to the Transmit channel `channel` when the app has it, calling
 * `onMessage` on every message and once more after a lost stream is back
 * (things may have changed meanwhile), and `onLive` with whether the
 * subscription is live (false while the stream is down). Returns what
 * stops it.
 */
export function subscribe(
  channel: string,
  onMessage: (message: unknown) => void,
  onLive: (live: boolean) => void
): () => void {
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
      // A refused subscription (signed out, not this person's Transmit channel) does not throw
      if (!subscription.isCreated || stopped) return teardown()
      const off = subscription.onMessage((message) => onMessage(message))
      transmit.on('disconnected', () => onLive(false))
      transmit.on('connected', () => {
        onLive(true)
        onMessage(null)
      })
      teardown = () => {
        off()
        subscription.delete().catch(() => {})
        transmit.close()
      }
      // Changes between the page's render and the subscription sent no
      // message here: look once, now that later ones will
      onMessage(null)
      onLive(true)
    } catch {
      // Transmit missing or unreachable: polling carries on
    }
  })()
  return () => {
    stopped = true
    teardown()
  }
}

export type LiveOptions = {
  /** The signed-in person: their channel is `transmitChannel(person)` */
  person: string
  /** Poll every this many ms without Transmit; 0 turns polling off */
  interval: number
  /**
   * Reloads what the page shows, calling `done` when the reload is over
   * (polling waits for it before the next).
   */
  reload: (done: () => void) => void
  /** Only messages this returns true for reload the page (default: all) */
  wants?: (message: unknown) => boolean
  /**
   * Whether to poll even while Transmit is live: the page shows something
   * no message of the person's channel tells of (someone else's run)
   */
  alsoPoll?: () => boolean
  /** Called whenever the mode the header shows changes */
  onMode: (mode: LiveMode) => void
}

/**
 * Keeps a page fresh until `stop()`: a reload on every Transmit message
 * the page `wants`, else (or while `alsoPoll()` holds) every `interval`
 * ms, and on `refresh()` (the page learned it should ask about more, e.g.
 * a run to watch). While
 * `pause(true)` holds (the person is editing, a reply is on its way)
 * nothing reloads; what was missed meanwhile reloads once the pause ends.
 *
 * @example
 * const live = startLive({ person, interval: 3000, reload: (done) => router.reload({ onFinish: done }), onMode })
 * live.pause(true)
 * live.stop()
 */
export function startLive(options: LiveOptions) {
  let live = false
  let paused = false
  let missed = false
  let reloading = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  const mode = (): LiveMode => {
    if (live) return 'transmit'
    if (options.interval <= 0) return 'off'
    return paused ? 'paused' : 'polling'
  }
  const reload = () => {
    if (reloading) {
      missed = true
      return
    }
    reloading = true
    options.reload(() => {
      reloading = false
      if (missed && !paused && !stopped) {
        missed = false
        reload()
      }
    })
  }
  const schedule = () => {
    clearTimeout(timer)
    if (stopped || paused || options.interval <= 0) return
    if (live && !options.alsoPoll?.()) return
    timer = setTimeout(() => {
      if (!reloading) reload()
      schedule()
    }, options.interval)
  }
  const changed = () => {
    options.onMode(mode())
    schedule()
  }

  /** Reloads now, or once the pause (or the reload on its way) is over; polls again if it should */
  const refresh = () => {
    if (paused) missed = true
    else reload()
    schedule()
  }

  const channel = transmitChannel(options.person)
  const unsubscribe = channel
    ? subscribe(
        channel,
        (message) => {
          if (message !== null && options.wants && !options.wants(message)) return
          refresh()
        },
        (isLive) => {
          live = isLive
          changed()
        }
      )
    : () => {}
  changed()

  return {
    refresh,
    pause(next: boolean) {
      if (next === paused) return
      paused = next
      if (!paused && missed) {
        missed = false
        reload()
      }
      changed()
    },
    stop() {
      stopped = true
      clearTimeout(timer)
      unsubscribe()
    },
  }
}
