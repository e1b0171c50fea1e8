/*
 * A run page's live step, shared by the React and Vue pages: what a
 * streaming agent's model is answering right now, as the run's Transmit
 * channel tells it (`runChannel` of the package), until the step is
 * journaled and the page's timeline, reloaded, shows it instead. A step
 * called again after a crash streams under another `stream`, and its text
 * replaces what the dead call had shown. Without Transmit the page shows
 * no live step: the timeline still moves by polling. The app receives this
 * file in inertia/agent_inbox/.
 */

import { runChannel } from 'adonis-agent-inbox/questions/client'
import type { StepMessage } from 'adonis-agent-inbox/types'
import { t } from './words'
import { subscribe } from './live_client'

/** What the page shows of the step streaming now */
export type LiveStep = {
  step: number
  stream: string
  text: string
  /** Each tool call the model is writing, its input as far as it came (JSON, maybe cut) */
  toolCalls: { toolCallId: string; toolName: string; input: string }[]
  /** Journaled: the timeline's reload is on its way, and will show it */
  committed: boolean
}

function isStepMessage(message: unknown, runId: string): message is StepMessage {
  const candidate = message as Partial<StepMessage> | null
  return (
    candidate?.runId === runId &&
    (candidate.type === 'step:delta' || candidate.type === 'step:committed')
  )
}

/**
 * The live step once `message` is read: a delta adds to the step of its
 * stream (another stream starts afresh), a commit of that stream marks it
 * committed; anything else leaves it as it was (the same object). Pure.
 *
 * @example
 * let step = nextLiveStep(null, { type: 'step:delta', runId, step: 1, stream: 's', text: 'Hel', toolInputs: [] }, runId)
 * step = nextLiveStep(step, { type: 'step:delta', runId, step: 1, stream: 's', text: 'lo', toolInputs: [] }, runId)
 * step?.text // 'Hello'
 */
export function nextLiveStep(
  current: LiveStep | null,
  message: unknown,
  runId: string
): LiveStep | null {
  if (!isStepMessage(message, runId)) return current
  if (message.type === 'step:committed') {
    return current?.stream === message.stream ? { ...current, committed: true } : current
  }
  const base =
    current?.stream === message.stream
      ? current
      : { step: message.step, stream: message.stream, text: '', toolCalls: [], committed: false }
  const toolCalls = base.toolCalls.map((call) => ({ ...call }))
  for (const input of message.toolInputs) {
    const known = toolCalls.find((call) => call.toolCallId === input.toolCallId)
    if (known) known.input += input.delta
    else
      toolCalls.push({ toolCallId: input.toolCallId, toolName: input.toolName, input: input.delta })
  }
  return { ...base, text: base.text + message.text, toolCalls }
}

/** The live step's heading */
export function liveStepTitle(step: LiveStep): string {
  return t(step.committed ? 'page.live_step.saved' : 'page.live_step.answering', {
    step: step.step,
  })
}

/**
 * Follows run `runId`'s streaming steps until the returned function is
 * called: `onStep` with the live step after each message that changed it,
 * and with null once a committed step's `reload` of the timeline is done
 * (the timeline shows it then). Needs Transmit in the app; the channel is
 * refused to those who may not read the whole run, and then nothing shows.
 */
export function watchRunSteps(options: {
  runId: string
  onStep: (step: LiveStep | null) => void
  reload: (done: () => void) => void
}): () => void {
  const channel = runChannel(options.runId)
  if (!channel) return () => {}
  let current: LiveStep | null = null
  return subscribe(
    channel,
    (message) => {
      const next = nextLiveStep(current, message, options.runId)
      if (next === current) return
      current = next
      options.onStep(current)
      if (!current?.committed) return
      const committed = current
      options.reload(() => {
        if (current !== committed) return
        current = null
        options.onStep(null)
      })
    },
    () => {}
  )
}
