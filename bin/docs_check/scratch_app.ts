/*
 * The app the docs' TypeScript blocks are compiled in: a scratch AdonisJS 7
 * app under the package's tmp/, where `adonis-agent-inbox` is this package,
 * reached as an app reaches it (a node_modules link, through package.json
 * `exports`: a subpath the package does not export does not resolve), with
 * the provider and auth registered as `node ace add` leaves them. Each
 * block is a module of its own; one TypeScript program checks them all.
 *
 * What the app holds besides is what the docs' examples import from an
 * app and nothing else: its env, auth and Redis config, three Lucid models
 * and the app's own services (declared, not written), and an AI SDK
 * provider. A block that needs more either
 * imports it from here, after adding it below, or is a fragment.
 */

import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import ts from 'typescript'

/** A block to compile, and where it came from */
export type SourceBlock = { file: string; line: number; code: string; lang: string }

export type Failure = { file: string; line: number; message: string }

const json = (value: unknown) => JSON.stringify(value, null, 2)

/** The scratch app's files, as an AdonisJS 7 app lays them out */
const APP_FILES: Record<string, string> = {
  'package.json': json({
    name: 'docs-check-app',
    private: true,
    type: 'module',
    imports: {
      '#controllers/*': './app/controllers/*.js',
      '#models/*': './app/models/*.js',
      '#services/*': './app/services/*.js',
      '#start/*': './start/*.js',
      '#config/*': './config/*.js',
    },
  }),

  // An app's tsconfig; blocks are illustrations, so unused names are no error. The
  // package's `adonis-agent-inbox-source` condition maps each export to its source file.
  'tsconfig.json': json({
    extends: '@adonisjs/tsconfig/tsconfig.app.json',
    compilerOptions: {
      noEmit: true,
      jsx: 'react-jsx',
      moduleDetection: 'force',
      noUnusedLocals: false,
      noUnusedParameters: false,
      customConditions: ['adonis-agent-inbox-source'],
    },
    include: ['**/*'],
    exclude: ['node_modules'],
  }),

  'adonisrc.ts': `import { defineConfig } from '@adonisjs/core/app'

export default defineConfig({
  providers: [
    () => import('@adonisjs/core/providers/app_provider'),
    () => import('@adonisjs/lucid/database_provider'),
    () => import('@adonisjs/auth/auth_provider'),
    () => import('@adonisjs/redis/redis_provider'),
    () => import('adonis-agent-inbox/agent_inbox_provider'),
  ],
  preloads: [() => import('#start/kernel')],
})
`,

  'start/kernel.ts': `import router from '@adonisjs/core/services/router'

router.use([() => import('@adonisjs/auth/initialize_auth_middleware')])
`,

  'start/env.ts': `import { Env } from '@adonisjs/core/env'

export default await Env.create(new URL('../', import.meta.url), {
  NODE_ENV: Env.schema.enum(['development', 'production', 'test'] as const),
  APP_KEY: Env.schema.secret(),
  APP_URL: Env.schema.string({ format: 'url', tld: false }),
  QUEUE_DRIVER: Env.schema.enum(['redis', 'database', 'sync'] as const),
  REDIS_HOST: Env.schema.string({ format: 'host' }),
  REDIS_PORT: Env.schema.number(),
  INBOX_WEBHOOK_URL: Env.schema.string({ format: 'url' }),
  INBOX_WEBHOOK_SECRET: Env.schema.string(),
  CALENDAR_TOKEN: Env.schema.string(),
})
`,

  'config/auth.ts': `import { defineConfig } from '@adonisjs/auth'
import { sessionGuard, sessionUserProvider } from '@adonisjs/auth/session'
import type { InferAuthenticators } from '@adonisjs/auth/types'

const authConfig = defineConfig({
  default: 'web',
  guards: {
    web: sessionGuard({
      useRememberMeTokens: false,
      provider: sessionUserProvider({ model: () => import('#models/user') }),
    }),
  },
})

export default authConfig

declare module '@adonisjs/auth/types' {
  export interface Authenticators extends InferAuthenticators<typeof authConfig> {}
}
`,

  'config/redis.ts': `import env from '#start/env'
import { defineConfig } from '@adonisjs/redis'
import type { InferConnections } from '@adonisjs/redis/types'

const redisConfig = defineConfig({
  connection: 'main',
  connections: {
    main: { host: env.get('REDIS_HOST'), port: env.get('REDIS_PORT') },
  },
})

export default redisConfig

declare module '@adonisjs/redis/types' {
  export interface RedisConnections extends InferConnections<typeof redisConfig> {}
}
`,

  'app/models/user.ts': `import { BaseModel, column } from '@adonisjs/lucid/orm'
import { DbAccessTokensProvider } from '@adonisjs/auth/access_tokens'

export default class User extends BaseModel {
  @column({ isPrimary: true })
  declare id: number

  @column()
  declare email: string

  @column()
  declare fullName: string

  @column()
  declare role: string

  @column()
  declare isAdmin: boolean

  @column()
  declare timeZone: string

  @column()
  declare wantsDigest: boolean

  // The MCP server's clients (docs/guides/mcp_server.md)
  static accessTokens = DbAccessTokensProvider.forModel(User)
}
`,

  'app/models/order.ts': `import { BaseModel, column } from '@adonisjs/lucid/orm'

export default class Order extends BaseModel {
  @column({ isPrimary: true })
  declare id: number

  @column()
  declare status: 'open' | 'refunded'

  @column()
  declare total: number

  @column()
  declare chargeId: string
}
`,

  'app/models/refund.ts': `import { BaseModel, column } from '@adonisjs/lucid/orm'

export default class Refund extends BaseModel {
  @column({ isPrimary: true })
  declare id: number

  @column()
  declare orderId: number

  @column()
  declare amount: number

  @column()
  declare approvedBy: string | null
}
`,

  // The app's health checks, which a route of the operating guide reports
  'start/health.ts': `import { HealthChecks } from '@adonisjs/core/health'

export const healthChecks = new HealthChecks()
`,

  // The app's own code the examples call, declared: the docs show calling it, not writing it
  'types/app_services.d.ts': `declare module '#services/deploys' {
  export function deployBranch(branch: string): Promise<{ url: string }>
  export function tailLogs(service: string): Promise<string[]>
}

declare module '#services/slack' {
  export const slack: import('adonis-agent-inbox/slack').SlackChannel
}

declare module '#services/notices' {
  export function notifyOwner(ownerId: string | null, rowId: string): Promise<void>
}

declare module '#services/payments' {
  const payments: { refund(orderId: string, amount: number): Promise<{ id: string }> }
  export default payments
}

declare module '#services/stripe' {
  type Refunds = {
    create(
      params: { charge: string; amount: number },
      options: { idempotencyKey: string }
    ): Promise<{ id: string }>
  }
  const stripe: { refunds: Refunds }
  export default stripe
}

declare module '#services/invoices' {
  export type InvoiceMail = { to: string; subject: string; html: string }
  export function invoiceMail(invoiceId: string): Promise<InvoiceMail>
  export const postmark: {
    send(mail: InvoiceMail, options: { headers: Record<string, string> }): Promise<{ id: string }>
  }
}

// Any AI SDK provider the app installs
declare module '@ai-sdk/openai' {
  export function openai(modelId: string): import('ai').LanguageModel
}
`,
}

