'use strict';
// The n8n and simulator processes `npm run bench:n8n` starts: stopped by pid on exit, errors and
// Ctrl-C (never by name).

const os = require('node:os');

const { log } = require('../../test/e2e/lib/install');

const running = { n8n: null, sim: null };

function killSimulator() {
	const child = running.sim;
	running.sim = null;
	if (child && child.exitCode === null && child.signalCode === null) {
		try {
			process.kill(child.pid, 'SIGTERM');
		} catch {}
	}
}

let cleaning = null;
function cleanup() {
	if (!cleaning) {
		cleaning = (async () => {
			const n8n = running.n8n;
			running.n8n = null;
			if (n8n) await n8n.stop().catch((e) => log(`stopping n8n: ${e.message}`));
			killSimulator();
		})();
	}
	return cleaning;
}

// Our own handlers (registered before n8n starts, so the harness leaves the signals to us): stop n8n
// gracefully and the simulator, then exit; a second signal kills at once. The harness's exit hook and
// its detached reaper still cover a crash or SIGKILL of this process.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(sig, () => {
		if (cleaning) {
			if (running.n8n) running.n8n._killNow();
			killSimulator();
			process.exit(130);
		}
		process.stderr.write(`\n${sig}: stopping n8n and the simulator …\n`);
		cleanup().finally(() => process.exit(128 + (os.constants.signals[sig] || 0)));
	});
}
process.on('exit', () => {
	if (running.n8n) running.n8n._killNow();
	killSimulator();
});

/** Stops the first n8n (by pid), keeping the simulator, before the lazy one starts. */
async function stopFirstN8n() {
	const n8n = running.n8n;
	running.n8n = null;
	if (n8n) await n8n.stop().catch((e) => log(`stopping n8n: ${e.message}`));
}

module.exports = { running, cleanup, stopFirstN8n };
