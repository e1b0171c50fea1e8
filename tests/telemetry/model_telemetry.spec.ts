/*
 * The AI SDK's telemetry on the package's model calls: on for whoever
 * listens (an integration registered with `registerTelemetry`, or a
 * subscriber on the AI SDK's `ai:telemetry` tracing channel), each call
 * named after its agent; off when nobody does, so the AI SDK does not copy
 * and filter every event of every step for nobody (src/telemetry/tracing.ts).
 */

import { tracingChannel } from 'node:diagnostics_channel'
import { test } from '@japa/runner'
import { createTestApp, dbName } from '../helpers/database.ts'
import { call, createAgents, say, scriptedModel } from '../helpers/runtime.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { modelTelemetry } from '../../src/telemetry/tracing.ts'

type Integrations = { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] }

/** A run of agent `named`: one model call with a tool call, one with the answer */
async function driveOne(named: string) {
  const runtime = createAgents({
    agents: [
      defineAgent({
        name: named,
        instructions: 'Answer.',
        model: scriptedModel([() => [call('c1', 'missing', {})], () => [say('done')]], {
          by: 'turn',
        }),
      }),
    ],
  })
  const run = await runtime.start(named, { input: 'go', owner: null })
  await runtime.idle()
  await run.refresh()
  return run
}

test.group(`Model calls' telemetry | ${dbName()}`, (group) => {
  group.setup(async () => {
    const testApp = await createTestApp()
    return () => testApp.terminate()
  })

  test('off when no integration is registered and nobody subscribes', ({ assert }) => {
    assert.isUndefined((globalThis as Integrations).AI_SDK_TELEMETRY_INTEGRATIONS?.[0])
    assert.deepEqual(modelTelemetry('helper'), { isEnabled: false })
  })

  test('a registered integration hears every model call, named after the agent', async ({
    assert,
    cleanup,
  }) => {
    const heard: unknown[] = []
    const integration = {
      onStart: (event: { functionId?: string }) => heard.push(event.functionId),
    }
    const global = globalThis as Integrations
    const before = global.AI_SDK_TELEMETRY_INTEGRATIONS
    global.AI_SDK_TELEMETRY_INTEGRATIONS = [integration]
    cleanup(() => {
      global.AI_SDK_TELEMETRY_INTEGRATIONS = before
    })

    const run = await driveOne('registered')
    assert.equal(run.status, 'completed')
    assert.deepEqual(heard, ['registered', 'registered'])
  })

  test("a subscriber on the AI SDK's tracing channel hears every model call", async ({
    assert,
    cleanup,
  }) => {
    const heard: string[] = []
    const channel = tracingChannel('ai:telemetry')
    const subscriber = {
      start: (message: unknown) => {
        const { type, event } = message as { type: string; event: { functionId?: string } }
        heard.push(`${type} ${event.functionId}`)
      },
      end: () => {},
      asyncStart: () => {},
      asyncEnd: () => {},
      error: () => {},
    }
    channel.subscribe(subscriber)
    cleanup(() => channel.unsubscribe(subscriber))

    const run = await driveOne('subscribed')
    assert.equal(run.status, 'completed')
    // One `generateText` per step, each with its spans (its step, its model call) inside
    const calls = heard.filter((line) => line.startsWith('generateText '))
    assert.deepEqual(calls, ['generateText subscribed', 'generateText subscribed'])
    assert.includeMembers(heard, ['step subscribed'])
  })
})
