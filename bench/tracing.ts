/*
 * Tracing on, for the step bench: a real OpenTelemetry SDK provider (the
 * one `@adonisjs/otel` registers), the async-hooks context manager and an
 * in-memory exporter emptied after each run, registered globally as an app
 * does. `off()` returns the process to no provider at all, the state the
 * other figures are measured in.
 */

import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'

export function tracingOn() {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  trace.setGlobalTracerProvider(provider)
  const manager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(manager)
  return {
    /** Spans finished so far */
    spans: () => exporter.getFinishedSpans().length,
    async off() {
      await provider.shutdown()
      trace.disable()
      context.disable()
    },
  }
}
