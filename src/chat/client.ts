/*
 * The chat's transport for the AI SDK UI (`useChat` of `@ai-sdk/react` or
 * `@ai-sdk/vue`, through the SDK's `ChatTransport`), in the browser. A sent
 * message starts the conversation's next turn on the server (POST
 * `<chatUrl>/messages`); the turn streams on the chat's Transmit channel
 * (the person's own, `chatChannel`), subscribed before the message is sent
 * so no piece goes by unseen, and this turns what the channel says into UI
 * message chunks. It holds no
 * approval: a row the turn opens is settled through the inbox's reply route
 * by the page, like any row, and the turn's stream ends while it waits (the
 * page resumes it once the row is settled, wherever).
 *
 * Transmit comes from the page (`subscribe`): the package's pages pass
 * their live client's, so this file loads nothing itself. `TurnChunks` is
 * the pure part: live messages in, chunks out.
 */

import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai'
import { chatChannel } from '../questions/client.ts'

/** A run's status as its messages say it */
type Status = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'

/** Statuses after which a turn's stream ends: it finished, or it waits on a person */
const ENDS: Status[] = ['waiting', 'completed', 'failed', 'cancelled']

/** What a chat's JSON answers (the server's `ChatState`), as far as the transport reads it */
export type ChatHead = {
  head: { runId: string; status: Status } | null
  rows: { runId: string | null; status: string }[]
}

/**
 * The head turn's status as a stream follows it: a turn still `waiting`
 * with none of its rows pending was just settled, and is about to go on,
 * so it is followed as running. Pure.
 *
 * @example
 * headStatus({ head: { runId: 'r', status: 'waiting' }, rows: [] }) // 'running'
 */
export function headStatus(state: ChatHead): Status | null {
  const head = state.head
  if (!head) return null
  const pending = state.rows.some((row) => row.runId === head.runId && row.status === 'pending')
  return head.status === 'waiting' && !pending ? 'running' : head.status
}

/**
 * The chunks of one turn, from its live messages. A step's text is one
 * text part per stream (a step called again after a crash streams under
 * another), started on its first delta and ended when the step commits or
 * the turn ends; the turn ends when its run waits on a person, completes,
 * fails or is cancelled. Pure.
 *
 * @example
 * const turn = new TurnChunks(runId)
 * turn.start() // [{ type: 'start', messageId: `${runId}:assistant` }]
 * turn.read({ type: 'step:delta', runId, step: 1, stream: 's1', text: 'Hi', toolInputs: [] })
 * // [{ type: 'text-start', id: 's1' }, { type: 'text-delta', id: 's1', delta: 'Hi' }]
 */
export class TurnChunks {
  readonly runId: string
  #open: string | null = null
  #ended = false

  constructor(runId: string) {
    this.runId = runId
  }

  /** Whether the turn's stream is over */
  get ended(): boolean {
    return this.#ended
  }

  /** The chunk a turn's stream starts with: the reply's id, as the chat's messages name it */
  start(): UIMessageChunk[] {
    return [{ type: 'start', messageId: `${this.runId}:assistant` }]
  }

