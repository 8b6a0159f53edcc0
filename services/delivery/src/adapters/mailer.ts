import type { Sql } from '@routinely/db';
import type { Clock, Logger } from '@routinely/platform';
import nodemailer, { type Transporter } from 'nodemailer';
import { v7 as uuidv7 } from 'uuid';
import { insertOutboxMail } from '../db/email-outbox-sql.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** The email port. A rejection with `permanent: true` dead-letters the delivery; anything else is retried. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

export class MailRejectedError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly responseCode: number | null,
  ) {
    super(message);
  }
}

/** SMTP through nodemailer (SMTP_URL). 5xx SMTP replies are permanent, everything else transient. */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;
  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(mail: OutgoingMail): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode ?? null;
      throw new MailRejectedError((error as Error).message, code !== null && code >= 500, code);
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/** No SMTP configured: keep the mail in the local email_outbox table and log it, so it is readable. */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly db: Sql,
    private readonly from: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    await insertOutboxMail(this.db, {
      id: uuidv7(),
      to_address: mail.to,
      from_address: this.from,
      subject: mail.subject,
      text: mail.text,
      created_at: this.clock.now(),
    });
    this.logger.info(
      { to: mail.to, subject: mail.subject, text: mail.text },
      'email kept in local outbox (no SMTP_URL)',
    );
  }

  async close(): Promise<void> {}
}
