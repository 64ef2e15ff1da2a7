// Subscribes to the controller's state topic and prints, on SIGTERM, the arrival times (ms,
// performance.now) of every state message, one JSON array on stdout. A separate process, so
// the load generator's event loop does not delay the timestamps. Usage: lateness-probe.js URL TOPIC
import mqtt from 'mqtt';

const [url, topic] = process.argv.slice(2);
const arrivals: number[] = [];
const client = mqtt.connect(url!, { reconnectPeriod: 100 });
client.on('connect', () => client.subscribe(topic!, () => process.stdout.write('subscribed\n')));
client.on('message', (_t, _payload, packet) => {
  if (!packet.retain) arrivals.push(performance.now());
});
process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify(arrivals)}\n`);
  client.end(true, {}, () => process.exit(0));
});
