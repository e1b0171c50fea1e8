/*
 * A real Adonis HTTP server for the inbox's API tests: the app of
 * tests/helpers/database.ts in the web environment, with the body parser,
 * the inbox routes, a stock exception handler, and a Node http server on a
 * loopback port.
 */

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ExceptionHandler } from '@adonisjs/core/http'
import type { ApplicationService } from '@adonisjs/core/types'
import { createTestApp, type TestAppOptions } from './database.ts'
import { registerInboxRoutes } from '../../src/http/register_routes.ts'

/**
 * The exception handler of a generated app (app/exceptions/handler.ts),
 * unchanged: errors that render themselves are answered by their `handle`.
 */
class HttpExceptionHandler extends ExceptionHandler {}

/**
 * Transmit's route controllers reach its instance through a service module
 * that binds, once per process, to the app booted when it is first
 * imported: in a test process that boots many apps, every later app's
 * `/__transmit` routes would open streams and subscriptions on the first
 * app's instance, where this app never broadcasts. An app has one process
 * of its own; here the service's instance hands the three calls its
 * controllers make to this app's instance.
 */
async function pointTransmitRoutesAt(app: ApplicationService) {
  const own = await app.container.make('transmit')
  const { default: shared } = await import('@adonisjs/transmit/services/main')
  if (!shared || shared === own) return
  const controllerCalls = ['createStream', 'subscribe', 'unsubscribe'] as const
  for (const call of controllerCalls) {
    Object.assign(shared, { [call]: (own[call] as (...args: unknown[]) => unknown).bind(own) })
  }
}

/**
 * Boots the app and listens on 127.0.0.1, on TEST_HTTP_PORT (set by bin/test.ts)
 * so the Japa api client reaches it, unless `port` is given.
 */
export async function createHttpApp(options: TestAppOptions & { port?: number } = {}) {
  const testApp = await createTestApp({
    ...options,
    environment: 'web',
    preload: async (app) => {
      const router = await app.container.make('router')
      router.use([() => import('@adonisjs/core/bodyparser_middleware')])
      registerInboxRoutes(router)
      await options.preload?.(app)
    },
  })
  if (testApp.app.container.hasBinding('transmit')) await pointTransmitRoutesAt(testApp.app)
  const server = await testApp.app.container.make('server')
  server.errorHandler(async () => ({ default: HttpExceptionHandler }))
  await server.boot()
  const http: Server = createServer((req, res) => server.handle(req, res))
  // A port already taken fails the suite at once instead of leaving it waiting here
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port ?? Number(process.env.TEST_HTTP_PORT ?? 0), '127.0.0.1', resolve)
  })
  const { port } = http.address() as AddressInfo

  return {
    ...testApp,
    /** The Node server, for its settings (the bench keeps idle connections longer) */
    httpServer: http,
    baseUrl: `http://127.0.0.1:${port}`,
    async terminate() {
      await new Promise((resolve) => http.close(resolve))
      await testApp.terminate()
    },
  }
}
