/*
 * A web app of the notification suites: the inbox's routes, `@adonisjs/mail`
 * sending to a real SMTP server on loopback (./smtp.ts), a webhook
 * receiver, and people whose preferences a test sets (mail at once, a
 * digest, the webhook). Rows are opened as waits outside the runtime, so
 * nothing resumes a run behind the test's back.
 */

import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defineConfig } from '../../src/define_config.ts'
import { mailNotifier } from '../../src/notify/mail_notifier.ts'
import { webhookNotifier } from '../../src/notify/webhook_notifier.ts'
import type { Preferences } from '../../src/notify/schedule.ts'
import type { LadderStep } from '../../src/governance/ladder.ts'
import { createHttpApp } from './http.ts'
import type { TestAppOptions } from './database.ts'
import { startSmtpSink } from './smtp.ts'
import { mailConfig } from './smtp.ts'

export const WEBHOOK_SECRET = 'whsec_test'

/**
 * A loopback receiver keeping each POST's raw body, headers and the status
 * it answered: 200, or 503 for the next `failures` POSTs (a receiver down)
 */
export async function startWebhookSink() {
  const posts: { body: string; headers: IncomingMessage['headers']; status: number }[] = []
  const sink = {
    url: '',
    posts,
    failures: 0,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const status = sink.failures > 0 ? 503 : 200
      if (status !== 200) sink.failures--
      posts.push({ body, headers: req.headers, status })
      res.statusCode = status
      res.end(status === 200 ? 'ok' : 'down')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return sink
}

export async function createNotifyingApp(options: Pick<TestAppOptions, 'preload'> = {}) {
  const smtp = await startSmtpSink()
  const webhook = await startWebhookSink()
  const people: Record<string, Preferences | null> = {}
  const port = Number(process.env.TEST_HTTP_PORT)
  const testApp = await createHttpApp({
    providers: [() => import('@adonisjs/mail/mail_provider')],
    config: { mail: mailConfig(smtp.port) },
    preload: options.preload,
    agents: defineConfig({
      notifications: {
        notifiers: [mailNotifier(), webhookNotifier({ url: webhook.url, secret: WEBHOOK_SECRET })],
        baseUrl: `http://127.0.0.1:${port}`,
        preferences: (id) => (id in people ? people[id] : { email: `${id}@example.test` }),
      },
    }),
  })
  const agents = await testApp.app.container.make('agents.runtime')
  const notifications = (await testApp.app.container.make('agents.notifications'))!
  return {
    ...testApp,
    smtp,
    webhook,
    people,
    agents,
    notifications,
    /** An approval waiting for `owner`, opened outside any run */
    openApproval(owner: string, summary = 'Deploy main', ladder?: LadderStep[]) {
      return agents.inbox.open(
        { id: null, ownerId: owner },
        { kind: 'action', toolName: 'deploy', args: { branch: 'main' }, summary },
        { ladder }
      )
    },
    async terminate() {
      await testApp.terminate()
      await smtp.close()
      await webhook.close()
    },
  }
}
