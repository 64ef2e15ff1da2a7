// Email over SMTP with nodemailer, loaded (dynamic import) only when an email channel is
// configured. STARTTLS when offered (or required), TLS from the start with `secure`.
import type { AlertMessage } from '../types.js';
import type { AlertSettings } from '../settings.js';
import type { Channel } from './types.js';

type EmailSettings = NonNullable<AlertSettings['email']>;

export function smtpChannel(o: EmailSettings & { timeoutMs: number }): Channel {
  let transport: import('nodemailer').Transporter | null = null;
  const open = async () => {
    if (transport) return transport;
    const nodemailer = (await import('nodemailer')).default;
    transport = nodemailer.createTransport({
      host: o.host,
      port: o.port,
      secure: o.secure,
      requireTLS: o.requireTls,
      tls: { rejectUnauthorized: o.rejectUnauthorized },
      auth: o.user ? { user: o.user, pass: o.password ?? '' } : undefined,
      connectionTimeout: o.timeoutMs,
      greetingTimeout: o.timeoutMs,
      socketTimeout: o.timeoutMs,
    });
    return transport;
  };
  return {
    name: 'email',
    async send(m: AlertMessage) {
      const t = await open();
      try {
        const info = await t.sendMail({
          from: o.from,
          to: o.to,
          subject: m.title,
          text: `${m.message}\n\n${m.event} at ${m.at} (${m.serviceId}, id ${m.id})\n`,
          messageId: `<${m.id}@edgeblocks>`,
          headers: { 'X-Edgeblocks-Id': m.id },
        });
        return String(info.response ?? 'sent');
      } catch (e) {
        const err = e as Error & { code?: string; responseCode?: number };
        throw new Error([err.code, err.responseCode, err.message].filter(Boolean).join(' '));
      }
    },
    close() {
      transport?.close();
      transport = null;
    },
  };
}
