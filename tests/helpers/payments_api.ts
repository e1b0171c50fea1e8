/*
 * A fake external API for the exactly-once tests: a real HTTP server on
 * loopback that takes `POST /refunds` with an `Idempotency-Key` header, as
 * payment providers do. It records every request it receives, and applies
 * a refund once per key (a repeated key is answered as the first, and
 * applies nothing). It may refuse the first request of some keys with a
 * 503, to make a delivery fail.
 */

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type PaymentsRequest = { key: string; body: { orderId: number; amount: number } }

/**
 * Starts the API; `close()` when done.
 *
 * @example
 * const api = await startPaymentsApi({ failFirst: (body) => body.orderId === 3 })
 */
export async function startPaymentsApi(
  options: { failFirst?: (body: PaymentsRequest['body']) => boolean } = {}
) {
  const requests: PaymentsRequest[] = []
  const applied = new Map<string, PaymentsRequest['body']>()
  const refused = new Set<string>()
  const server = createServer((request, response) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => {
      const key = String(request.headers['idempotency-key'] ?? '')
      const body = JSON.parse(text || '{}')
      requests.push({ key, body })
      response.setHeader('content-type', 'application/json')
      if (request.url !== '/refunds' || !key) {
        response.statusCode = 400
        response.end('{"error":"POST /refunds with an Idempotency-Key"}')
        return
      }
      if (options.failFirst?.(body) && !refused.has(key)) {
        refused.add(key)
        response.statusCode = 503
        response.end('{"error":"try again"}')
        return
      }
      const replayed = applied.has(key)
      if (!replayed) applied.set(key, body)
      response.end(JSON.stringify({ replayed }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    applied,
    /** How many requests carried `key` */
    seen: (key: string) => requests.filter((item) => item.key === key).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
