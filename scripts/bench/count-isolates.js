'use strict';
// Preloaded into n8n (NODE_OPTIONS=--require) by profile-receiver.js --count. Counts the work n8n
// does that does not depend on the machine's speed, into SBL_ISOLATE_COUNT.<pid><thread> as JSON:
// - isolates: expression isolates newly acquired (Expression.acquireIsolate() resolving true);
// - sql: SQLite statements by first word (SqliteReadWriteQueryRunner.runQueryWithinConnection);
// - sqlParamBytes: the bytes of their bound parameters (text as UTF-8, JSON of anything else);
// - expressions: expressions evaluated (Expression.resolveSimpleParameterValue), by their first 60
//   characters.
const fs = require('node:fs');
const Module = require('node:module');

const file = process.env.SBL_ISOLATE_COUNT;
const counts = { isolates: 0, sql: {}, sqlParamBytes: 0, expressions: {} };

function paramBytes(parameters) {
	let bytes = 0;
	for (const p of Array.isArray(parameters) ? parameters : []) {
		if (typeof p === 'string') bytes += Buffer.byteLength(p);
		else if (Buffer.isBuffer(p)) bytes += p.length;
		else if (p !== null && p !== undefined) bytes += Buffer.byteLength(JSON.stringify(p) ?? '');
	}
	return bytes;
}

function wrap(proto, name, count) {
	if (!proto || typeof proto[name] !== 'function' || proto[`__sblCounted_${name}`]) return;
	proto[`__sblCounted_${name}`] = true;
	const original = proto[name];
	proto[name] = count(original);
}

const load = Module._load;
Module._load = function (...args) {
	const loaded = load.apply(this, args);
	wrap(
		loaded && loaded.Expression && loaded.Expression.prototype,
		'acquireIsolate',
		(acquire) =>
			async function (...a) {
				const acquired = await acquire.apply(this, a);
				if (acquired) counts.isolates++;
				return acquired;
			},
	);
	wrap(
		loaded && loaded.Expression && loaded.Expression.prototype,
		'resolveSimpleParameterValue',
		(resolve) =>
			function (value, ...rest) {
				if (typeof value === 'string' && value.startsWith('=')) {
					const text = value.slice(0, 60);
					counts.expressions[text] = (counts.expressions[text] || 0) + 1;
				}
				return resolve.call(this, value, ...rest);
			},
	);
	const runner = loaded && loaded.SqliteReadWriteQueryRunner;
	wrap(
		runner && runner.prototype,
		'runQueryWithinConnection',
		(run) =>
			function (connection, query, parameters, ...rest) {
				const verb = (/^\s*([A-Za-z]+)/.exec(String(query)) || [, 'OTHER'])[1].toUpperCase();
				counts.sql[verb] = (counts.sql[verb] || 0) + 1;
				counts.sqlParamBytes += paramBytes(parameters);
				return run.call(this, connection, query, parameters, ...rest);
			},
	);
	return loaded;
};
// one file per process and thread (worker threads load this too); written aside and renamed, so
// that a reader never sees a half-written file
const id = `${process.pid}${require('node:worker_threads').threadId}`;
if (file) {
	setInterval(() => {
		fs.writeFileSync(`${file}.tmp${id}`, JSON.stringify(counts));
		fs.renameSync(`${file}.tmp${id}`, `${file}.${id}`);
	}, 200).unref();
}
