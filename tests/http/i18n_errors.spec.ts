/*
 * Error messages through `@adonisjs/i18n`, in an app that has it: the
 * package reads the request's `ctx.i18n` (set by the app's detect-locale
 * middleware, as the i18n package's stub writes it) and looks its messages
 * up as `agent_inbox.<code>` and field errors as `agent_inbox.rules.<rule>`,
 * with the data to interpolate; a language without a translation gets the
 * English message. The codes and the meta never change with the language.
 */

import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from '@japa/runner'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import type { ApplicationService } from '@adonisjs/core/types'
import { defineConfig as defineI18nConfig, formatters, loaders } from '@adonisjs/i18n'
import { dbName } from '../helpers/database.ts'
import { createHttpApp } from '../helpers/http.ts'
import { createActionRow, createAskRow } from '../helpers/rows.ts'
import { say, scriptedModel } from '../helpers/runtime.ts'
import { defineConfig } from '../../src/define_config.ts'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'

/** The app's translations of the package's messages: resources/lang/fr/agent_inbox.json */
const FRENCH = {
  E_ALREADY_SETTLED:
    'La ligne {rowId} a déjà été réglée par {settledBy} via {settledVia}. Rechargez pour voir le résultat',
  E_FORBIDDEN: 'Vous ne pouvez pas régler cette ligne',
  rules: { boolean: '{field} doit valoir vrai ou faux' },
}

/** The middleware `node ace make:middleware detect_user_locale` writes, trimmed */
function detectUserLocale(app: ApplicationService) {
  return class DetectUserLocaleMiddleware {
    async handle(ctx: HttpContext, next: NextFn) {
      const i18nManager = await app.container.make('i18n')
      const language = i18nManager.getSupportedLocaleFor(ctx.request.languages())
      Object.assign(ctx, { i18n: i18nManager.locale(language || i18nManager.defaultLocale) })
      return next()
    }
  }
}

const person = (name: string, language: string) => ({
  'x-person': name,
  'accept': 'application/json',
  'accept-language': language,
})

test.group(`Errors | @adonisjs/i18n | ${dbName()}`, (group) => {
  let lang: string

  group.setup(async () => {
    lang = await mkdtemp(join(tmpdir(), 'agent-inbox-lang-'))
    await mkdir(join(lang, 'fr'))
    await writeFile(join(lang, 'fr', 'agent_inbox.json'), JSON.stringify(FRENCH))
    const httpApp = await createHttpApp({
      agents: defineConfig({
        agents: [
          defineAgent({
            name: 'deployer',
            model: scriptedModel([[say('done')]]),
            instructions: 'x',
          }),
        ],
        inbox: { identify: (ctx) => ctx.request.header('x-person') ?? null },
      }),
      providers: [() => import('@adonisjs/i18n/i18n_provider')],
      config: {
        i18n: defineI18nConfig({
          defaultLocale: 'en',
          supportedLocales: ['en', 'fr'],
          formatter: formatters.icu(),
          loaders: [loaders.fs({ location: lang })],
        }),
      },
      preload: async (app) => {
        const router = await app.container.make('router')
        router.use([async () => ({ default: detectUserLocale(app) })])
      },
    })
    return async () => {
      await httpApp.terminate()
      await rm(lang, { recursive: true, force: true })
    }
  })

  group.each.setup(async () => {
    await ToolCall.query().delete()
  })

  test('a 409 speaks the translation, with the row and who settled it interpolated', async ({
    client,
    assert,
  }) => {
    const row = await createAskRow()
    const reply = { answers: {}, skip: true, digest: viewDigest(row) }
    const first = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:1', 'fr'))
      .json(reply)
    first.assertStatus(200)

    const french = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:1', 'fr-FR,fr;q=0.9'))
      .json(reply)
    french.assertStatus(409)
    const [entry] = french.body().errors
    assert.equal(
      entry.message,
      `La ligne ${row.id} a déjà été réglée par user:1 via api. Rechargez pour voir le résultat`
    )
    assert.equal(entry.code, 'E_ALREADY_SETTLED')
    assert.deepInclude(entry.meta, { settledBy: 'user:1', settledVia: 'api' })

    // A language without a translation of the package: English, the same code and meta
    const english = await client
      .post(`/inbox/rows/${row.id}/reply`)
      .headers(person('user:1', 'en'))
      .json(reply)
    english.assertStatus(409)
    assert.match(english.body().errors[0].message, /^Row .* was already settled by user:1 via api/)
    assert.equal(english.body().errors[0].code, 'E_ALREADY_SETTLED')
    assert.deepEqual(english.body().errors[0].meta, entry.meta)
  })

  test('field errors are looked up by their rule; whole-request errors by their code', async ({
    client,
    assert,
  }) => {
    const action = await createActionRow()
    const refused = await client
      .post(`/inbox/rows/${action.id}/reply`)
      .headers(person('user:1', 'fr'))
      .json({ approved: 'oui', digest: viewDigest(action) })
    refused.assertStatus(422)
    assert.deepEqual(refused.body().errors, [
      {
        message: 'approved doit valoir vrai ou faux',
        code: 'E_INVALID_REPLY',
        field: 'approved',
        rule: 'boolean',
      },
    ])
    // A rule the app did not translate keeps the package's English
    const unknown = await client
      .post(`/inbox/rows/${action.id}/reply`)
      .headers(person('user:1', 'fr'))
      .json({ approved: true, junk: 1, digest: viewDigest(action) })
    unknown.assertStatus(422)
    assert.include(unknown.body().errors[0].message, 'is not a field of a decision')

    const stranger = await client
      .post(`/inbox/rows/${action.id}/reply`)
      .headers(person('user:2', 'fr'))
      .json({ approved: true, digest: viewDigest(action) })
    stranger.assertStatus(403)
    assert.deepEqual(stranger.body().errors, [
      { message: 'Vous ne pouvez pas régler cette ligne', code: 'E_FORBIDDEN' },
    ])
    await action.refresh()
    assert.equal(action.status, 'pending')
  })
})