/**
 * Compiles each block as a module of the scratch app, against the package
 * at `packageRoot`, and returns TypeScript's errors at the Markdown line
 * they are on. The scratch app lives under `packageRoot`/tmp (so the app
 * finds the package's dependencies as its own) and is removed afterwards.
 */
export async function compileBlocks(
  blocks: SourceBlock[],
  packageRoot: string
): Promise<Failure[]> {
  if (blocks.length === 0) return []
  await mkdir(join(packageRoot, 'tmp'), { recursive: true })
  const app = await mkdtemp(join(packageRoot, 'tmp', 'docs_check-'))
  try {
    for (const [path, contents] of Object.entries(APP_FILES)) {
      await mkdir(dirname(join(app, path)), { recursive: true })
      await writeFile(join(app, path), contents)
    }
    await mkdir(join(app, 'node_modules'))
    await symlink(packageRoot, join(app, 'node_modules', 'adonis-agent-inbox'), 'dir')

    const sources = new Map<string, SourceBlock>()
    for (const [at, block] of blocks.entries()) {
      const name = `${block.file.replace(/[^\w]+/g, '_')}_${block.line}_${at}`
      const path = join(app, 'blocks', `${name}.${block.lang === 'tsx' ? 'tsx' : 'ts'}`)
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, block.code + '\n')
      sources.set(path, block)
    }
    return diagnose(app, sources)
  } finally {
    await rm(app, { recursive: true, force: true })
  }
}

/** One program over the app; the errors of the blocks' files and of the app's own */
function diagnose(app: string, sources: Map<string, SourceBlock>): Failure[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(app, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} }
  )
  if (!config) throw new Error(`docs:check: cannot read ${join(app, 'tsconfig.json')}`)
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options })

  const failures: Failure[] = []
  const global = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ]
  for (const diagnostic of global) {
    failures.push({ file: 'tsconfig.json (docs:check app)', line: 0, message: text(diagnostic) })
  }
  for (const file of program.getRootFileNames()) {
    const source = program.getSourceFile(file)
    if (!source) continue
    const block = sources.get(file)
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]
    for (const diagnostic of diagnostics) {
      const at = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line
      failures.push(
        block
          ? { file: block.file, line: block.line + at, message: text(diagnostic) }
          : {
              file: `${relative(app, file)} (docs:check app)`,
              line: at + 1,
              message: text(diagnostic),
            }
      )
    }
  }
  return failures
}

function text(diagnostic: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
  return `TS${diagnostic.code}: ${message.replace(/\s*\n\s*/g, ' ')}`
}
