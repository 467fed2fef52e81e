'use strict';
// Part 1 of `npm run bench:n8n`: our nodes against HTTP Request + generic OAuth2, side by side
// (the sides, their credentials and one comparison run), and the n8n facts the sides depend on.

const crypto = require('node:crypto');

const { log } = require('../../test/e2e/lib/install');
const S = require('../../test/e2e/lib/scenarios');
const B = require('./n8n-workflows');
const M = require('./n8n-measure');
const R = require('./n8n-report');

// ---- n8n facts ----------------------------------------------------------------------------------

/** Highest version of a node type in /types/nodes.json (what the editor adds today). */
function latestVersion(types, name, fallback) {
	const versions = types
		.filter((t) => t.name === name)
		.flatMap((t) => (Array.isArray(t.version) ? t.version : [t.version]));
	return versions.length ? Math.max(...versions) : fallback;
}

/** The node's "Concurrent Requests" option for an operation: { exists, default }. */
function concurrencyOption(types, name, operation) {
	const desc = types.find((t) => t.name === name);
	if (!desc) throw new Error(`n8n does not list ${name}`);
	for (const prop of desc.properties || []) {
		if (prop.name !== 'options' || !Array.isArray(prop.options)) continue;
		const ops = prop.displayOptions?.show?.operation;
		if (ops && !ops.includes(operation)) continue;
		const option = prop.options.find((o) => o.name === 'concurrency');
		if (option) return { exists: true, default: option.default };
	}
	return { exists: false, default: 1 };
}

// ---- node comparisons -----------------------------------------------------------------------------

/**
 * One comparison: deploys every side (our default and the built-in side with a fresh credential
 * each, the other levels of our node with our default side's credential), runs the default and the
 * built-in side once (cold credential), then `reps` rounds A, B, C, … of all sides;
 * returns { title, latencyMs, sides, sameRequests, problems }.
 */
async function compareNodes(ctx, { title, latencyMs, sides, api, opts }) {
	const { n8n } = ctx;
	for (const side of sides) {
		side.cred = side.credential ? await side.credential() : sides.find((s) => s.isDefault).cred;
		const built = side.build(side.cred);
		const created = await n8n.deployWorkflow(built.workflow);
		side.wf = {
			id: created.id,
			path: built.path,
			nodeName: built.nodeName,
			nodeNames: built.nodeNames,
		};
		side.runs = [];
	}
	const problems = [];
	const run = async (side, what) => {
		const r = await M.runItemsExecution({
			n8n,
			log: ctx.log,
			wf: side.wf,
			api,
			expectItems: opts.items,
		});
		r.fingerprint = M.requestFingerprint(r.requests);
		r.sample = r.requests[0];
		delete r.requests;
		if (latencyMs && r.latencyFaulted !== r.apiCalls)
			r.problems.push(`${r.latencyFaulted}/${r.apiCalls} API calls delayed`);
		for (const p of r.problems)
			problems.push(
				`${title}, ${latencyMs ? `+${latencyMs} ms` : 'loopback'}, ${side.label}, ${what}: ${p}`,
			);
		log(
			`${title} ${latencyMs ? `+${latencyMs} ms` : 'loopback'} | ${side.label} | ${what}: node ${R.secs(r.nodeMs)} s, wall ${R.secs(r.wallMs)} s, tokens ${r.tokens}, API ${r.apiOk}/${r.apiCalls}${r.problems.length ? ` PROBLEMS: ${r.problems.join('; ')}` : ''}`,
		);
		return r;
	};
	for (const side of sides)
		if (side.credential) side.warm = await run(side, 'first run (cold credential)');
	for (let rep = 1; rep <= opts.reps; rep++) {
		for (const side of sides) side.runs.push(await run(side, `run ${rep}`));
	}
	const ours = sides.find((s) => s.isDefault) || sides.find((s) => !s.builtIn);
	let sameRequests = true;
	// every side (built-in or ours in another mode or at another level) must send the same requests
	for (const other of sides.filter((s) => s !== ours)) {
		if (ours.runs[0].fingerprint === other.runs[0].fingerprint) continue;
		sameRequests = false;
		problems.push(
			`${title}: ours and ${other.label} did not send the same requests, e.g. ours ${JSON.stringify(ours.runs[0].sample)} vs ${JSON.stringify(other.runs[0].sample)}`,
		);
	}
	return { title, latencyMs, sides, sameRequests, problems };
}

