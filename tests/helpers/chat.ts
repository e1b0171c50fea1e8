/*
 * A streaming chat agent for the chat suites: its scripted model reads the
 * whole prompt, so what it says shows what it was sent of the earlier turns.
 * "ask me" asks DB_QUESTION, "deploy …" calls the deploy action; anything
 * else is answered with the turn's number, every message the person sent
 * and what the agent said before.
 */

import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import type { ToolDefinition } from '../../src/runtime/define_tool.ts'
import { ask, call, DB_QUESTION, say, scriptedModel } from './runtime.ts'

/** The text of every message of `role` in a model call's prompt, in order */
export function textsOf(prompt: LanguageModelV4CallOptions['prompt'], role: 'user' | 'assistant') {
  return prompt
    .filter((message) => message.role === role)
    .map((message) =>
      (message.content as { type: string; text?: string }[])
        .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
        .join('')
    )
    .filter((text) => text !== '')
}

/**
 * The chat agent; `hold`, when given, is awaited before each streamed step's
 * first piece (a test keeps a turn live while it reconnects).
 */
export function chatAgent(deploy: ToolDefinition, hold?: () => Promise<void>) {
  return defineAgent({
    name: 'chatter',
    instructions: 'Chat with the person.',
    stream: true,
    tools: [deploy],
    model: scriptedModel(
      (context) => {
        const users = textsOf(context.prompt, 'user')
        const last = users.at(-1) ?? ''
        if (context.results.length > 0) {
          return [say(`Noted: ${context.results.map((result) => result.value).join('; ')}`)]
        }
        if (last === 'ask me') return [say('One question first.'), ask('q1', DB_QUESTION)]
        if (last.startsWith('deploy')) return [call('d1', 'deploy', { branch: 'main' })]
        const before = textsOf(context.prompt, 'assistant')
        const earlier = before.length > 0 ? `. I said before: ${before.join(' | ')}` : ''
        return [say(`Turn ${users.length}. You said: ${users.join(' | ')}${earlier}`)]
      },
      { stream: { chunkSize: 4, onChunk: (index) => (index === 0 ? hold?.() : undefined) } }
    ),
  })
}
