/*
 * `adonis-agent-inbox/testing`: what an app needs to test its agents with
 * Japa, without a model API or a browser. A scripted model on the AI SDK's
 * mock model (scripted_model.ts), a runtime for a test and a way to drive a
 * run to its next wait (runtime.ts), answering rows by a policy
 * (`inbox.autoAnswer`, src/inbox/auto_answer.ts) and assertions about runs
 * (assertions.ts). The package's own tests and demo use the same kit.
 *
 * May import the runtime, the inbox, persistence and the question model;
 * never the HTTP side. Nothing in src/ imports it.
 */

export {
  ask,
  call,
  failWith,
  generateResult,
  offeredTools,
  promptText,
  providerError,
  say,
  scriptedModel,
  systemText,
  toolResults,
  type ScriptOptions,
  type ScriptStep,
  type SentToolResult,
  type StreamOptions,
  type TurnContext,
} from './scripted_model.ts'
export {
  drive,
  fakeModel,
  testAgents,
  type DriveResult,
  type TestAgentsOptions,
} from './runtime.ts'
export { agentAssertions } from './assertions.ts'
export { autoReply, type AutoAnswerRule } from '../inbox/auto_answer.ts'
