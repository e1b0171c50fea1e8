/*
 * A Transmit subscriber for the HTTP suites, speaking the protocol the
 * browser client speaks (@adonisjs/transmit-client): a server-sent events
 * stream `GET /__transmit/events?uid=`, then `POST /__transmit/subscribe`
 * `{ uid, channel }` per channel. Node has no EventSource without a flag, so
 * the stream is read with fetch.
 */

import { randomUUID } from 'node:crypto'

export type TransmitMessage = { channel: string; payload: any }

/**
 * Opens a stream on the app at `baseUrl`, as the person `opener`'s headers
 * name (who subscribes it unless `subscribe` is given others), under `uid`
 * (a new one unless given). Every message it receives is kept in
 * `messages`, in order.
 *
 * @example
 * const stream = await openTransmitStream(baseUrl, { 'x-person': 'user:1' })
 * assert.equal(await stream.subscribe('agent_inbox/user:1'), 204)
 * const message = await stream.next((m) => m.payload.type === 'row:created')
 */
export async function openTransmitStream(
  baseUrl: string,
  opener: Record<string, string> = {},
  uid: string = randomUUID()
) {
  const aborter = new AbortController()
  const response = await fetch(`${baseUrl}/__transmit/events?uid=${encodeURIComponent(uid)}`, {
    headers: { ...opener, accept: 'text/event-stream' },
    signal: aborter.signal,
  })
  if (response.status !== 200 || !response.body) {
    throw new Error(`The Transmit stream answered ${response.status}: ${await response.text()}`)
  }

  const messages: TransmitMessage[] = []
  const waiters = new Set<() => void>()
  const listeners = new Set<(message: TransmitMessage) => void>()
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let opened!: () => void
  const open = new Promise<void>((resolve) => (opened = resolve))

  // An event is lines up to a blank line; Transmit writes `:ok` first, then `data: <json>`
  void (async () => {
    let buffer = ''
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffer += value
        let end: number
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const event = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (event.startsWith(':ok')) opened()
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n')
          if (data) {
            const message = JSON.parse(data)
            messages.push(message)
            for (const listener of listeners) listener(message)
          }
          for (const wake of waiters) wake()
        }
      }
    } catch {
      // aborted by close()
    }
  })()
  await open

  return {
    uid,
    messages,

    /**
     * Subscribes this stream to a channel; resolves with the HTTP status
     * (204 subscribed, 400 refused by the channel's authorization).
     */
    async subscribe(channel: string, headers: Record<string, string> = opener) {
      const answer = await fetch(`${baseUrl}/__transmit/subscribe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ uid, channel }),
      })
      await answer.text()
      return answer.status
    },

    /**
     * The first message (received before or after the call) matching
     * `match`; fails after `timeout` ms, listing what did arrive.
     */
    next(match: (message: TransmitMessage) => boolean, timeout = 10_000) {
      return new Promise<TransmitMessage>((resolve, reject) => {
        const check = () => {
          const found = messages.find(match)
          if (!found) return false
          clearTimeout(timer)
          waiters.delete(check)
          resolve(found)
          return true
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(
              `No matching Transmit message within ${timeout} ms; received ${JSON.stringify(messages)}`
            )
          )
        }, timeout)
        if (!check()) waiters.add(check)
      })
    },

    /** Calls `listener` with every message from now on; returns what stops it */
    listen(listener: (message: TransmitMessage) => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },

    close() {
      aborter.abort()
    },
  }
}
