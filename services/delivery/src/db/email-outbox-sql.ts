import type { Sql } from '@routinely/db';

/** A mail kept locally when no SMTP server is configured. */
export interface OutboxMail {
  id: string;
  to_address: string;
  from_address: string;
  subject: string;
  text: string;
  created_at: Date;
}

export async function insertOutboxMail(sql: Sql, mail: OutboxMail): Promise<void> {
  await sql.run(
    'insert into email_outbox (id, to_address, from_address, subject, text, created_at) values (?, ?, ?, ?, ?, ?)',
    [mail.id, mail.to_address, mail.from_address, mail.subject, mail.text, mail.created_at],
  );
}
