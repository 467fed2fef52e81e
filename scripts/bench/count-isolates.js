'use strict';
// Preloaded into n8n (NODE_OPTIONS=--require) by profile-receiver.js --count: counts the expression
// isolates n8n newly acquires (Expression.acquireIsolate() resolving true) into SBL_ISOLATE_COUNT.<pid>.
const fs = require('node:fs');
const Module = require('node:module');

const file = process.env.SBL_ISOLATE_COUNT;
let count = 0;
const load = Module._load;
Module._load = function (...args) {
	const loaded = load.apply(this, args);
	const proto = loaded && loaded.Expression && loaded.Expression.prototype;
	if (proto && typeof proto.acquireIsolate === 'function' && !proto.__sblCounted) {
		proto.__sblCounted = true;
		const acquire = proto.acquireIsolate;
		proto.acquireIsolate = async function (...a) {
			const acquired = await acquire.apply(this, a);
			if (acquired) count++;
			return acquired;
		};
	}
	return loaded;
};
// one file per process and thread (worker threads load this too); written aside and renamed, so
// that a reader never sees a half-written file
const id = `${process.pid}${require('node:worker_threads').threadId}`;
if (file) {
	setInterval(() => {
		fs.writeFileSync(`${file}.tmp${id}`, String(count));
		fs.renameSync(`${file}.tmp${id}`, `${file}.${id}`);
	}, 200).unref();
}
