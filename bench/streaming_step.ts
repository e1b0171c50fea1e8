/*
 * What streaming costs a step: the same durable run of text-and-read-tool
 * steps driven through the package with `generateText` and with
 * `streamText` (`stream: true`), interleaved, in the same process on the
 * same database, with a listener on the step events as the live broadcast
 * has (it serializes each message, as Transmit does). The model streams
 * each step in token-sized parts (4 characters), so the batching
 * (src/runtime/step_stream.ts) has a flood to hold back: the figure counts
 * the parts a step streams and the messages its watchers were sent.
 */

import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import vine from '@vinejs/vine'
import { generateText, jsonSchema, streamText, tool } from 'ai'
import { ask, call, say, scriptedModel } from '../src/testing/scripted_model.ts'
import { Agents } from '../src/runtime/agents.ts'
import { defineAgent } from '../src/runtime/define_agent.ts'
import { defineTool } from '../src/runtime/define_tool.ts'
import type { AgentEvents } from '../src/events.ts'
import { spread, type Spread } from './stats.ts'

const TEXT = 'Looking up the next key in the table, then I will read its value.'
const CHUNK = 4
/** ms a model takes to answer in the figure of a model that takes time (a fast provider's first token) */
export const LATENCY = 20

/** The step's content, the model's answer to every call */
function stepContent(index: number) {
  return [say(TEXT), call(`call_${index + 1}`, 'lookup', { key: `k${index + 1}` })]
}

/**
 * ms per call of the AI SDK alone, the same model's step generated or
 * streamed (read to its end, its result awaited), nothing saved: the floor
 * under the package's two steps.
 */
async function sdkCalls(calls: number) {
  const model = scriptedModel(() => stepContent(0), { stream: { chunkSize: CHUNK } })
  Object.defineProperty(model, 'doGenerateCalls', { get: () => [] })
  Object.defineProperty(model, 'doStreamCalls', { get: () => [] })
  const tools = {
    lookup: tool({
      description: 'Look up a key',
      inputSchema: jsonSchema({ type: 'object', properties: { key: { type: 'string' } } }),
    }),
  }
  let started = performance.now()
  for (let index = 0; index < calls; index++) {
    await generateText({ model, prompt: 'Look up every key', tools })
  }
  const generated = (performance.now() - started) / calls
  started = performance.now()
  for (let index = 0; index < calls; index++) {
    const result = streamText({ model, prompt: 'Look up every key', tools, onError: () => {} })
    for await (const part of result.stream) void part
    await Promise.all([result.text, result.toolCalls, result.response])
  }
  return { generated, streamed: (performance.now() - started) / calls }
}

/**
 * A runtime whose agent says a sentence and calls the read tool each step,
 * streamed or not, its model answering `latency` ms after each call
 */
function lookupAgents(
  steps: number,
  stream: boolean,
  onMessage: (json: string) => void,
  latency: number
) {
  const model = scriptedModel(
    [
      ...Array.from({ length: steps }, (_, index) => async () => {
        if (latency > 0) await sleep(latency)
        return stepContent(index)
      }),
      () => [say('done')],
    ],
    { by: 'turn', stream: { chunkSize: CHUNK } }
  )
  // No prompt kept: a real provider keeps none (bench/durable_step.ts)
  Object.defineProperty(model, 'doGenerateCalls', { get: () => [] })
  Object.defineProperty(model, 'doStreamCalls', { get: () => [] })
  const events = {
    hasListeners: (name: keyof AgentEvents) => name.startsWith('agents:step:'),
    emit: <Name extends keyof AgentEvents>(name: Name, data: AgentEvents[Name]) => {
      if (!name.startsWith('agents:step:')) return
      const { run, ...message } = data as AgentEvents['agents:step:delta']
      onMessage(JSON.stringify({ type: name, runId: run.id, ...message }))
    },
  }
  return new Agents({
    agents: [
      defineAgent({
        name: 'looker',
        model,
        instructions: 'Look up every key',
        maxSteps: steps + 1,
        stream,
        tools: [
          defineTool({
            name: 'lookup',
            description: 'Look up a key',
            kind: 'read',
            input: vine.object({ key: vine.string() }),
            handle: async ({ key }) => `value of ${key}`,
          }),
        ],
      }),
    ],
    events,
  })
}

/** ms per step of one run of `steps` steps, and the step messages it sent */
async function timedRun(steps: number, stream: boolean, latency = 0) {
  let messages = 0
  const agents = lookupAgents(steps, stream, () => messages++, latency)
  const started = performance.now()
  const run = await agents.start('looker', { input: 'Look up every key', owner: null })
  await agents.idle()
  const perStep = (performance.now() - started) / (steps + 1)
  const finished = await agents.run(run.id)
  if (finished?.status !== 'completed') {
    throw new Error(`The bench run ended ${finished?.status}: ${finished?.error}`)
  }
  return { perStep, messages: messages / (steps + 1) }
}

export type StreamingFigures = {
  generated: Spread
  streamed: Spread
  /** streamed / generated, per repetition */
  ratio: Spread
  /** The AI SDK alone: ms of a `streamText` call read to its end, over a `generateText` call's */
  sdkRatio: Spread
  sdkExtra: Spread
  /** What streaming adds to a step beyond the AI SDK's own extra (ms) */
  ownExtra: Spread
  /** streamed / generated with a model answering in LATENCY ms, per repetition */
  slowRatio: Spread
  /** Parts one step streams (text and tool input), and the messages its watchers got */
  partsPerStep: number
  messagesPerStep: number
}

