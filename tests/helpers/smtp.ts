/*
 * A real SMTP server on loopback (the fixture's sink, on the `smtp-server`
 * package) for the notification suites: it accepts every mail, parses it
 * and keeps it, so a test reads the mails the package sent through the app's
 * `@adonisjs/mail` SMTP transport as a person's mailbox would.
 */

import type { ParsedMail } from 'mailparser'
import { defineConfig, transports } from '@adonisjs/mail'
import { startSmtpServer } from '../../fixtures/app/bin/mail_sink.ts'

export type SmtpSink = {
  port: number
  mails: ParsedMail[]
  /** Resolves once `count` mails arrived in all (or rejects after `timeout` ms) */
  received(count: number, timeout?: number): Promise<ParsedMail[]>
  /** The mails to an address */
  to(address: string): ParsedMail[]
  /** While true, the server refuses every recipient (550) */
  refusing: boolean
  close(): Promise<void>
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ParsedMail[] = []
  const { port, close } = await startSmtpServer(
    (mail) => mails.push(mail),
    () => sink.refusing
  )
  const sink: SmtpSink = {
    port,
    mails,
    refusing: false,
    async received(count, timeout = 10_000) {
      const until = Date.now() + timeout
      while (mails.length < count) {
        if (Date.now() > until) throw new Error(`${mails.length} of ${count} mails arrived`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      return mails
    },
    to(address) {
      return mails.filter((mail) => {
        const list = [mail.to ?? []].flat()
        return list.some((item) => item.value.some((entry) => entry.address === address))
      })
    },
    close,
  }
  return sink
}

/**
 * config/mail.ts of a test app sending through the sink.
 */
export function mailConfig(port: number) {
  return defineConfig({
    default: 'smtp',
    from: { address: 'inbox@example.test', name: 'Agent inbox' },
    mailers: {
      smtp: transports.smtp({ host: '127.0.0.1', port, secure: false, ignoreTLS: true }),
    },
  })
}

/** The links of a mail's text part, by label (`Approve: http://…`) */
export function mailLinks(mail: ParsedMail): Record<string, string[]> {
  const links: Record<string, string[]> = {}
  for (const match of (mail.text ?? '').matchAll(/^\s*([^:\n]+): (http\S+)$/gm)) {
    ;(links[match[1].trim()] ??= []).push(match[2])
  }
  return links
}
