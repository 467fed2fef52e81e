#!/usr/bin/env node
'use strict';
// What the trigger's own delivery memory costs per delivery (nodes/ConsentFlowTrigger/dedupe.ts,
// built into dist/ by `npm run build`), outside n8n: the look-up against the static data a request
// read, the record when n8n stored the execution and the claim in execute(), and n8n serialising
// the saved object. `--lag N`: the request read the save N writes back (concurrent deliveries read
// an older copy; 1 is the newest, which this process recognises and does not merge).
//   node scripts/bench/dedupe-memory.js [--keys N] [--lag N] [--deliveries N]
const path = require('node:path');
const D = require(path.join(__dirname, '../../dist/nodes/ConsentFlowTrigger/dedupe.js'));

const { numberArg: arg } = require('./number-arg');
const keys = arg('--keys', 1000);
const lag = arg('--lag', 8);
const deliveries = arg('--deliveries', 3000);

// keys as webhook-id.ts makes them from the service's webhookIds (UUIDs): their JSON
const key = (i) =>
	JSON.stringify(`3f2b${String(i).padStart(8, '0')}-6c1e-4d8a-9b7f-${String(i).padStart(12, '0')}`);
const memoryKey = 'production\u0000bench\u0000Consent Flow Trigger';
const plan = { holdCopies: true, answeredBy: 'execute', remember: 'when-stored' };

// what hold() assigns to static data for n8n to save (a plan that holds nothing)
const savedObject = () => {
	const staticData = {};
	D.hold(
		{ memoryKey, key: key(0), also: [], legacy: [], limit: keys, staticData },
		{ holdCopies: false, answeredBy: 'n8n-after-run', remember: 'never' },
	);
	return staticData[D.DEDUPE_KEY];
};
// a full memory, and `lag` saves of it to read from
for (let i = 0; i < keys + 200; i++) D.recordDeliveryShared(memoryKey, undefined, key(i), keys);
const writes = [];
for (let i = 0; i < lag; i++) writes.push(JSON.stringify(savedObject()));

const spent = { lookUp: 0n, recordAndClaim: 0n, serialise: 0n };
for (let i = keys + 201; i < keys + 201 + deliveries; i++) {
	const stored = JSON.parse(writes[writes.length - lag]); // what the request read
	// the request's static data: hold() assigns the memory's object to it, which execute() reads back
	const staticData = { [D.DEDUPE_KEY]: stored };
	const slot = { memoryKey, key: key(i), also: [], legacy: [], limit: keys, staticData };
	const t0 = process.hrtime.bigint();
	D.lookUp(slot);
	const t1 = process.hrtime.bigint();
	const held = D.hold(slot, plan);
	D.report(held, 'stored');
	D.recordDeliveryShared(memoryKey, staticData[D.DEDUPE_KEY], key(i), keys);
	const saved = staticData[D.DEDUPE_KEY];
	D.report(held, 'succeeded');
	const t2 = process.hrtime.bigint();
	const text = JSON.stringify(saved);
	const t3 = process.hrtime.bigint();
	writes.push(text);
	spent.lookUp += t1 - t0;
	spent.recordAndClaim += t2 - t1;
	spent.serialise += t3 - t2;
}
const ms = (ns) => (Number(ns) / 1e6 / deliveries).toFixed(3);
console.log(
	JSON.stringify({
		keys,
		lag,
		deliveries,
		msPerDelivery: {
			lookUp: ms(spent.lookUp),
			recordAndClaim: ms(spent.recordAndClaim),
			serialise: ms(spent.serialise),
		},
	}),
);