/**
 * Interleaves `repetitions` rounds of a generated and a streamed run of
 * `steps` steps each.
 */
export async function measureStreamingStep(options: {
  steps: number
  repetitions: number
}): Promise<StreamingFigures> {
  const generated: number[] = []
  const streamed: number[] = []
  const ratios: number[] = []
  const sdkRatios: number[] = []
  const sdkExtras: number[] = []
  const ownExtras: number[] = []
  const slowRatios: number[] = []
  let messagesPerStep = 0
  // Warm both paths once, so neither pays the other's first-call costs
  await timedRun(2, false)
  await timedRun(2, true)
  await sdkCalls(2)
  for (let round = 0; round < options.repetitions; round++) {
    const plain = await timedRun(options.steps, false)
    const live = await timedRun(options.steps, true)
    generated.push(plain.perStep)
    streamed.push(live.perStep)
    ratios.push(live.perStep / plain.perStep)
    messagesPerStep = live.messages
    const sdk = await sdkCalls(options.steps)
    sdkRatios.push(sdk.streamed / sdk.generated)
    sdkExtras.push(sdk.streamed - sdk.generated)
    ownExtras.push(live.perStep - plain.perStep - (sdk.streamed - sdk.generated))
    const slowSteps = Math.min(options.steps, 20)
    const slowPlain = await timedRun(slowSteps, false, LATENCY)
    const slowLive = await timedRun(slowSteps, true, LATENCY)
    slowRatios.push(slowLive.perStep / slowPlain.perStep)
  }
  const input = JSON.stringify({ key: `k${options.steps}` })
  return {
    generated: spread(generated),
    streamed: spread(streamed),
    ratio: spread(ratios),
    sdkRatio: spread(sdkRatios),
    sdkExtra: spread(sdkExtras),
    ownExtra: spread(ownExtras),
    slowRatio: spread(slowRatios),
    partsPerStep: Math.ceil(TEXT.length / CHUNK) + Math.ceil(input.length / CHUNK),
    messagesPerStep,
  }
}

/** A one-question set with a default, as a chat's inline card confirms it */
const CONFIRM = {
  questions: [
    {
      id: 'go',
      prompt: 'Go on?',
      options: [
        { value: 'yes', label: 'Yes' },
        { value: 'no', label: 'No' },
      ],
      defaults: ['yes'],
    },
  ],
}

export type SettleToTokenFigures = {
  /** ms from the settle's call to the model called for the run's next step */
  toModelCall: Spread
  /** ms from the settle's call to the step's first streamed part reaching its watchers */
  toFirstToken: Spread
  /** toFirstToken − toModelCall, per round: what streaming adds before the first token */
  extra: Spread
}

/**
 * The live case's latency (issue 28): a streaming run waits on a question;
 * the question is settled (as a chat's inline card does, through the inbox)
 * and the clock runs until the model is called for the next step and until
 * that step's first streamed part is told to its watchers. `rounds` runs,
 * one at a time, on the database of the bench's app.
 */
export async function measureSettleToToken(rounds: number): Promise<SettleToTokenFigures> {
  let modelCalledAt = 0
  let firstTokenAt = 0
  const model = scriptedModel(
    [
      [ask('q1', CONFIRM)],
      () => {
        modelCalledAt = performance.now()
        return [say(TEXT)]
      },
    ],
    { by: 'turn', stream: { chunkSize: CHUNK } }
  )
  Object.defineProperty(model, 'doGenerateCalls', { get: () => [] })
  Object.defineProperty(model, 'doStreamCalls', { get: () => [] })
  const events = {
    hasListeners: (name: keyof AgentEvents) => name.startsWith('agents:step:'),
    emit: <Name extends keyof AgentEvents>(name: Name, data: AgentEvents[Name]) => {
      if (name !== 'agents:step:delta' || firstTokenAt !== 0) return
      // Serialized as the live broadcast sends it, then told
      JSON.stringify(data, (key, value) => (key === 'run' ? undefined : value))
      firstTokenAt = performance.now()
    },
  }
  const agents = new Agents({
    agents: [defineAgent({ name: 'asker', model, instructions: 'Ask, then say.', stream: true })],
    events,
  })
  const toModelCall: number[] = []
  const toFirstToken: number[] = []
  const extra: number[] = []
  for (let round = -2; round < rounds; round++) {
    const run = await agents.start('asker', { input: 'Ask me first', owner: 'bench' })
    await agents.idle()
    const [row] = await agents.inbox
      .list({ runId: run.id, status: 'pending' })
      .then((page) => page.rows)
    if (!row) throw new Error('The bench run did not wait on its question')
    modelCalledAt = 0
    firstTokenAt = 0
    const settledAt = performance.now()
    await agents.inbox.settle(row.id, { answers: { go: ['yes'] } }, { by: 'bench', via: 'api' })
    await agents.idle()
    if (modelCalledAt === 0 || firstTokenAt === 0) throw new Error('The bench run did not stream')
    // Two rounds warm the path first
    if (round < 0) continue
    toModelCall.push(modelCalledAt - settledAt)
    toFirstToken.push(firstTokenAt - settledAt)
    extra.push(firstTokenAt - modelCalledAt)
  }
  await agents.close()
  return {
    toModelCall: spread(toModelCall),
    toFirstToken: spread(toFirstToken),
    extra: spread(extra),
  }
}
