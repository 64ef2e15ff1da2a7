// app.mqtt.subscribeRaw's remover: called a second time (a feature detached twice, a teardown
// run again) it removes nothing more; another subscriber's subscription stays, whether it was
// made before the connection existed or after. The same for app.mqtt.presence's remover: called
// again after another presence took its topic, it ended that one (the topic said "offline").
import t, { type Test } from 'tap';
import { startApp } from '../helpers/app.js';
import { Recorder, until, untilSubscribed } from './fixtures.js';

t.test('a remover called twice leaves the other subscriptions alone', async (t) => {
  const rt = await startApp({ topicRoot: 'svc' }, { listen: false });
  t.teardown(() => rt.close());
  const { app } = rt;
  const got: string[] = [];
  const record = (topic: string) => void got.push(topic);
  // Made before start: kept until the connection exists, then subscribed.
  app.mqtt.subscribeRaw('svc/test/first', record);
  const offSecond = app.mqtt.subscribeRaw('svc/test/second', record);
  app.mqtt.subscribeRaw('svc/test/third', record);
  offSecond();
  offSecond();
  await app.start();
  await untilSubscribed(app);
  // Made after start, then removed twice too.
  app.mqtt.subscribeRaw('svc/test/fourth', record);
  const offFifth = app.mqtt.subscribeRaw('svc/test/fifth', record);
  offFifth();
  offFifth();
  await untilSubscribed(app);

  const client = await Recorder.connect(`mqtt://127.0.0.1:${app.mqtt.brokerPort}`);
  t.teardown(() => client.end());
  await client.subscribe('svc/test/end');
  for (const name of ['first', 'second', 'third', 'fourth', 'fifth', 'end'])
    await client.publish(`svc/test/${name}`, 'x');
  // The broker forwards one publisher's messages in order: "end" comes after all the others.
  await client.waitFor((m) => m.topic === 'svc/test/end', 'the last message back at the publisher');
  await until(() => got.includes('svc/test/fourth'), 'the message on a subscription made after start');
  t.same(
    [...new Set(got)].sort(),
    ['svc/test/first', 'svc/test/fourth', 'svc/test/third'],
    'the subscriptions not removed get their messages; the removed ones do not',
  );
});

/** An app with a client that listens on `topic`; `said` waits for a payload there from message `from` on. */
async function presenceRig(t: Test, topic: string) {
  const rt = await startApp({ topicRoot: 'svc' });
  t.teardown(() => rt.close());
  const { app } = rt;
  await untilSubscribed(app);
  const client = await Recorder.connect(`mqtt://127.0.0.1:${app.mqtt.brokerPort}`);
  t.teardown(() => client.end());
  await client.subscribe(topic);
  const said = (what: string, from: number) =>
    client.waitFor((m) => m.topic === topic && m.payload.toString() === what, `"${what}" on ${topic}`, 5000, from);
  return { app, client, topic, said };
}

t.test('a presence remover called twice leaves the next presence of its topic alone', async (t) => {
  const { app, client, topic, said } = await presenceRig(t, 'svc/test/availability');

  const off = app.mqtt.presence(topic);
  await said('online', 0);
  off();
  await said('offline', 0);
  let from = client.messages.length;
  app.mqtt.presence(topic);
  await said('online', from);
  off();
  // The presence kept answers a "down" on its topic with "up": it is still there.
  from = client.messages.length;
  await client.publish(topic, 'offline', true);
  await said('online', from + 1);
});

t.test(
  'a presence that takes a topic from another ends the other: no orphan says "online" after the last one is removed',
  async (t) => {
    const { app, client, topic, said } = await presenceRig(t, 'svc/test/taken');

    app.mqtt.presence(topic);
    await said('online', 0);
    let from = client.messages.length;
    const second = app.mqtt.presence(topic);
    await said('online', from);
    second();
    await said('offline', from);
    // A presence still running would answer "offline" with "online"; none may.
    from = client.messages.length;
    await client.publish(topic, 'offline', true);
    await said('offline', from);
    await new Promise((r) => setTimeout(r, 1500));
    t.same(
      client.messages
        .slice(from)
        .filter((m) => m.topic === topic && m.payload.toString() === 'online')
        .map((m) => m.payload.toString()),
      [],
      'nothing said "online" after the last presence of the topic was removed',
    );
  },
);
