'use strict';

// Runs the simulator in its own process (so that it does not share the event loop and CPU time of
// the process being measured) and reports its handle to the parent over IPC.

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
