/*
 * A loopback fake of Slack's Web API, speaking its wire format:
 * `POST /api/<method>` with a form or JSON body and a bearer token,
 * answering `{ ok, error }` JSON (200 even for an API error, as Slack
 * does), a 429 with Retry-After or a 500 for the next queued `failures`.
 * It also takes the payloads' `response_url` posts. And a signer of
 * interactivity payloads as Slack sends them.
 */

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { signSlackRequest } from '../../src/slack/signature.ts'

export const SLACK_TOKEN = 'xoxb-test-token'
export const SLACK_SECRET = 'slack-signing-secret'

export type SlackCall = { method: string; args: Record<string, any> }

export async function startFakeSlack() {
  const calls: SlackCall[] = []
  const responses: Record<string, any>[] = []
  let next = 1
  const fake = {
    url: '',
    calls,
    responses,
    /** Statuses the next chat.postMessage calls get: 429 (Retry-After: 30) or 500 */
    failures: [] as number[],
    /** chat.update calls answered 500 before one succeeds */
    updateFailures: 0,
    of: (method: string) => calls.filter((call) => call.method === method),
    close: () => new Promise((resolve) => server.close(resolve)),
  }
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const json = (status: number, value: object, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(JSON.stringify(value))
      }
      if (req.url === '/response') {
        responses.push(JSON.parse(body))
        return json(200, { ok: true })
      }
      const method = req.url!.replace(/^\/api\//, '')
      if (req.headers.authorization !== `Bearer ${SLACK_TOKEN}`) {
        return json(200, { ok: false, error: 'invalid_auth' })
      }
      const args: Record<string, any> = req.headers['content-type']?.includes('json')
        ? JSON.parse(body)
        : Object.fromEntries(new URLSearchParams(body))
      for (const key of ['blocks', 'view'])
        if (typeof args[key] === 'string') args[key] = JSON.parse(args[key])
      if (method === 'chat.postMessage' && fake.failures.length > 0) {
        const status = fake.failures.shift()!
        calls.push({ method: `refused:${status}`, args })
        if (status === 429)
          return json(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '120' })
        return json(status, { ok: false, error: 'internal_error' })
      }
      if (method === 'chat.update' && fake.updateFailures > 0) {
        fake.updateFailures--
        calls.push({ method: 'refused:update', args })
        return json(500, { ok: false, error: 'internal_error' })
      }
      calls.push({ method, args })
      if (method === 'chat.postMessage') {
        const channel = String(args.channel).startsWith('U') ? `D${args.channel}` : args.channel
        return json(200, { ok: true, channel, ts: `1700000000.${String(next++).padStart(6, '0')}` })
      }
      if (method === 'chat.update')
        return json(200, { ok: true, channel: args.channel, ts: args.ts })
      if (method === 'views.open') {
        if (!args.trigger_id) return json(200, { ok: false, error: 'invalid_trigger_id' })
        return json(200, { ok: true, view: { id: 'V1', ...args.view } })
      }
      return json(200, { ok: false, error: 'unknown_method' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return fake
}

/** An interactivity request as Slack sends it: `payload=<json>`, form-encoded, signed */
export function signedInteraction(
  payload: object,
  options: { secret?: string; at?: number } = {}
): { body: string; headers: Record<string, string> } {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString()
  const at = options.at ?? Math.floor(Date.now() / 1000)
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(at),
      'x-slack-signature': signSlackRequest(options.secret ?? SLACK_SECRET, body, at),
    },
  }
}
