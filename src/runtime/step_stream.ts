/*
 * What a streaming step tells its watchers while the model answers: the
 * text and the tool calls' input as they arrive, batched so a fast stream
 * (a provider sends a token or less per part) sends a message at most every
 * `interval` ms rather than one per part. The first part goes at once, so
 * the first token is not held back. Nothing here is durable: the journal
 * checkpoints the step once, when the stream ends (run_driver.ts), and a
 * watcher replaces what it saw with the step that commits.
 *
 * `StepBatch` is pure; `stepWatcher` adds the clock.
 */

/** Input streamed for one tool call since the last message */
export type ToolInputDelta = { toolCallId: string; toolName: string; delta: string }

/** What one message of a streaming step carries: what arrived since the last one */
export type StepDelta = { text: string; toolInputs: ToolInputDelta[] }

/** The parts of the AI SDK's `streamText` stream read here; the others are ignored */
export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-input-start'; id: string; toolName: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: string }

/** How often (ms) a streaming step tells its watchers at most, by default */
export const DELTA_INTERVAL = 50

/**
 * The deltas of a step not sent yet. Pure.
 *
 * @example
 * const batch = new StepBatch()
 * batch.add({ type: 'text-delta', text: 'Hel' })
 * batch.add({ type: 'text-delta', text: 'lo' })
 * batch.take() // { text: 'Hello', toolInputs: [] }
 */
export class StepBatch {
  #text = ''
  #inputs = new Map<string, ToolInputDelta>()
  /** The tool each call streaming in this step is for, told once on its start */
  #tools = new Map<string, string>()

  /** Adds a part; true when it carried something to tell */
  add(part: StreamPart): boolean {
    if (part.type === 'text-delta' && 'text' in part) {
      this.#text += part.text
      return part.text !== ''
    }
    if (part.type === 'tool-input-start' && 'toolName' in part) {
      this.#tools.set(part.id, part.toolName)
      return false
    }
    if (part.type === 'tool-input-delta' && 'delta' in part) {
      const toolName = this.#tools.get(part.id) ?? ''
      const input = this.#inputs.get(part.id) ?? { toolCallId: part.id, toolName, delta: '' }
      input.delta += part.delta
      this.#inputs.set(part.id, input)
      return part.delta !== ''
    }
    return false
  }

  /** What was added since the last take, or null when nothing was */
  take(): StepDelta | null {
    if (this.#text === '' && this.#inputs.size === 0) return null
    const delta = { text: this.#text, toolInputs: [...this.#inputs.values()] }
    this.#text = ''
    this.#inputs.clear()
    return delta
  }
}

/**
 * Sends a step's deltas to `send`: the first part at once, then at most one
 * message every `interval` ms; `end()` sends what is left and stops the
 * clock (call it whether the stream finished or failed).
 *
 * @example
 * const watcher = stepWatcher((delta) => broadcast(delta))
 * for await (const part of result.stream) watcher.push(part)
 * watcher.end()
 */
export function stepWatcher(send: (delta: StepDelta) => void, interval = DELTA_INTERVAL) {
  const batch = new StepBatch()
  let timer: NodeJS.Timeout | undefined
  let sentAt = -Infinity
  const flush = () => {
    timer = undefined
    const delta = batch.take()
    if (!delta) return
    sentAt = performance.now()
    send(delta)
  }
  return {
    push(part: StreamPart) {
      if (!batch.add(part) || timer) return
      const wait = sentAt + interval - performance.now()
      if (wait <= 0) flush()
      else timer = setTimeout(flush, wait)
    },
    end() {
      clearTimeout(timer)
      flush()
    },
  }
}
