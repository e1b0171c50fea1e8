/*
 * The package's words in a person's language: the shipped French
 * catalogue, the app's own `resources/lang` messages winning key by key
 * (through the real `@adonisjs/i18n` manager and its fs loader), English
 * for what no one translated, never a key; mails rendered in French;
 * dates and numbers written as the locale writes them.
 */

import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from '@japa/runner'
import { defineConfig, formatters, loaders } from '@adonisjs/i18n'
import { I18nManagerFactory } from '@adonisjs/i18n/factories'
import { en } from '../../src/i18n/catalogue/en.ts'
import { fr } from '../../src/i18n/catalogue/fr.ts'
import { Words, wordsFor } from '../../src/i18n/words.ts'
import { digestMail, rowMail } from '../../src/notify/mail_text.ts'
import type { RowNotice } from '../../src/notify/notifier.ts'
import type { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { settledMessage } from '../../src/slack/blocks.ts'
import { confirmPage, refusedPage, settledPage } from '../../src/http/mail_page.ts'
import { DateTime } from 'luxon'
import {
  AlreadySettledException,
  ArgsOutdatedException,
  DeniedByPolicyException,
  E_ALREADY_VOTED,
  E_CANCELLED,
  E_EXPIRED,
  E_FORBIDDEN,
  E_INVALID_CURSOR,
  E_NOT_AN_APPROVER,
  E_NOT_AN_OPERATOR,
  E_NOT_YOUR_STREAM,
  E_POLICY_FAILED,
  E_REQUESTER_EXCLUDED,
  E_RUN_NOT_ACTIONABLE,
  E_SETTLE_FAILED,
  E_STALE_VIEW,
  E_TOOL_REMOVED,
  E_TURN_LIVE,
  E_UNKNOWN_AGENT,
  ReplyMismatchException,
} from '../../src/errors.ts'

/** A notice as the mail notifier gets it; the mail text reads only these fields */
function notice(reason: RowNotice['reason'] = 'created'): RowNotice {
  const row = {
    toolName: 'deploy',
    request: { summary: 'Déployer main', args: { branch: 'main' } },
  } as unknown as ToolCall
  return {
    id: 1,
    row,
    reason,
    note: null,
    links: [{ label: 'Approve', url: 'https://x.test/a' }] as RowNotice['links'],
  }
}

const ada = { id: 'ada', name: 'Ada', email: 'ada@example.com', locale: 'fr' }

test.group('Words | languages', (group) => {
  let lang: string
  group.setup(async () => {
    lang = await mkdtemp(join(tmpdir(), 'agent-inbox-words-'))
    await mkdir(join(lang, 'fr'))
    await mkdir(join(lang, 'de'))
    // The app overrides one French word and translates one German word only
    await writeFile(
      join(lang, 'fr', 'agent_inbox.json'),
      JSON.stringify({ mail: { open_inbox: 'Ouvrir la corbeille de {app}' } })
    )
    await writeFile(
      join(lang, 'de', 'agent_inbox.json'),
      JSON.stringify({ action: { approve: 'Genehmigen' } })
    )
    return () => rm(lang, { recursive: true, force: true })
  })

  /** The app's i18n manager, as its container resolves config/i18n.ts */
  async function manager() {
    const config = await defineConfig({
      defaultLocale: 'en',
      supportedLocales: ['en', 'fr', 'de'],
      formatter: formatters.icu(),
      loaders: [loaders.fs({ location: lang })],
    }).resolver({} as never)
    const i18n = new I18nManagerFactory().merge({ config }).create()
    await i18n.loadTranslations()
    return i18n
  }

  test('the French catalogue is complete and says French, not English or keys', ({ assert }) => {
    assert.sameMembers(Object.keys(fr), Object.keys(en))
    const words = new Words('fr-CA')
    assert.equal(words.t('action.approve'), 'Approuver')
    assert.equal(
      words.t('settled.approved', { by: 'Ada', via: 'Slack' }),
      'Approuvé par Ada via Slack'
    )
  })

  test('each French word fills the placeholders its English one fills', ({ assert }) => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    const strays = (Object.keys(en) as (keyof typeof en)[]).filter(
      (key) => placeholders(fr[key]).join() !== placeholders(en[key]).join()
    )
    assert.deepEqual(strays, [])
    // The pages' words are there too, sent to a French page by renderPage
    assert.equal(new Words('fr').t('page.inbox.title'), 'Boîte de réception')
  })

  test('a word missing in a language shows in English, never as its key', async ({ assert }) => {
    // No catalogue shipped for German, and the app translated one word only
    const make = async () => manager()
    const german = await wordsFor(make, 'de')
    assert.equal(german.t('action.approve'), 'Genehmigen')
    assert.equal(german.t('action.reject'), 'Reject')
    assert.equal(german.t('mail.hello', { name: 'Bob' }), 'Hello Bob,')
    // A language nobody knows, without i18n in the app
    assert.equal(new Words('sw').t('mail.open_inbox'), 'Open the inbox')
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      assert.notInclude(german.t(key), 'agent_inbox.')
      assert.notEqual(german.t(key), key)
    }
    assert.equal(german.messages('action.')['action.approve'], 'Genehmigen')
    assert.equal(german.messages('action.')['action.reject'], 'Reject')
  })

  test("the app's own messages win over the package's", async ({ assert }) => {
    const french = await wordsFor(async () => manager(), 'fr')
    assert.equal(french.t('mail.open_inbox', { app: 'Acme' }), 'Ouvrir la corbeille de Acme')
    assert.equal(french.t('action.reject'), 'Refuser')
    assert.equal(french.messages('mail.')['mail.open_inbox'], 'Ouvrir la corbeille de {app}')
  })

  test('a mail renders in French, a digest too', async ({ assert }) => {
    // The app without i18n: the package's French catalogue
    const words = await wordsFor(async () => Promise.reject(new Error('no i18n')), 'fr')
    const mail = rowMail(notice(), ada, 'https://x.test/inbox', words)
    assert.equal(mail.subject, 'Approuver deploy : Déployer main — vous attend')
    assert.include(mail.text, 'Bonjour Ada,')
    assert.include(mail.text, 'Arguments : {"branch":"main"}')
    assert.include(mail.html, 'Ouvrir la boîte de réception</a>')
    assert.notInclude(mail.html, 'Open the inbox')
    const digest = digestMail([notice(), notice('reminded')], ada, null, words)
    assert.equal(digest.subject, '2 éléments vous attendent dans la boîte de réception')
    assert.include(digest.html, 'vous attend toujours')
    // And without a locale, English as before
    const english = rowMail(
      notice(),
      { ...ada, locale: null },
      null,
      await wordsFor(async () => manager(), null)
    )
    assert.equal(english.subject, 'Approve deploy: Déployer main — waits for you')
  })

  test('dates and numbers follow the locale', ({ assert }) => {
    const at = Date.UTC(2026, 11, 5, 14, 30)
    const options = { dateStyle: 'long', timeZone: 'UTC' } as const
    assert.equal(new Words('fr').date(at, options), '5 décembre 2026')
    assert.equal(new Words('en').date(at, options), 'December 5, 2026')
    assert.equal(new Words('de').date(at, options), '5. Dezember 2026')
    assert.equal(new Words('en').number(1234567.5), '1,234,567.5')
    assert.equal(new Words('de').number(1234567.5), '1.234.567,5')
    assert.match(new Words('fr').number(1234567.5), /^1\s234\s567,5$/)
  })

  test("a settled Slack message ends with its line in the message's language", ({ assert }) => {
    const row = {
      id: 1,
      status: 'approved',
      answeredVia: 'slack',
      toolName: 'deploy',
      request: { summary: 'Déployer main', args: { branch: 'main' } },
    } as unknown as ToolCall
    const message = settledMessage(row, 'Ada', new Words('fr'))
    assert.include(message.text, 'Approuvé par Ada via')
    assert.notInclude(message.text, 'Approved by')
  })

  test("a mail link's pages speak the request's language", ({ assert }) => {
    const row = {
      id: 'r1',
      kind: 'action',
      status: 'approved',
      answeredBy: 'ada',
      answeredVia: 'mail',
      settledAt: DateTime.fromISO('2026-12-05T17:02:00Z'),
      toolName: 'deploy',
      request: { summary: 'Déployer main', args: { branch: 'main' } },
    } as unknown as ToolCall
    const french = new Words('fr')
    const confirm = confirmPage(french, row, 'reject', 'ada')
    assert.include(confirm, '<html lang="fr">')
    assert.include(confirm, '<h1>Refuser ?</h1>')
    assert.include(confirm, 'Motif (facultatif)')
    assert.include(confirm, 'Rien n’est décidé')
    const settled = settledPage(french, row, { ada: 'Ada' }, true)
    assert.include(settled, '<h1>C’est fait</h1>')
    assert.include(settled, 'Statut de cette approbation : <strong>approuvé</strong>')
    assert.include(settled, 'le 5 déc. 2026, 17:02 (UTC)')
    assert.include(refusedPage(french, 403, 'x'), 'Ce lien ne fonctionne pas')
    // English by default, as before
    assert.include(settledPage(Words.english, row, {}, false), '<h1>Already settled</h1>')
  })

  test('the HTTP errors speak French to a French request, the app’s own messages first', async ({
    assert,
  }) => {
    const appI18n = await manager()
    const i18n = appI18n.locale('fr')
    const errors = [
      new ReplyMismatchException('decision'),
      new ReplyMismatchException('answers'),
      new AlreadySettledException('r1', 'ada', 'web', new Date()),
      new E_EXPIRED(['r1']),
      new E_CANCELLED(['r1']),
      new E_UNKNOWN_AGENT(['r1']),
      new E_TOOL_REMOVED(['r1']),
      new ArgsOutdatedException([{ field: 'editedInput.x', message: 'no', rule: 'type' }]),
      new DeniedByPolicyException('r1', 'trop tard'),
      new E_POLICY_FAILED(['r1']),
      new E_SETTLE_FAILED(),
      new E_INVALID_CURSOR(),
      new E_FORBIDDEN(),
      new E_STALE_VIEW(['r1']),
      new E_NOT_AN_APPROVER(['r1']),
      new E_NOT_AN_APPROVER(['r1', true]),
      new E_REQUESTER_EXCLUDED(['r1']),
      new E_ALREADY_VOTED(['r1']),
      new E_NOT_YOUR_STREAM(),
      new E_NOT_AN_OPERATOR(),
      new E_RUN_NOT_ACTIONABLE(['u1', 'completed', 'retry']),
      new E_RUN_NOT_ACTIONABLE(['u1', 'waiting', 'cancel']),
      new E_TURN_LIVE(['c1', 'u2']),
    ]
    for (const error of errors) {
      const french = error.translatedMessage(i18n)
      assert.notEqual(french, error.message, error.messageKey())
      // Every placeholder filled (a reply's shape in braces is not one)
      assert.notMatch(french, /\{[A-Za-z]+\}/, error.messageKey())
      // English without i18n, as before
      assert.equal(error.translatedMessage(), error.message)
    }
    assert.equal(
      new E_STALE_VIEW(['r9']).translatedMessage(i18n),
      'La réponse portait sur une autre version de la demande r9 que celle d’aujourd’hui : rien n’a été appliqué. Rechargez la demande et décidez sur ce qu’elle montre'
    )
    // The app's own message of a code wins over the package's French
    const own = {
      locale: 'fr',
      t: (id: string, _data?: Record<string, unknown>, fallback?: string) =>
        id === 'agent_inbox.E_FORBIDDEN' ? 'Pas pour vous' : fallback!,
    }
    assert.equal(new E_FORBIDDEN().translatedMessage(own), 'Pas pour vous')
    assert.include(new E_ALREADY_VOTED(['r1']).translatedMessage(own), 'Vous avez déjà voté')
    // A language the package does not ship reads English
    assert.equal(
      new E_FORBIDDEN().translatedMessage(appI18n.locale('de')),
      new E_FORBIDDEN().message
    )
  })
})
