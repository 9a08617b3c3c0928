import Fastify from 'fastify';
import { PIXEL, PIXEL_HEADERS } from '../src/tracking/open.service.js';

/*
 * The yardstick of the open-pixel scenario: a bare Fastify server (no logger, hooks, database or buffer) answering
 * the same GIF with the same headers. Run as its own process by bench/tracking.scenarios.ts, on PORT.
 */
const app = Fastify({ logger: false });
app.get('/t/open.gif', (_request, reply) => reply.headers(PIXEL_HEADERS).send(PIXEL));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
