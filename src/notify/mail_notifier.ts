/*
 * The mail notifier (docs/design.md §7.7): a message per row, or a digest,
 * through the app's `@adonisjs/mail` (an optional peer: nothing of it is
 * imported, the mailer is resolved from the container when a mail goes
 * out, so an app without it boots, and one that names this notifier
 * without it is told what to install).
 */

import { defineNotifier, type Recipient } from './notifier.ts'
import { digestMail, rowMail, type MailBody } from './mail_text.ts'
import { wordsFor } from '../i18n/words.ts'

export type MailNotifierOptions = {
  /** The sender; default: config/mail.ts's `from` */
  from?: string | { address: string; name?: string }
  /** A mailer of config/mail.ts other than its default */
  mailer?: string
}

/** The part of `@adonisjs/mail`'s message the notifier writes */
type MessageLike = {
  to(address: string, name?: string): MessageLike
  from(address: string, name?: string): MessageLike
  subject(subject: string): MessageLike
  html(html: string): MessageLike
  text(text: string): MessageLike
}
type MailManagerLike = {
  use(name?: string): { send(compose: (message: MessageLike) => void): Promise<unknown> }
}

/**
 * Mails people who have an `email` (the `preferences` hook gives it).
 *
 * @example
 * notifications: { notifiers: [mailNotifier({ from: 'inbox@example.com' })], ... }
 */
export function mailNotifier(options: MailNotifierOptions = {}) {
  async function send(make: (binding: string) => Promise<any>, person: Recipient, body: MailBody) {
    if (!person.email) return
    const manager: MailManagerLike = await make('mail.manager').catch((error) => {
      throw new Error(
        'The mail notifier needs @adonisjs/mail: install and configure it with "node ace add @adonisjs/mail"',
        { cause: error }
      )
    })
    await manager.use(options.mailer).send((message) => {
      message.to(person.email!, person.name ?? undefined).subject(body.subject)
      if (typeof options.from === 'string') message.from(options.from)
      else if (options.from) message.from(options.from.address, options.from.name)
      message.html(body.html).text(body.text)
    })
  }
  return defineNotifier({
    name: 'mail',
    notify: async (notice, person, context) => {
      const words = await wordsFor(context.make, person.locale)
      await send(context.make, person, rowMail(notice, person, context.inboxUrl, words))
    },
    digest: async (notices, person, context) => {
      const words = await wordsFor(context.make, person.locale)
      await send(context.make, person, digestMail(notices, person, context.inboxUrl, words))
    },
  })
}
