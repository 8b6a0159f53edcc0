// The webhook receiver of ratios.ts, run as its own process so that neither the all-in-one nor
// the bare undici loop shares its event loop: answers every POST 200 at once and remembers when it arrived
// (wall clock, sub-millisecond), its X-Service-Event-Id and its body size. Not a test.
//
//   node bench/webhook-receiver.ts <port>
//   GET /arrivals -> { at_ms: number[], event_ids: string[], sizes: number[], connections }; GET /count -> { count };
//   DELETE /arrivals forgets them.
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
interface Arrivals {
  at_ms: number[];
  event_ids: string[];
  sizes: number[];
  connections: number;
}
const none = (): Arrivals => ({ at_ms: [], event_ids: [], sizes: [], connections: 0 });
let arrivals = none();

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    // The arrival is the moment the request's head is parsed, as a receiver's framework would see it first.
    const at = performance.timeOrigin + performance.now();
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
    });
    req.on('end', () => {
      arrivals.at_ms.push(at);
      arrivals.event_ids.push(String(req.headers['x-service-event-id'] ?? ''));
      arrivals.sizes.push(size);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 }).end('{}');
    });
    return;
  }
  if (req.url === '/arrivals' && req.method === 'DELETE') arrivals = none();
  // GET /count is what the bench polls while a figure runs: cheap for the receiver.
  const body = JSON.stringify(req.url === '/count' ? { count: arrivals.at_ms.length } : arrivals);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
});
// New TCP connections since the last reset: a sender without keep-alive would open one per request.
server.on('connection', () => {
  arrivals.connections++;
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
