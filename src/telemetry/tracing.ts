/*
 * Traces through the OpenTelemetry API. `@opentelemetry/api` is an optional
 * peer, imported here once and lazily: an app without it loads the package
 * all the same and every span below is a plain call of its work. With the
 * API but no provider registered (no `@adonisjs/otel`, no SDK), the API's
 * own no-op tracer answers. The app's provider, registered globally as
 * `@adonisjs/otel` does, is what makes the spans real: the package never
 * registers one itself.
 *
 * What a span may carry is decided here too (`configureTracing`): the
 * model's inputs and outputs and a person's answers are left out unless
 * the app asks for them. Names follow the OpenTelemetry GenAI semantic
 * conventions where one applies (`gen_ai.*`); the rest are
 * `agent_inbox.*`. Which span opens where: docs/guides/operating.md.
 */

import { tracingChannel } from 'node:diagnostics_channel'
import type { Attributes, Link, Span, SpanContext, Tracer } from '@opentelemetry/api'
import { otel as api } from './otel_api.ts'

/**
 * The package's tracer: the API's proxy, which turns real once the app
 * registers a provider. Asked again only when the global provider was
 * replaced (`trace.disable()` then another registration).
 */
let cached: { provider: unknown; tracer: Tracer } | undefined
function tracerOf(traceApi: NonNullable<typeof api>['trace']): Tracer {
  const provider = traceApi.getTracerProvider()
  if (!cached || cached.provider !== provider) {
    cached = { provider, tracer: traceApi.getTracer('adonis-agent-inbox') }
  }
  return cached.tracer
}

/**
 * What traces may carry, from `tracing` in config/agents.ts.
 */
export type TracingOptions = {
  /** Record the model's prompt in the AI SDK's spans; default false */
  recordInputs?: boolean
  /** Record the model's text and tool calls in the AI SDK's spans; default false */
  recordOutputs?: boolean
  /** Record a person's answer (the outcome's text) on the wait's span; default false */
  recordAnswers?: boolean
}

const settings: Required<TracingOptions> = {
  recordInputs: false,
  recordOutputs: false,
  recordAnswers: false,
}

/**
 * Sets what traces may carry; the provider calls it with the config.
 */
export function configureTracing(options: TracingOptions = {}) {
  settings.recordInputs = options.recordInputs ?? false
  settings.recordOutputs = options.recordOutputs ?? false
  settings.recordAnswers = options.recordAnswers ?? false
}

/** Whether a wait's span may carry the answer */
export function recordsAnswers(): boolean {
  return settings.recordAnswers
}

/** The AI SDK's own tracing channel, which an integration may subscribe to instead of registering */
const aiChannel = tracingChannel('ai:telemetry')

/**
 * The AI SDK's `telemetry` option for a model call: its own spans (with
 * an integration such as `@ai-sdk/otel` registered) nest under the step's
 * span, the prompt and the response left out unless configured. Off when
 * nothing would receive them (no integration registered, no subscriber on
 * its tracing channel): the AI SDK still copies and filters every event of
 * the call for telemetry it was given, about a third of a bare call's cost
 * (bench/durable_step.ts).
 */
export function modelTelemetry(agent: string) {
  const integrations = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] })
    .AI_SDK_TELEMETRY_INTEGRATIONS
  if (!integrations?.length && !aiChannel.hasSubscribers) return { isEnabled: false as const }
  return {
    functionId: agent,
    recordInputs: settings.recordInputs,
    recordOutputs: settings.recordOutputs,
  }
}

/** A span's work when nothing traces: every method a no-op */
const NO_SPAN = {
  setAttribute: () => NO_SPAN,
  setAttributes: () => NO_SPAN,
  addLink: () => NO_SPAN,
  addLinks: () => NO_SPAN,
  updateName: () => NO_SPAN,
  isRecording: () => false,
} as unknown as Span

export type SpanOptions = {
  links?: Link[]
  /** When the span began, if before now (a wait opened days ago) */
  startTime?: Date
  /** The parent, when not the active span (a wait's is the drive that opened it) */
  parent?: SpanContext
  kind?: 'internal' | 'consumer'
}

/**
 * Runs `work` in a span named `name`, made active for what `work` calls
 * (the AI SDK's spans, the database's), ended when `work` settles and
 * marked as an error when it throws.
 *
 * @example
 * await inSpan('agent_inbox.sweep', {}, () => sweepDue())
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  options: SpanOptions = {}
): Promise<T> {
  if (!api) return work(NO_SPAN)
  const { trace, context, SpanKind } = api
  const tracer = tracerOf(trace)
  const parent = options.parent ? trace.setSpanContext(context.active(), options.parent) : undefined
  const spanOptions = {
    attributes,
    links: options.links,
    startTime: options.startTime,
    kind: options.kind === 'consumer' ? SpanKind.CONSUMER : SpanKind.INTERNAL,
  }
  const run = async (span: Span) => {
    try {
      return await work(span)
    } catch (error) {
      failed(span, error)
      throw error
    } finally {
      span.end()
    }
  }
  return parent
    ? tracer.startActiveSpan(name, spanOptions, parent, run)
    : tracer.startActiveSpan(name, spanOptions, run)
}

/**
 * Records a span that already happened and has no work of its own left
 * (a wait, opened by one process, settled by another): started at
 * `options.startTime`, ended now.
 */
export function recordSpan(name: string, attributes: Attributes, options: SpanOptions) {
  if (!api) return
  const { trace, context } = api
  const parent = options.parent
    ? trace.setSpanContext(context.active(), options.parent)
    : context.active()
  tracerOf(trace)
    .startSpan(name, { attributes, links: options.links, startTime: options.startTime }, parent)
    .end()
}

/** Marks `span` as failed by `error` */
export function failed(span: Span, error: unknown) {
  if (!span.isRecording()) return
  span.recordException(error instanceof Error ? error : String(error))
  span.setStatus({ code: 2, message: error instanceof Error ? error.message : String(error) })
}

/**
 * The active span, or the no-op one: to add attributes or links to the
 * span a caller opened (the drive's, from inside its loop).
 */
export function activeSpan(): Span {
  return api?.trace.getActiveSpan() ?? NO_SPAN
}
