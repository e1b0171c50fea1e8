/*
 * `node ace agents:mcp-token <user>`: an access token for an outside agent
 * (Claude Code, Codex, any MCP client) to ask the inbox's people through
 * its MCP server (docs/guides/mcp_server.md). The token belongs to the
 * app user, through the `mcp.guard`'s model (`mcp.model`); its name is the
 * client's name on rows and in the audit log. `--list` shows a user's
 * tokens, `--revoke <id>` deletes one: its client gets 401 from then on.
 */

import { BaseCommand, args, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'

export default class AgentsMcpToken extends BaseCommand {
  static commandName = 'agents:mcp-token'
  static description = "Make, list or revoke an MCP client's access token for a user"
  static help = [
    'Prints a new access token for an MCP client of the user (shown once).',
    '',
    '{{ binaryName }} agents:mcp-token 1 --name claude-code',
    '{{ binaryName }} agents:mcp-token 1 --list',
    '{{ binaryName }} agents:mcp-token 1 --revoke 7',
  ]
  static options: CommandOptions = { startApp: true }

  @args.string({ description: "The user's id" })
  declare user: string

  @flags.string({ description: 'The client, as rows and the audit log name it', default: 'mcp' })
  declare name: string

  @flags.string({ description: 'Expires after, e.g. 30 days (default: never)' })
  declare expiresIn?: string

  @flags.boolean({ description: "List the user's tokens", default: false })
  declare list: boolean

  @flags.string({ description: 'Revoke the token with this id' })
  declare revoke?: string

  async run() {
    const config = await this.app.container.make('agents.mcp')
    if (!config.config.model) {
      this.logger.error(
        "Name the guard's user model in config/agents.ts: mcp: { model: () => import('#models/user') }"
      )
      this.exitCode = 1
      return
    }
    const { default: User } = await config.config.model()
    const user = await User.findOrFail(this.user).catch(() => null)
    if (!user) {
      this.logger.error(`No user with the id ${this.user}`)
      this.exitCode = 1
      return
    }
    if (this.list) {
      for (const token of await User.accessTokens.all(user)) {
        this.logger.log(`${String(token.identifier).padEnd(8)} ${token.name ?? ''}`)
      }
      return
    }
    if (this.revoke !== undefined) {
      const deleted = await User.accessTokens.delete(user, this.revoke)
      if (deleted === 0) {
        this.logger.error(`User ${this.user} has no token ${this.revoke}`)
        this.exitCode = 1
        return
      }
      this.logger.success(`Revoked token ${this.revoke}: its client gets 401 from now on`)
      return
    }
    const token = await User.accessTokens.create(user, ['mcp'], {
      name: this.name,
      ...(this.expiresIn ? { expiresIn: this.expiresIn } : {}),
    })
    this.logger.info(
      `Token ${String(token.identifier)} (${this.name}) for user ${this.user}, shown once:`
    )
    this.logger.log(token.value!.release())
  }
}
