/*
 * `@opentelemetry/api`, an optional peer, imported once for the traces
 * (./tracing.ts) and the metrics (./metrics.ts): undefined when the app
 * has not installed it, and then every span and every recorder of the
 * package is a plain call of its work. With the API but no SDK
 * registered, its own no-op tracer and meter answer.
 */

type Api = typeof import('@opentelemetry/api')

export const otel: Api | undefined = await import('@opentelemetry/api').catch(() => undefined)
