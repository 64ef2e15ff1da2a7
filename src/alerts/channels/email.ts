// Email over SMTP with nodemailer, loaded (dynamic import) only when an email channel is
// configured. STARTTLS when offered (or required), TLS from the start with `secure`.
import { Type } from '@sinclair/typebox';
import type { AlertMessage } from '../types.js';
import { defineChannel, SECRET } from './types.js';

const address = (title: string) => Type.String({ minLength: 3, title });

export const email = defineChannel({
  name: 'email',
  title: 'Email (SMTP)',
  schema: Type.Object(
    {
      host: Type.String({ minLength: 1, title: 'SMTP server' }),
      port: Type.Integer({ minimum: 1, maximum: 65535, default: 587, title: 'Port' }),
      secure: Type.Boolean({
        default: false,
        title: 'TLS from the start',
        description: 'TLS from the start (port 465); false: STARTTLS when offered',
      }),
      requireTls: Type.Boolean({
        default: false,
        title: 'Require STARTTLS',
        description: 'refuse to send without STARTTLS',
      }),
      rejectUnauthorized: Type.Boolean({ default: true, title: 'Check the server certificate' }),
      user: Type.Optional(Type.String({ minLength: 1, title: 'User' })),
      password: Type.Optional(Type.String({ title: 'Password', description: 'secret', ...SECRET })),
      from: address('From'),
      to: Type.Union([address('To'), Type.Array(address('To'), { minItems: 1 })], {
        title: 'To',
        description: 'one address or a list',
      }),
    },
    { additionalProperties: false },
  ),
  create(o, ctx) {
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
        connectionTimeout: ctx.timeoutMs,
        greetingTimeout: ctx.timeoutMs,
        socketTimeout: ctx.timeoutMs,
      });
      return transport;
    };
    const send = async (m: AlertMessage) => {
      const t = await open();
      // socketTimeout is only idle time: a server that keeps sending a reply it never finishes would
      // hold the send, and with it the outbox, for ever. The signal ends the send and its connection.
      const signal = AbortSignal.timeout(ctx.timeoutMs);
      try {
        const info = await t.sendMail({
          signal,
          from: o.from,
          to: o.to,
          subject: m.title,
          text: `${m.message}\n\n${m.event} at ${m.at} (${m.serviceId}, id ${m.id})\n`,
          messageId: `<${m.id}@edgeblocks>`,
          headers: { 'X-Edgeblocks-Id': m.id },
        });
        return String(info.response ?? 'sent').slice(0, 200);
      } catch (e) {
        const err = e as Error & { code?: string; responseCode?: number };
        if (signal.aborted) throw new Error(`no answer within ${ctx.timeoutMs} ms`);
        throw new Error([err.code, err.responseCode, err.message].filter(Boolean).join(' ').slice(0, 300));
      }
    };
    return {
      name: 'email',
      send,
      test: send,
      close() {
        transport?.close();
        transport = null;
      },
    };
  },
});
