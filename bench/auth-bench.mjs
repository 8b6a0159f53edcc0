// GET /api/v1/auth/me (authenticated) and POST /api/v1/auth/login throughput and latency.
// Start the target with the rate limit raised, e.g.
//   RATE_LIMIT_PER_MINUTE=10000000 RATE_LIMIT_PER_HOUR=100000000 RATE_LIMIT_BURST=1000000 LOG_LEVEL=warn npm start
// then: npm run bench -- auth-bench.mjs   (BASE_URL defaults to http://127.0.0.1:8080)
import { benchUser, measure } from './lib.mjs';

const user = await benchUser('auth');
await measure('GET /api/v1/auth/me', {
  connections: 50,
  headers: { authorization: `Bearer ${user.token}` },
  requests: [{ method: 'GET', path: '/api/v1/auth/me' }],
});
const login = JSON.stringify({ email: user.email, password: user.password });
for (const connections of [10, 50]) {
  await measure('POST /api/v1/auth/login', {
    connections,
    requests: [{ method: 'POST', path: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, body: login }],
  });
}