  /** The chunks a live message of the run's or the person's channel adds */
  read(message: unknown): UIMessageChunk[] {
    const live = message as { type?: string; runId?: string } | null
    if (this.#ended || live?.runId !== this.runId) return []
    if (live.type === 'step:delta') {
      const { stream, text } = live as { stream: string; text: string }
      const chunks: UIMessageChunk[] = []
      if (this.#open !== stream) {
        chunks.push(...this.#close())
        if (text === '') return chunks
        this.#open = stream
        chunks.push({ type: 'text-start', id: stream })
      }
      if (text !== '') chunks.push({ type: 'text-delta', id: stream, delta: text })
      return chunks
    }
    if (live.type === 'step:committed') {
      const { stream } = live as { stream: string }
      return this.#open === stream ? this.#close() : []
    }
    if (live.type === 'run:status') return this.status((live as { status: Status }).status)
    return []
  }

  /**
   * The chunks of the run reaching `status`, told or read: the end of the
   * stream for a status that ends it (an error first for a failed run),
   * nothing otherwise.
   */
  status(status: Status, error?: string): UIMessageChunk[] {
    if (this.#ended || !ENDS.includes(status)) return []
    this.#ended = true
    const failed: UIMessageChunk[] =
      status === 'failed' ? [{ type: 'error', errorText: error ?? 'The agent failed' }] : []
    return [...this.#close(), ...failed, { type: 'finish' }]
  }

  #close(): UIMessageChunk[] {
    if (this.#open === null) return []
    const id = this.#open
    this.#open = null
    return [{ type: 'text-end', id }]
  }
}

export type AgentChatTransportOptions = {
  /** The chat's id and page URL (`/chat/<id>`), as the page's `chatId` and `chatUrl` props give them */
  chatId: string
  chatUrl: string
  /** The signed-in person: the chat's channel is theirs */
  person: string
  /**
   * Subscribes to a Transmit channel; returns what stops it (the pages' live
   * client's). `onMessage(null)` says the subscription is live (and again
   * after a lost stream is back).
   */
  subscribe: (channel: string, onMessage: (message: unknown) => void) => () => void
  /** How long (ms) a message waits for the chat's subscription before it is sent anyway; default 2000 */
  subscribeWait?: number
  /** The agent of a new conversation; an existing one keeps its own */
  agent?: string
  /** How often (ms) a turn's stream reads the head while it is open, besides Transmit; default 3000 */
  pollInterval?: number
  /** Headers of the POST (the page's CSRF token: `x-xsrf-token`) */
  headers?: () => Record<string, string>
  fetch?: typeof fetch
}

/** The error a refused message throws: its status and the server's first error entry */
export class ChatRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string
  ) {
    super(message)
  }
}

/**
 * `useChat`'s transport for a conversation of the package.
 *
 * @example
 * const chat = useChat({
 *   id: chatId,
 *   messages: initial,
 *   transport: new AgentChatTransport({ chatUrl, person, subscribe, headers: xsrfHeaders }),
 * })
 */
export class AgentChatTransport implements ChatTransport<UIMessage> {
  #options: AgentChatTransportOptions
  /** The chat channel's subscription, opened on first use; resolves once live */
  #channel: { live: Promise<void>; stop: () => void } | null = null
  /** Who reads the chat channel's messages now: the turn followed */
  #listeners = new Set<(message: unknown) => void>()
  /** Messages of turns not followed now (a turn streams before its POST answers), newest last */
  #early: { runId: string; message: unknown }[] = []
  /** The turns followed now */
  #following = new Set<string>()

  constructor(options: AgentChatTransportOptions) {
    this.#options = options
  }

  /** Opens the chat channel's subscription once; resolves when live, or after `subscribeWait` */
  #subscribed(): Promise<void> {
    if (!this.#channel) {
      let live = () => {}
      const ready = new Promise<void>((resolve) => (live = resolve))
      const channel = chatChannel(this.#options.person, this.#options.chatId)
      const stop = channel
        ? this.#options.subscribe(channel, (message) => {
            if (message === null) live()
            else this.#keep(message)
            for (const listener of this.#listeners) listener(message)
          })
        : (live(), () => {})
      this.#channel = { live: ready, stop }
    }
    const wait = this.#options.subscribeWait ?? 2000
    return Promise.race([
      this.#channel.live,
      new Promise<void>((resolve) => setTimeout(resolve, wait)),
    ])
  }

  /** Keeps a message of a turn not followed now (the last 500) */
  #keep(message: unknown) {
    const runId = (message as { runId?: unknown } | null)?.runId
    if (typeof runId !== 'string' || this.#following.has(runId)) return
    this.#early.push({ runId, message })
    if (this.#early.length > 500) this.#early.shift()
  }

  /** Stops the chat channel's subscription (useChat's owner calls it when done) */
  close() {
    this.#channel?.stop()
    this.#channel = null
    this.#listeners.clear()
  }

  async sendMessages(options: {
    messages: UIMessage[]
    abortSignal: AbortSignal | undefined
  }): Promise<ReadableStream<UIMessageChunk>> {
    await this.#subscribed()
    const last = options.messages.findLast((message) => message.role === 'user')
    const text = (last?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('')
    const send = this.#options.fetch ?? fetch
    const response = await send(`${this.#options.chatUrl}/messages`, {
      method: 'POST',
      headers: {
        'accept': 'application/json',
        'content-type': 'application/json',
        ...this.#options.headers?.(),
      },
      body: JSON.stringify({
        text,
        ...(this.#options.agent ? { agent: this.#options.agent } : {}),
      }),
      signal: options.abortSignal,
    })
    const body = (await response.json().catch(() => ({}))) as {
      runId?: string
      errors?: { code?: string; message?: string }[]
    }
    if (!response.ok || !body.runId) {
      const [first] = body.errors ?? []
      throw new ChatRequestError(
        response.status,
        first?.code,
        first?.message ?? `The message was not sent (${response.status})`
      )
    }
    return this.#follow(body.runId, options.abortSignal)
  }

  /** The head turn's stream while it runs; null when it waits, has finished or there is none */
  async reconnectToStream(options: {
    abortSignal?: AbortSignal
  }): Promise<ReadableStream<UIMessageChunk> | null> {
    await this.#subscribed()
    const state = await this.#state(options.abortSignal)
    const status = state && headStatus(state)
    if (!state?.head || !status || ENDS.includes(status)) return null
    return this.#follow(state.head.runId, options.abortSignal)
  }

  /** The conversation's head as the server has it; null when there is none yet */
  async #state(signal?: AbortSignal): Promise<ChatHead | null> {
    const send = this.#options.fetch ?? fetch
    const response = await send(this.#options.chatUrl, {
      headers: { accept: 'application/json' },
      signal,
    })
    if (response.status === 404) return null
    if (!response.ok)
      throw new ChatRequestError(response.status, undefined, 'The chat did not load')
    return (await response.json()) as ChatHead
  }

  /**
   * The turn of `runId` as chunks, from the chat's channel: what it said of
   * the turn before this was called, then what it says. When the channel is
   * back after a loss, and every `pollInterval` ms while the stream is open,
   * the head is read: a turn that ended unseen, or an app without Transmit,
   * still ends its stream.
   */
  #follow(runId: string, signal?: AbortSignal): ReadableStream<UIMessageChunk> {
    const turn = new TurnChunks(runId)
    let poll: ReturnType<typeof setInterval> | undefined
    let listener: ((message: unknown) => void) | undefined
    const stop = () => {
      clearInterval(poll)
      this.#following.delete(runId)
      if (listener) this.#listeners.delete(listener)
    }
    return new ReadableStream<UIMessageChunk>({
      start: (controller) => {
        const push = (chunks: UIMessageChunk[]) => {
          for (const chunk of chunks) controller.enqueue(chunk)
          if (turn.ended && chunks.length > 0) {
            stop()
            controller.close()
          }
        }
        const look = () => {
          this.#state(signal)
            .then((state) => {
              if (state?.head?.runId !== runId) return push(turn.status('completed'))
              push(turn.status(headStatus(state)!))
            })
            .catch(() => {})
        }
        push(turn.start())
        this.#following.add(runId)
        for (const early of this.#early.filter((kept) => kept.runId === runId)) {
          push(turn.read(early.message))
        }
        this.#early = this.#early.filter((kept) => kept.runId !== runId)
        if (turn.ended) return
        listener = (message) => (message === null ? look() : push(turn.read(message)))
        this.#listeners.add(listener)
        poll = setInterval(look, this.#options.pollInterval ?? 3000)
        look()
        signal?.addEventListener('abort', () => {
          stop()
          if (!turn.ended) controller.close()
        })
      },
      cancel: stop,
    })
  }
}
