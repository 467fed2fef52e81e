'use strict';

// The simulator in its own process, so that it does not share the event loop and CPU time of the
// process being measured. Forked, this file runs it and reports its handle over IPC; required,
// it exports startSimulatorProcess() for the bench scripts.

const { fork } = require('node:child_process');

/**
 * Forks this file; resolves { child, sim } once the simulator listens. `onSpawn(child)` gets the
 * child at once, so that a caller can stop it by pid even if it never becomes ready.
 */
function startSimulatorProcess({ onSpawn } = {}) {
	return new Promise((resolve, reject) => {
		const child = fork(__filename, [], {
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		onSpawn?.(child);
		child.once('message', (message) => resolve({ child, sim: message.ready }));
		child.once('exit', (code) =>
			reject(new Error(`the simulator exited (${code}) before it was ready`)),
		);
	});
}

function runChild() {
	const { startSimulator } = require('../../test/simulator');
	startSimulator({ port: 0 }).then(
		(sim) => {
			const { close, ...handle } = sim;
			process.send({ ready: handle });
			process.on('message', (message) => {
				if (message === 'close') close().then(() => process.exit(0));
			});
			process.on('disconnect', () => close().then(() => process.exit(0)));
		},
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}

if (require.main === module) runChild();

module.exports = { startSimulatorProcess };
