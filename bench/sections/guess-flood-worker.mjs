// The guess flood of section 17 (sections/guesses.mjs), in a worker thread of its own, so that
// the flooding clients do not share an event loop with the callers whose latency is measured.
// `loopsPerGuesser` loops from each guesser address, each on its own kept-alive connection
// sending a new wrong invite code as soon as the last was answered, until told to stop or
// `perLoop` guesses each. With `control`, the same loops ask for the health check instead (no
// guess): what a flood of that many cheap requests costs the portal anyway.
import { parentPort, workerData } from 'node:worker_threads';
import { INVITE_CHECK, agentFor, get, wrongCode } from '../lib/guess-client.mjs';

/** @type {{ server: import('../lib/guess-client.mjs').Server, guessers: string[], loopsPerGuesser: number, perLoop: number, control: boolean }} */
const { server, guessers, loopsPerGuesser, perLoop, control } = workerData;
const nextPath = () => (control ? '/api/v1/healthcheck' : `${INVITE_CHECK}${wrongCode()}`);
let running = true;
parentPort?.on('message', () => {
  running = false;
});
/** @type {Record<string, number>} */
const statuses = {};
let foundInvite = 0;
const started = performance.now();
await Promise.all(
  guessers.flatMap((address) =>
    Array.from({ length: loopsPerGuesser }, async () => {
      const agent = agentFor(server, address);
      for (let sent = 0; running && sent < perLoop; sent += 1) {
        const answer = await get(server, agent, server.host, nextPath());
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (
          !control &&
          answer.status === 200 &&
          !answer.body.includes('"invitecode_is_active":false')
        ) {
          foundInvite += 1;
        }
      }
      agent.destroy();
    }),
  ),
);
parentPort?.postMessage({ statuses, foundInvite, seconds: (performance.now() - started) / 1000 });
