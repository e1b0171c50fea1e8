/*
 * `mcp` in config/agents.ts: how the inbox's MCP server (docs/design.md
 * §7.8) names its clients, who answers them, how long a person has and how
 * long a call without tasks waits. Pure: defaults and checks, no I/O.
 */

import type { ExpiryRule } from '../questions/settle.ts'
import type { LadderStep } from '../governance/ladder.ts'
import { durationMs, type Duration, type GrantChoice } from '../governance/grant_rules.ts'

/**
 * Who calls: the client an access token names, and the app user it maps to.
 */
export type McpClient = {
  /** The app user the token belongs to, as the inbox names people (`identify`) */
  userId: string
  /** The token's id (`auth_access_tokens.id`) */
  tokenId: string
  /** The token's name (`agents:mcp-token --name`), else `token <id>` */
  name: string
}

/**
 * What the owner hook is asked: who is asking, through which tool, and the
 * `to` the client named (a person or a group the app knows), if any.
 */
export type McpAskContext = {
  client: McpClient
  tool: 'ask_human' | 'request_approval'
  to: string | null
}

/**
 * The Lucid model of the guard's users, with its access tokens
 * (`static accessTokens = DbAccessTokensProvider.forModel(User)`): what
 * `node ace agents:mcp-token` makes, lists and revokes tokens with.
 */
export type McpTokensModel = {
  findOrFail(id: unknown): Promise<unknown>
  accessTokens: {
    create(
      user: any,
      abilities?: string[],
      options?: { name?: string; expiresIn?: string | number }
    ): Promise<{ identifier: string | number | BigInt; value?: { release(): string } }>
    all(user: any): Promise<{ identifier: string | number | BigInt; name: string | null }[]>
    delete(user: any, identifier: string | number | BigInt): Promise<number>
  }
}

export type McpServerConfig = {
  /** The `@adonisjs/auth` access-tokens guard that checks a client's token; default `api` */
  guard?: string
  /** The guard's user model, imported lazily: `() => import('#models/user')` (for the token command) */
  model?: () => Promise<{ default: McpTokensModel }>
  /** How the guard's user is named as a person of the inbox; default `String(user.id)` */
  identify?: (user: any) => string
  /**
   * Who answers (the row's owner): a person's id, or a group's as the app's
   * `inbox.authorize` lets its members settle it; null refuses the call.
   * Default: the token's own user.
   */
  owner?: (context: McpAskContext) => string | null | Promise<string | null>
  /** How long a person has (ms, or `90m`, `24h`, `7d`); default 24 h */
  expiresIn?: Duration
  /** What expiry does: a question set takes its defaults, an approval is rejected (defaults) */
  onExpiry?: { ask?: ExpiryRule; approval?: ExpiryRule }
  /** Escalation steps before the expiry (docs/design.md §7.7) */
  ladder?: LadderStep[]
  /** What an approval card may remember (§11.2); `args` keys may pin `client` */
  grants?: GrantChoice[]
  /** How long a call without a task waits for the answer before "still pending" (ms); default 25 s */
  wait?: number
  /** How often a task's client should poll, and a wait reads its row back (ms); default 2 s */
  pollInterval?: number
}

export type ResolvedMcpConfig = Required<
  Omit<McpServerConfig, 'ladder' | 'onExpiry' | 'expiresIn' | 'model'>
> & {
  model?: McpServerConfig['model']
  ladder?: LadderStep[]
  expiresIn: number
  onExpiry: { ask: ExpiryRule; approval: ExpiryRule }
}

/**
 * The config with its defaults; throws on a duration that does not parse.
 *
 * @example
 * resolveMcpConfig({ wait: 10_000 }).expiresIn // 86_400_000
 */
export function resolveMcpConfig(config: McpServerConfig = {}): ResolvedMcpConfig {
  const wait = config.wait ?? 25_000
  const pollInterval = config.pollInterval ?? 2_000
  for (const [name, value] of Object.entries({ wait, pollInterval })) {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`Invalid "mcp.${name}" in config/agents.ts: milliseconds, >= 0`)
    }
  }
  return {
    guard: config.guard ?? 'api',
    model: config.model,
    identify: config.identify ?? ((user) => String(user.id)),
    owner: config.owner ?? (({ client }) => client.userId),
    expiresIn: durationMs(config.expiresIn ?? '24h'),
    onExpiry: { ask: 'defaults', approval: 'reject', ...config.onExpiry },
    ladder: config.ladder,
    grants: config.grants ?? [],
    wait,
    pollInterval,
  }
}

/**
 * What a row opened for `client` carries in `tool_call_id`: who asked, so
 * only that user's clients collect its answer (`mcp:<user>:<token>`).
 */
export function askerTag(client: McpClient): string {
  return `${askerPrefix(client.userId)}${client.tokenId}`
}

/** The start of every tag of `userId`'s clients */
export function askerPrefix(userId: string): string {
  return `mcp:${encodeURIComponent(userId)}:`
}
