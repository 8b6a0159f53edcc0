import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  /** The full message as received (headers and body). */
  raw: string;
  /** The text after the header block. */
  text: string;
}

/**
 * An SMTP server (smtp-server) on loopback that accepts every message and keeps it, for tests of code that
 * sends mail with nodemailer: `url` is an SMTP_URL.
 */
export class SmtpCapture {
  readonly messages: CapturedMail[] = [];
  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  static async start(
    options: { rejectWith?: () => { code: number; message: string } | null } = {},
  ): Promise<SmtpCapture> {
    let capture: SmtpCapture | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const rejection = options.rejectWith?.();
          if (rejection) {
            callback(Object.assign(new Error(rejection.message), { responseCode: rejection.code }));
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          const split = raw.indexOf('\r\n\r\n');
          const head = split >= 0 ? raw.slice(0, split) : raw;
          const subject = /^Subject: (.*(?:\r\n[ \t].*)*)$/im.exec(head)?.[1]?.replace(/\r\n[ \t]/g, ' ') ?? '';
          capture?.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject,
            raw,
            text: split >= 0 ? raw.slice(split + 4) : '',
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    capture = new SmtpCapture(server, `smtp://127.0.0.1:${port}`);
    return capture;
  }

  async waitFor(count: number, timeoutMs = 15_000): Promise<CapturedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} mails, got ${this.messages.length}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.messages;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
