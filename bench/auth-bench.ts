// GET /api/v1/auth/me (authenticated) and POST /api/v1/auth/login throughput and latency.
// Start the target with the rate limit raised, e.g.
//   RATE_LIMIT_PER_MINUTE=100000000 RATE_LIMIT_PER_HOUR=1000000000 RATE_LIMIT_BURST=10000000 LOG_LEVEL=warn npm start
// then: npm run bench -- auth-bench   (BASE_URL defaults to http://127.0.0.1:8080)
import { benchUser, measure, saveResults } from './lib.ts';

const user = await benchUser('auth');
const rows = [await measure('GET /auth/me', { paths: ['/auth/me'], token: user.token, connections: 50 })];
const login = JSON.stringify({ email: user.email, password: user.password });
for (const connections of [10, 50]) {
  rows.push(await measure('POST /auth/login', { paths: ['/auth/login'], method: 'POST', body: login, connections }));
}
saveResults('auth', { rows });