function consentSides(ctx, { opts, option, httpVersion }) {
	const { n8n, sim } = ctx;
	const webhookUrl = `${n8n.url}/webhook/sbl-bench-no-events`;
	const cred = (label) => () => S.consentCredential(ctx, `bench cf ${label}`);
	const genericCred = (label) => () =>
		genericOAuth2(ctx, `bench http cf ${label}`, {
			tokenUrl: sim.realms.sbl.tokenUrl,
			client: sim.clients.consent,
			scope: 'sbl',
		});
	// Every side takes all six fields from the item; the "(default)" mark is Concurrent Requests'.
	const ourLabel = (c) => `Consent Flow node, Map Automatically, Concurrent Requests ${c}`;
	const sides = [
		{
			label: option.exists
				? ourLabel(option.default)
				: 'Consent Flow node, Map Automatically (no Concurrent Requests option: one at a time)',
			isDefault: true,
			credential: cred('default'),
			build: (c) => B.consentFlowCreate({ count: opts.items, cred: c, webhookUrl }),
		},
		{
			label: `Consent Flow node, Map Each Field Manually (6 expressions per item), Concurrent Requests ${option.exists ? option.default : 1}`,
			manualMapping: true,
			credential: cred('manual'),
			build: (c) =>
				B.consentFlowCreate({ count: opts.items, cred: c, webhookUrl, mappingMode: 'defineBelow' }),
		},
		{
			label: 'HTTP Request + oAuth2Api, body Using JSON (one template: one expression per item)',
			builtIn: 'one expression',
			credential: genericCred('x'),
			build: (c) =>
				B.httpConsentCreate({ count: opts.items, cred: c, sim, webhookUrl, httpVersion }),
		},
		{
			label:
				'HTTP Request + oAuth2Api, body Using Fields Below (fields mapped one by one: 6 expressions per item)',
			builtIn: 'fields one by one',
			credential: genericCred('f'),
			build: (c) =>
				B.httpConsentCreateFields({ count: opts.items, cred: c, sim, webhookUrl, httpVersion }),
		},
	];
	if (option.exists) {
		for (const level of opts.levels) {
			if (level === option.default) continue;
			sides.push({
				label: ourLabel(level),
				build: (c) =>
					B.consentFlowCreate({ count: opts.items, cred: c, webhookUrl, concurrency: level }),
			});
		}
	}
	return sides;
}

function estimateSides(ctx, { opts, option, httpVersion }) {
	const { sim } = ctx;
	const cred = (label) => () => S.estimateCredential(ctx, `bench ree ${label}`);
	const genericCred = (label) => () =>
		genericOAuth2(ctx, `bench http ree ${label}`, {
			tokenUrl: sim.realms.estimate.tokenUrl,
			client: sim.clients.estimate,
			scope: 'estimate:read',
		});
	const ourLabel = (c) => `Real Estate Estimate node, Concurrent Requests ${c}`;
	const sides = [
		{
			label: ourLabel(option.default),
			isDefault: true,
			credential: cred('default'),
			build: (c) => B.estimateGet({ count: opts.items, cred: c }),
		},
		{
			label: 'HTTP Request + oAuth2Api, templated URL (one expression per item)',
			builtIn: 'one expression',
			credential: genericCred('x'),
			build: (c) => B.httpEstimateGet({ count: opts.items, cred: c, sim, httpVersion }),
		},
		{
			label:
				'Edit Fields (5 fields mapped one by one) → HTTP Request + oAuth2Api, templated URL (6 expressions per item; node time = both nodes)',
			builtIn: 'fields one by one',
			credential: genericCred('f'),
			build: (c) => B.httpEstimateGetFields({ count: opts.items, cred: c, sim, httpVersion }),
		},
	];
	for (const level of opts.levels) {
		if (level === option.default) continue;
		sides.push({
			label: ourLabel(level),
			build: (c) => B.estimateGet({ count: opts.items, cred: c, concurrency: level }),
		});
	}
	return sides;
}

/** n8n's generic OAuth2 credential, client credentials, Basic client authentication (as ours). */
async function genericOAuth2(ctx, name, { tokenUrl, client, scope }) {
	const data = {
		grantType: 'clientCredentials',
		accessTokenUrl: tokenUrl,
		clientId: client.clientId,
		clientSecret: client.clientSecret,
		scope,
		authentication: 'header',
	};
	const created = await ctx.n8n.createCredential({
		name: `${name} ${crypto.randomBytes(3).toString('hex')}`,
		type: 'oAuth2Api',
		data,
	});
	return { id: created.id, name: created.name, type: 'oAuth2Api' };
}

module.exports = {
	latestVersion,
	concurrencyOption,
	compareNodes,
	consentSides,
	estimateSides,
	genericOAuth2,
};
